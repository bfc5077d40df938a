#include "sim/scenario/service_manifest.hpp"

#include "sim/scenario/pod_spec_decoding.hpp"

namespace eksim::scenario::manifest {

namespace {

// ServiceSpec fields accepted and not modelled: eksim routes no traffic through Services.
const std::vector<const char*> kIgnoredServiceSpec = {
    "clusterIPs", "externalIPs", "sessionAffinity", "sessionAffinityConfig", "loadBalancerIP",
    "loadBalancerSourceRanges", "externalTrafficPolicy", "internalTrafficPolicy", "healthCheckNodePort",
    "publishNotReadyAddresses", "ipFamilies", "ipFamilyPolicy", "allocateLoadBalancerNodePorts",
    "loadBalancerClass", "trafficDistribution"};

std::string port_target(const Ctx& ctx, const Value& v, const std::string& path) {
  JsonType t = json_type(v);
  if (t == JsonType::Number) return std::to_string(integer(ctx, v, "ServicePort", path, "int32"));
  if (t == JsonType::String) return str(ctx, v, "ServicePort", path);
  type_error(ctx, v, t, "ServicePort", path, "intstr.IntOrString");
}

k8s::ServicePort service_port(const Ctx& ctx, const Value& v, const std::string& path) {
  Fields f(ctx, v, path, "ServiceSpec", "v1.ServicePort");
  k8s::ServicePort p;
  if (auto x = f.get("name")) p.name = str(ctx, *x, "ServicePort", f.path("name"));
  if (auto x = f.get("protocol")) {
    p.protocol = str(ctx, *x, "ServicePort", f.path("protocol"));
    if (p.protocol != "TCP" && p.protocol != "UDP" && p.protocol != "SCTP")
      ctx.invalid(*x, fe_not_supported(f.path("protocol"), p.protocol, {"SCTP", "TCP", "UDP"}));
  }
  auto pv = f.get("port");
  if (!pv) ctx.invalid(v, fe_invalid(f.path("port"), "0", "must be between 1 and 65535, inclusive"));
  const std::int64_t port = integer(ctx, *pv, "ServicePort", f.path("port"), "int32");
  if (port < 1 || port > 65535)
    ctx.invalid(*pv, fe_invalid(f.path("port"), std::to_string(port), "must be between 1 and 65535, inclusive"));
  p.port = static_cast<int>(port);
  if (auto x = f.get("targetPort")) p.target_port = port_target(ctx, *x, f.path("targetPort"));
  if (auto x = f.get("nodePort")) {
    const std::int64_t np = integer(ctx, *x, "ServicePort", f.path("nodePort"), "int32");
    if (np < 0 || np > 65535)
      ctx.invalid(*x, fe_invalid(f.path("nodePort"), std::to_string(np), "must be between 1 and 65535, inclusive"));
    p.node_port = static_cast<int>(np);
  }
  f.allow({"appProtocol"});
  f.finish();
  return p;
}

}  // namespace

k8s::Service decode_service(const Ctx& ctx, const Value& obj, Fields& top, k8s::ObjectMeta meta) {
  k8s::Service s;
  s.meta = std::move(meta);
  auto sv = top.get("spec");
  top.allow({"status"});
  top.finish();
  std::optional<Value> ports_v;
  if (sv) {
    Fields f(ctx, *sv, "spec", "Service", "v1.ServiceSpec");
    if (auto x = f.get("type")) {
      s.type = str(ctx, *x, "ServiceSpec", "spec.type");
      if (s.type != "ClusterIP" && s.type != "NodePort" && s.type != "LoadBalancer" && s.type != "ExternalName")
        ctx.invalid(*x, fe_not_supported("spec.type", s.type, {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}));
    }
    if (auto x = f.get("clusterIP")) s.cluster_ip = str(ctx, *x, "ServiceSpec", "spec.clusterIP");
    if (auto x = f.get("externalName")) s.external_name = str(ctx, *x, "ServiceSpec", "spec.externalName");
    if (auto x = f.get("selector")) s.selector = labels_impl(ctx, *x, "spec.selector", "ServiceSpec");
    ports_v = f.get("ports");
    std::vector<Value> items;
    if (ports_v) {
      items = list(ctx, *ports_v, "ServiceSpec", "spec.ports", "[]v1.ServicePort");
      for (std::size_t i = 0; i < items.size(); ++i) s.ports.push_back(service_port(ctx, items[i], index("spec.ports", i)));
    }
    f.allow(kIgnoredServiceSpec);
    f.finish();
    // Validation after decoding, as the API server decodes the whole object first.
    if (s.ports.size() > 1)
      for (std::size_t i = 0; i < items.size(); ++i)
        if (s.ports[i].name.empty()) ctx.invalid(items[i], fe_required(child(index("spec.ports", i), "name")));
  }
  if (s.type == "ExternalName") {
    if (s.external_name.empty()) ctx.invalid(sv ? *sv : obj, fe_required("spec.externalName"));
  } else if (s.ports.empty() && s.cluster_ip != "None") {
    ctx.invalid(ports_v ? *ports_v : sv ? *sv : obj, fe_required("spec.ports"));
  }
  if (s.cluster_ip == "None" && s.type != "ClusterIP")
    ctx.invalid(sv ? *sv : obj, fe_invalid("spec.clusterIPs[0]", quote("None"), "may not be set to 'None' for " + s.type + " services"));
  return s;
}

}  // namespace eksim::scenario::manifest
