// apiextensions.k8s.io/v1 CustomResourceDefinitions, as the cluster's registry holds them
// (models/k8s/api/custom_resources.hpp): EKS's own and the charts' from the start (their fields
// only), and those created through the API or a manifest as their creator sent them, schema and
// all. Also the objects the API server keeps whole (a chart's ServiceAccounts, RBAC, a custom
// resource of a CRD eksim does not simulate): listed back as sent, with the metadata the server
// adds.
#include "sim/serve/object_store.hpp"
#include "sim/serve/resource_types.hpp"
#include "sim/serve/resources/render.hpp"

namespace eksim::serve {

using nlohmann::json;

namespace {

json names_of(const k8s::CustomResourceDefinition& c) {
  json names = {{"plural", c.plural}, {"singular", c.singular}, {"kind", c.kind}, {"listKind", c.list_kind}};
  if (!c.short_names.empty()) names["shortNames"] = c.short_names;
  if (!c.categories.empty()) names["categories"] = c.categories;
  return names;
}

json crd_object(const k8s::CustomResourceDefinition& c, const std::string& created) {
  json versions = json::array(), stored = json::array();
  for (const auto& v : c.versions) {
    versions.push_back({{"name", v.name}, {"served", v.served}, {"storage", v.storage}});
    if (v.storage) stored.push_back(v.name);
  }
  json o = c.object_json.empty()
               ? json{{"spec", {{"group", c.group}, {"names", names_of(c)}, {"scope", c.namespaced ? "Namespaced" : "Cluster"},
                                {"versions", versions}}}}
               : json::parse(c.object_json);
  o["apiVersion"] = "apiextensions.k8s.io/v1";
  o["kind"] = "CustomResourceDefinition";
  json& meta = o["metadata"];
  meta["name"] = c.name();
  meta["uid"] = uid_of("CustomResourceDefinition", c.name());
  meta["creationTimestamp"] = created;
  meta["generation"] = 1;
  json conditions = json::array(
      {{{"type", "NamesAccepted"}, {"status", "True"}, {"reason", "NoConflicts"}, {"message", "no conflicts found"},
        {"lastTransitionTime", created}},
       {{"type", "Established"}, {"status", "True"}, {"reason", "InitialNamesAccepted"},
        {"message", "the initial names have been accepted"}, {"lastTransitionTime", created}}});
  o["status"] = {{"acceptedNames", names_of(c)}, {"conditions", conditions}, {"storedVersions", stored}};
  return o;
}

}  // namespace

void render_crds(const RenderContext& ctx, ObjectMap& out) {
  for (const auto& [name, crd] : ctx.cluster.api.custom_resources().crds()) out[name] = crd_object(crd, ctx.time.at(crd.created));
}

void render_kept_objects(const RenderContext& ctx, std::map<std::string, ObjectMap>& out) {
  const k8s::CustomResources& registry = ctx.cluster.api.custom_resources();
  const std::vector<ResourceType> types = served_types(registry);
  for (const auto& [key, o] : registry.objects()) {
    auto type = find_kind(types, o.group, o.kind);
    if (!type) continue;
    json obj = json::parse(o.object_json, nullptr, false);
    if (!obj.is_object()) continue;
    obj["apiVersion"] = type->group_version();
    obj["kind"] = o.kind;
    json& meta = obj["metadata"];
    if (!meta.is_object()) meta = json::object();
    meta["name"] = o.name;
    if (!o.ns.empty()) meta["namespace"] = o.ns;
    meta["uid"] = uid_of(o.group + "/" + o.kind + "/" + o.ns, o.name);
    meta["creationTimestamp"] = ctx.time.at(o.created);
    meta["generation"] = o.generation;
    // The model's own rendering of the object, when there is one, is what the server holds.
    out[ObjectStore::type_key(type->group, type->resource)].emplace(object_key(o.ns, o.name), std::move(obj));
  }
}

}  // namespace eksim::serve
