#include "sim/serve/discovery.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "sim/serve/resource_types.hpp"

namespace eksim::serve {

using nlohmann::json;

namespace {

// Changes whenever a group/version's document changes (a CRD created or deleted, eksim's own
// format bumped), so kubectl's on-disk OpenAPI cache is not reused.
constexpr const char* kOpenApiFormat = "eksim-serve-2";

std::string openapi_hash(const std::vector<ResourceType>& types, const k8s::CustomResources& crds, const std::string& gv) {
  std::string text = kOpenApiFormat;
  text += std::to_string(crds.crds().size());
  for (const auto& t : types)
    if (t.group_version() == gv) text += "/" + t.resource + ":" + t.kind;
  return fmt::format("{:016X}", std::hash<std::string>{}(text));
}

json group_version_json(const std::string& gv, const std::string& version) {
  return {{"groupVersion", gv}, {"version", version}};
}

json resource_list(const std::vector<ResourceType>& types, const std::string& group, const std::string& version) {
  json resources = json::array();
  for (const auto& t : types) {
    if (t.group != group || t.version != version) continue;
    json r = {{"name", t.resource}, {"singularName", t.singular}, {"namespaced", t.namespaced}, {"kind", t.kind},
              {"verbs", t.verbs}};
    if (!t.short_names.empty()) r["shortNames"] = t.short_names;
    if (!t.categories.empty()) r["categories"] = t.categories;
    resources.push_back(r);
    if (t.resource == "pods") {
      resources.push_back({{"name", "pods/log"}, {"singularName", ""}, {"namespaced", true}, {"kind", "Pod"}, {"verbs", {"get"}}});
      resources.push_back({{"name", "pods/status"}, {"singularName", ""}, {"namespaced", true}, {"kind", "Pod"}, {"verbs", {"get"}}});
      resources.push_back({{"name", "pods/eviction"}, {"singularName", ""}, {"namespaced", true}, {"group", "policy"},
                           {"version", "v1"}, {"kind", "Eviction"}, {"verbs", {"create"}}});
    }
    if (t.resource == "deployments")
      resources.push_back({{"name", "deployments/scale"}, {"singularName", ""}, {"namespaced", true},
                           {"group", "autoscaling"}, {"version", "v1"}, {"kind", "Scale"}, {"verbs", {"get", "patch", "update"}}});
  }
  return {{"kind", "APIResourceList"}, {"apiVersion", "v1"}, {"groupVersion", group.empty() ? version : group + "/" + version},
          {"resources", resources}};
}

// One PATCH operation per kind, carrying the GVK extension and the fieldValidation parameter:
// what cli-runtime's queryParamVerifierV3 looks for.
// The schema a CRD was created with, as the API server publishes it for the CRD's kind (named by
// the reversed group: sh.karpenter.v1.NodePool), so `kubectl explain nodepool.spec` reads it.
void add_crd_schemas(const k8s::CustomResources& crds, const std::string& group, const std::string& version, json& schemas) {
  for (const auto& [name, crd] : crds.crds()) {
    if (crd.group != group || crd.object_json.empty()) continue;
    json object = json::parse(crd.object_json, nullptr, false);
    if (!object.is_object()) continue;
    for (const auto& v : object["spec"].value("versions", json::array())) {
      if (v.value("name", "") != version || !v.contains("schema")) continue;
      json schema = v["schema"].value("openAPIV3Schema", json::object());
      schema["x-kubernetes-group-version-kind"] = json::array({{{"group", group}, {"version", version}, {"kind", crd.kind}}});
      std::vector<std::string> parts;
      for (std::size_t start = 0, dot; start <= group.size(); start = dot + 1) {
        dot = group.find('.', start);
        if (dot == std::string::npos) dot = group.size();
        parts.insert(parts.begin(), group.substr(start, dot - start));
      }
      std::string reversed;
      for (const auto& part : parts) reversed += (reversed.empty() ? "" : ".") + part;
      schemas[reversed + "." + version + "." + crd.kind] = schema;
    }
  }
}

json openapi_group_document(const std::vector<ResourceType>& types, const k8s::CustomResources& crds, const std::string& group,
                            const std::string& version) {
  json paths = json::object();
  for (const auto& t : types) {
    if (t.group != group || t.version != version) continue;
    std::string path = fmt::format("/{}{}{}{}/{{name}}", group.empty() ? "api/" : "apis/" + group + "/", version,
                                   t.namespaced ? "/namespaces/{namespace}/" : "/", t.resource);
    paths[path] = {{"patch",
                    {{"x-kubernetes-group-version-kind", {{"group", group}, {"version", version}, {"kind", t.kind}}},
                     {"parameters", json::array({{{"name", "fieldValidation"}, {"in", "query"}, {"schema", {{"type", "string"}}}}})},
                     {"responses", {{"200", {{"description", "OK"}}}}}}}};
  }
  json schemas = json::object();
  add_crd_schemas(crds, group, version, schemas);
  return {{"openapi", "3.0.0"}, {"info", {{"title", "Kubernetes (eksim serve)"}, {"version", "v1.32.3"}}}, {"paths", paths},
          {"components", {{"schemas", schemas}}}};
}

}  // namespace

json version_info() {
  return {{"major", "1"},
          {"minor", "32"},
          {"gitVersion", "v1.32.3-eks-sim"},
          {"gitCommit", "0000000000000000000000000000000000000000"},
          {"gitTreeState", "clean"},
          {"buildDate", "2026-01-01T00:00:00Z"},
          {"goVersion", "go1.23.6"},
          {"compiler", "gc"},
          {"platform", "linux/amd64"}};
}

std::optional<json> discovery_document(const std::vector<ResourceType>& types, const k8s::CustomResources& crds,
                                       const std::string& path) {
  if (path == "/api") return json{{"kind", "APIVersions"}, {"versions", {"v1"}}, {"serverAddressByClientCIDRs", json::array()}};
  if (path == "/api/v1") return resource_list(types, "", "v1");
  if (path == "/apis") {
    // One entry per group, its versions in the order served; the first is preferred.
    json groups = json::array();
    for (const auto& gv : group_versions(types)) {
      auto slash = gv.find('/');
      if (slash == std::string::npos) continue;
      std::string group = gv.substr(0, slash), version = gv.substr(slash + 1);
      auto it = std::find_if(groups.begin(), groups.end(), [&](const json& g) { return g["name"] == group; });
      if (it != groups.end()) {
        (*it)["versions"].push_back(group_version_json(gv, version));
        continue;
      }
      groups.push_back({{"name", group},
                        {"versions", json::array({group_version_json(gv, version)})},
                        {"preferredVersion", group_version_json(gv, version)}});
    }
    return json{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
  }
  if (path == "/openapi/v3") {
    json paths = json::object();
    for (const auto& gv : group_versions(types)) {
      std::string key = gv.find('/') == std::string::npos ? "api/" + gv : "apis/" + gv;
      paths[key] = {{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + openapi_hash(types, crds, gv)}};
    }
    return json{{"paths", paths}};
  }
  for (const auto& gv : group_versions(types)) {
    auto slash = gv.find('/');
    std::string group = slash == std::string::npos ? "" : gv.substr(0, slash);
    std::string version = slash == std::string::npos ? gv : gv.substr(slash + 1);
    std::string api_path = group.empty() ? "/api/" + version : "/apis/" + gv;
    if (!group.empty() && path == api_path) return resource_list(types, group, version);
    if (!group.empty() && path == "/apis/" + group)
      return json{{"kind", "APIGroup"}, {"apiVersion", "v1"}, {"name", group},
                  {"versions", json::array({group_version_json(gv, version)})},
                  {"preferredVersion", group_version_json(gv, version)}};
    if (path == "/openapi/v3" + api_path) return openapi_group_document(types, crds, group, version);
  }
  return std::nullopt;
}

}  // namespace eksim::serve
