// core/v1 Services: the ones the API server holds (EKS's, the add-ons' and charts', kubectl's),
// with the fields the apiserver defaults for a single-stack IPv4 cluster.
#include "sim/serve/resources/render.hpp"

#include <algorithm>
#include <cctype>

namespace eksim::serve {

using nlohmann::json;

namespace {

// IntOrString as the apiserver returns it: a number when it is one.
json int_or_string(const std::string& v) {
  if (!v.empty() && std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); }))
    return std::stoi(v);
  return v;
}

json service_json(const k8s::Service& s, const TimeBase& tb) {
  json meta = render_meta(s.meta, tb);
  meta["uid"] = uid_of("Service", s.meta.ns + "/" + s.meta.name);
  json ports = json::array();
  for (const auto& p : s.ports) {
    json pj = json::object();
    if (!p.name.empty()) pj["name"] = p.name;
    pj["protocol"] = p.protocol;
    pj["port"] = p.port;
    pj["targetPort"] = p.target_port.empty() ? json(p.port) : int_or_string(p.target_port);
    if (p.node_port) pj["nodePort"] = p.node_port;
    ports.push_back(std::move(pj));
  }
  json spec = json::object();
  if (!ports.empty()) spec["ports"] = std::move(ports);
  if (!s.selector.empty()) spec["selector"] = s.selector;
  spec["type"] = s.type;
  if (s.type == "ExternalName") {
    spec["externalName"] = s.external_name;
  } else {
    spec["clusterIP"] = s.cluster_ip;
    spec["clusterIPs"] = json::array({s.cluster_ip});
    spec["sessionAffinity"] = "None";
    spec["ipFamilies"] = json::array({"IPv4"});
    spec["ipFamilyPolicy"] = "SingleStack";
    spec["internalTrafficPolicy"] = "Cluster";
    if (s.type != "ClusterIP") spec["externalTrafficPolicy"] = "Cluster";
  }
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", std::move(meta)},
          {"spec", std::move(spec)},
          {"status", {{"loadBalancer", json::object()}}}};
}

}  // namespace

void render_services(const RenderContext& ctx, ObjectMap& out) {
  for (const auto& [key, s] : ctx.cluster.api.services().all()) out[key] = service_json(s, ctx.time);
}

}  // namespace eksim::serve
