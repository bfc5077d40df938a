#include "sim/scenario/pod_spec_decoding.hpp"

#include <limits>
#include <set>

#include "models/k8s/api/quantity.hpp"
#include "sim/engine/numbers.hpp"
#include "sim/scenario/input_limits.hpp"

namespace eksim::scenario::manifest {

// Standard pod spec fields accepted and deliberately not modelled (see the allow-list in
// k8s_manifest.cpp).
const std::vector<const char*> kIgnoredPodSpec = {
    "securityContext", "imagePullSecrets", "serviceAccountName", "serviceAccount",
    "automountServiceAccountToken", "dnsPolicy", "dnsConfig", "hostname", "subdomain", "hostAliases",
    "hostPID", "hostIPC", "hostUsers", "shareProcessNamespace", "runtimeClassName", "enableServiceLinks",
    "preemptionPolicy", "overhead", "readinessGates", "activeDeadlineSeconds", "os", "setHostnameAsFQDN",
    "ephemeralContainers", "resourceClaims",
    // These do change scheduling upstream but are not modelled yet (pods schedule as if absent):
    "schedulingGates", "resources"};
const std::vector<const char*> kIgnoredContainer = {
    "envFrom", "volumeDevices", "livenessProbe", "readinessProbe", "startupProbe",
    "lifecycle", "terminationMessagePath", "terminationMessagePolicy", "imagePullPolicy", "securityContext",
    "stdin", "stdinOnce", "tty", "workingDir", "resizePolicy"};
const std::vector<const char*> kIgnoredPort = {"name", "hostIP"};
const std::vector<const char*> kIgnoredResources = {"claims"};
// Init containers may be sidecars (restartPolicy: Always); the model runs them as plain init
// containers.
const std::vector<const char*> kIgnoredInitContainer = {"restartPolicy"};

// Reads a map[string]string (labels, annotations, nodeSelector); keys keep their YAML nodes
// so that a bad key is located at the key.
std::vector<std::pair<Value, Value>> string_map_entries(const Ctx& ctx, const Value& v, const char* go_struct,
                                                         const std::string& path) {
  JsonType t = json_type(v);
  if (t == JsonType::Null) return {};
  if (t != JsonType::Object) type_error(ctx, v, t, go_struct, path, "map[string]string");
  std::vector<std::pair<Value, Value>> out;
  for (const auto& [name, k, val] : v.entries("a string")) {
    str(ctx, val, go_struct, path);  // type check
    out.emplace_back(k, val);
  }
  return out;
}

k8s::Labels labels_impl(const Ctx& ctx, const Value& v, const std::string& path, const char* go_struct) {
  k8s::Labels out;
  for (const auto& [k, val] : string_map_entries(ctx, v, go_struct, path)) {
    std::string key = k.node().Scalar(), value = str(ctx, val, go_struct, path);
    for (const auto& m : qualified_name_errors(key)) ctx.invalid(k, fe_invalid(path, quote(key), m));
    for (const auto& m : label_value_errors(value)) ctx.invalid(val, fe_invalid(path, quote(value), m));
    out[key] = value;
  }
  return out;
}

k8s::Labels annotations(const Ctx& ctx, const Value& v, const std::string& path) {
  k8s::Labels out;
  for (const auto& [k, val] : string_map_entries(ctx, v, "ObjectMeta", path)) {
    std::string key = k.node().Scalar();
    std::string lower = key;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const auto& m : qualified_name_errors(lower)) ctx.invalid(k, fe_invalid(path, quote(key), m));
    out[key] = str(ctx, val, "ObjectMeta", path);
  }
  return out;
}

// ---- quantities (k8s.io/apimachinery/pkg/api/resource) ----------------------------------

bool is_native_resource(const std::string& name) {
  return name.find('/') == std::string::npos || name.find("kubernetes.io/") != std::string::npos;
}
bool is_hugepages(const std::string& name) { return name.rfind("hugepages-", 0) == 0; }
bool is_extended_resource(const std::string& name) {
  return !is_native_resource(name) && name.rfind("requests.", 0) != 0 &&
         qualified_name_errors("requests." + name).empty();
}
// Extended resources and huge pages cannot be overcommitted (helper.IsOvercommitAllowed).
bool overcommit_allowed(const std::string& name) { return is_native_resource(name) && !is_hugepages(name); }

ParsedQuantity quantity(const Ctx& ctx, const Value& v) {
  JsonType t = json_type(v);
  std::string s = v.is_scalar() ? v.node().Scalar() : std::string();
  if (t == JsonType::Object || t == JsonType::Array || t == JsonType::Null) s = "";
  std::string_view number;
  if (!syntax::quantity_parts(s, &number, nullptr))
    ctx.decode(v, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  auto q = k8s::parse_quantity(s);
  if (!q) {
    std::string num(number);
    bool numeric_ok = std::count(num.begin(), num.end(), '.') <= 1 && num.find_first_of("0123456789") != std::string::npos;
    ctx.decode(v, numeric_ok ? "unable to parse quantity's suffix" : "unable to parse numeric part of quantity");
  }
  return {s, *q};
}

std::vector<NamedQuantity> resource_entries(const Ctx& ctx, const Value& v, const std::string& path) {
  JsonType t = json_type(v);
  if (t == JsonType::Null) return {};
  if (t != JsonType::Object) type_error(ctx, v, t, "ResourceRequirements", path, "v1.ResourceList");
  std::vector<NamedQuantity> out;
  for (const auto& [name, k, val] : v.entries("a resource name")) {
    std::string fld = keyed(path, name);
    for (const auto& msg : qualified_name_errors(name)) ctx.invalid(k, fe_invalid(fld, quote(name), msg));
    if (name.find('/') == std::string::npos) {
      if (name != "cpu" && name != "memory" && name != "ephemeral-storage" && !is_hugepages(name))
        ctx.invalid(k, fe_invalid(fld, quote(name), "must be a standard resource for containers"));
    } else if (!is_native_resource(name) && !is_extended_resource(name)) {
      ctx.invalid(k, fe_invalid(fld, quote(name), "doesn't follow extended resource name standard"));
    }
    ParsedQuantity q = quantity(ctx, val);
    if (q.milli < 0) ctx.invalid(val, fe_invalid(fld, quote(q.text), "must be greater than or equal to 0"));
    if (is_extended_resource(name) && q.milli % 1000 != 0)
      ctx.invalid(val, fe_invalid(fld, quote(q.text), "must be an integer"));
    out.push_back({name, q, val});
  }
  return out;
}

k8s::ResourceList to_resource_list(const std::vector<NamedQuantity>& entries) {
  k8s::ResourceList out;
  for (const auto& e : entries) out.set(e.name, k8s::amount_from_milli(e.name, e.q.milli));
  return out;
}

// validateResourceRequirements plus the API server's defaulting (a limit without a request
// becomes the request, per resource: SetDefaults_Pod).
void resources(const Ctx& ctx, const Value& v, const std::string& path, k8s::Container& c) {
  Fields f(ctx, v, path, "Container", "v1.ResourceRequirements");
  std::vector<NamedQuantity> limits, requests;
  if (auto l = f.get("limits")) limits = resource_entries(ctx, *l, f.path("limits"));
  auto rv = f.get("requests");
  if (rv) requests = resource_entries(ctx, *rv, f.path("requests"));
  f.allow(kIgnoredResources);
  f.finish();
  for (const auto& r : requests) {
    auto lim = std::find_if(limits.begin(), limits.end(), [&](const NamedQuantity& l) { return l.name == r.name; });
    if (lim != limits.end()) {
      if (r.q.milli != lim->q.milli && !overcommit_allowed(r.name))
        ctx.invalid(r.at, fe_invalid(f.path("requests"), quote(r.q.text),
                                     "must be equal to " + r.name + " limit of " + lim->q.text));
      if (r.q.milli > lim->q.milli)
        ctx.invalid(r.at, fe_invalid(f.path("requests"), quote(r.q.text),
                                     "must be less than or equal to " + r.name + " limit of " + lim->q.text));
    } else if (!overcommit_allowed(r.name)) {
      ctx.invalid(r.at, fe_required(f.path("limits"), "Limit must be set for non overcommitable resources"));
    }
  }
  c.limits = to_resource_list(limits);
  c.requests = to_resource_list(requests);
  for (const auto& l : limits)
    if (!c.requests.has(l.name)) c.requests.set(l.name, c.limits.get(l.name));
}

// ---- containers and pod spec --------------------------------------------------------------

struct PortAt {
  Value at;
  std::string path;
};

k8s::Container container(const Ctx& ctx, const Value& v, const std::string& path, bool init,
                         std::vector<PortAt>& port_nodes) {
  Fields f(ctx, v, path, "PodSpec", "v1.Container");
  k8s::Container c;
  auto nv = f.get("name");
  if (nv) c.name = str(ctx, *nv, "Container", f.path("name"));
  auto iv = f.get("image");
  if (iv) c.image = str(ctx, *iv, "Container", f.path("image"));
  if (auto cv = f.get("command")) c.command = str_list(ctx, *cv, "Container", f.path("command"));
  if (auto av = f.get("args")) c.args = str_list(ctx, *av, "Container", f.path("args"));
  if (auto rv = f.get("resources")) resources(ctx, *rv, f.path("resources"), c);
  if (auto ev = f.get("env")) {
    auto items = list(ctx, *ev, "Container", f.path("env"), "[]v1.EnvVar");
    for (std::size_t i = 0; i < items.size(); ++i) {
      std::string p = index(f.path("env"), i);
      Fields ef(ctx, items[i], p, "Container", "v1.EnvVar");
      k8s::EnvVar e;
      auto en = ef.get("name");
      if (en) e.name = str(ctx, *en, "EnvVar", ef.path("name"));
      if (auto val = ef.get("value")) e.value = str(ctx, *val, "EnvVar", ef.path("value"));
      ef.allow({"valueFrom"});  // a Secret's or the downward API's value: not read
      ef.finish();
      if (e.name.empty()) ctx.invalid(en ? *en : items[i], fe_required(ef.path("name")));
      c.env.push_back(std::move(e));
    }
  }
  if (auto pv = f.get("ports")) {
    auto items = list(ctx, *pv, "Container", f.path("ports"), "[]v1.ContainerPort");
    for (std::size_t i = 0; i < items.size(); ++i) {
      std::string p = index(f.path("ports"), i);
      Fields pf(ctx, items[i], p, "Container", "v1.ContainerPort");
      k8s::ContainerPort port;
      auto cp = pf.get("containerPort");
      if (cp) port.container_port = static_cast<std::int32_t>(integer(ctx, *cp, "ContainerPort", pf.path("containerPort"), "int32"));
      auto hp = pf.get("hostPort");
      if (hp) port.host_port = static_cast<std::int32_t>(integer(ctx, *hp, "ContainerPort", pf.path("hostPort"), "int32"));
      auto pr = pf.get("protocol");
      if (pr) port.protocol = str(ctx, *pr, "ContainerPort", pf.path("protocol"));
      if (port.protocol.empty()) port.protocol = "TCP";  // SetDefaults_ContainerPort
      pf.allow(kIgnoredPort);
      pf.finish();
      if (port.container_port == 0) ctx.invalid(items[i], fe_required(pf.path("containerPort")));
      if (port.container_port < 1 || port.container_port > 65535)
        ctx.invalid(*cp, fe_invalid(pf.path("containerPort"), std::to_string(port.container_port), "must be between 1 and 65535, inclusive"));
      if (port.host_port != 0 && (port.host_port < 1 || port.host_port > 65535))
        ctx.invalid(*hp, fe_invalid(pf.path("hostPort"), std::to_string(port.host_port), "must be between 1 and 65535, inclusive"));
      if (port.protocol != "TCP" && port.protocol != "UDP" && port.protocol != "SCTP")
        ctx.invalid(*pr, fe_not_supported(pf.path("protocol"), port.protocol, {"SCTP", "TCP", "UDP"}));
      c.ports.push_back(port);
      port_nodes.push_back({items[i], p});
    }
  }
  if (auto mv = f.get("volumeMounts")) {
    // Where the container sees its volumes (device plugins find their config files there).
    auto items = list(ctx, *mv, "Container", f.path("volumeMounts"), "[]v1.VolumeMount");
    for (std::size_t i = 0; i < items.size(); ++i) {
      Fields mf(ctx, items[i], index(f.path("volumeMounts"), i), "Container", "v1.VolumeMount");
      k8s::VolumeMount m;
      auto mn = mf.get("name");
      if (mn) m.name = str(ctx, *mn, "VolumeMount", mf.path("name"));
      auto mp = mf.get("mountPath");
      if (mp) m.mount_path = str(ctx, *mp, "VolumeMount", mf.path("mountPath"));
      mf.allow({"readOnly", "recursiveReadOnly", "subPath", "subPathExpr", "mountPropagation"});
      mf.finish();
      if (m.name.empty()) ctx.invalid(mn ? *mn : items[i], fe_required(mf.path("name")));
      if (m.mount_path.empty()) ctx.invalid(mp ? *mp : items[i], fe_required(mf.path("mountPath")));
      c.volume_mounts.push_back(std::move(m));
    }
  }
  auto rp = f.get("restartPolicy");
  if (rp && !init) ctx.invalid(*rp, fe_forbidden(f.path("restartPolicy"), "may not be set for non-init containers"));
  f.allow(kIgnoredContainer);
  f.finish();
  if (c.name.empty()) ctx.invalid(nv ? *nv : v, fe_required(f.path("name")));
  for (const auto& m : dns1123_label_errors(c.name)) ctx.invalid(*nv, fe_invalid(f.path("name"), quote(c.name), m));
  if (c.image.empty()) ctx.invalid(iv ? *iv : v, fe_required(f.path("image")));
  return c;
}

std::vector<k8s::Container> containers(const Ctx& ctx, const Value& v, const std::string& path, bool init,
                                       std::set<std::string>& names, bool host_network) {
  std::vector<k8s::Container> out;
  auto items = list(ctx, v, "PodSpec", path, "[]v1.Container");
  std::set<std::string> host_ports;
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::vector<PortAt> port_nodes;
    k8s::Container c = container(ctx, items[i], index(path, i), init, port_nodes);
    if (!names.insert(c.name).second) ctx.invalid(items[i], fe_duplicate(index(path, i) + ".name", c.name));
    if (init) host_ports.clear();  // init containers run one by one: conflicts only within one
    for (std::size_t j = 0; j < c.ports.size(); ++j) {
      auto& port = c.ports[j];
      if (host_network) {
        // SetDefaults_PodSpec copies containerPort into an unset hostPort under hostNetwork.
        if (port.host_port == 0) port.host_port = port.container_port;
        if (port.host_port != port.container_port)
          ctx.invalid(port_nodes[j].at, fe_invalid(port_nodes[j].path + ".hostPort", std::to_string(port.host_port),
                                                   "must match `containerPort` when `hostNetwork` is true"));
      }
      if (port.host_port == 0) continue;
      std::string key = "/" + port.protocol + "/" + std::to_string(port.host_port);
      if (!host_ports.insert(key).second)
        ctx.invalid(port_nodes[j].at, fe_duplicate(port_nodes[j].path + ".hostPort", key));
    }
    out.push_back(std::move(c));
  }
  return out;
}

k8s::PodSpec pod_spec(const Ctx& ctx, const Value& v, const std::string& path) {
  Fields f(ctx, v, path, "Pod", "v1.PodSpec");
  k8s::PodSpec s;
  if (auto hv = f.get("hostNetwork")) s.host_network = boolean(ctx, *hv, "PodSpec", f.path("hostNetwork"));
  std::set<std::string> names;
  auto cv = f.get("containers");
  if (cv) s.containers = containers(ctx, *cv, f.path("containers"), false, names, s.host_network);
  if (auto iv = f.get("initContainers")) s.init_containers = containers(ctx, *iv, f.path("initContainers"), true, names, s.host_network);
  if (auto ns = f.get("nodeSelector")) s.node_selector = labels_impl(ctx, *ns, f.path("nodeSelector"), "PodSpec");
  if (auto av = f.get("affinity")) s.affinity = affinity(ctx, *av, f.path("affinity"));
  if (auto tv = f.get("tolerations")) s.tolerations = tolerations(ctx, *tv, f.path("tolerations"));
  if (auto tv = f.get("topologySpreadConstraints"))
    s.topology_spread_constraints = spread_constraints(ctx, *tv, f.path("topologySpreadConstraints"));
  if (auto rv = f.get("restartPolicy")) {
    s.restart_policy = str(ctx, *rv, "PodSpec", f.path("restartPolicy"));
    if (s.restart_policy.empty()) s.restart_policy = "Always";
    if (s.restart_policy != "Always" && s.restart_policy != "OnFailure" && s.restart_policy != "Never")
      ctx.invalid(*rv, fe_not_supported(f.path("restartPolicy"), s.restart_policy, {"Always", "OnFailure", "Never"}));
  }
  if (auto pv = f.get("priorityClassName")) {
    s.priority_class_name = str(ctx, *pv, "PodSpec", f.path("priorityClassName"));
    if (!s.priority_class_name.empty())
      for (const auto& m : dns1123_subdomain_errors(s.priority_class_name))
        ctx.invalid(*pv, fe_invalid(f.path("priorityClassName"), quote(s.priority_class_name), m));
  }
  if (auto pv = f.get("priority")) s.priority = static_cast<std::int32_t>(integer(ctx, *pv, "PodSpec", f.path("priority"), "int32"));
  if (auto nv = f.get("nodeName")) {
    s.node_name = str(ctx, *nv, "PodSpec", f.path("nodeName"));
    if (!s.node_name.empty())
      for (const auto& m : dns1123_subdomain_errors(s.node_name))
        ctx.invalid(*nv, fe_invalid(f.path("nodeName"), quote(s.node_name), m));
  }
  if (auto sv = f.get("schedulerName")) {
    s.scheduler_name = str(ctx, *sv, "PodSpec", f.path("schedulerName"));
    if (s.scheduler_name.empty()) s.scheduler_name = "default-scheduler";
  }
  if (auto tv = f.get("terminationGracePeriodSeconds")) {
    s.termination_grace_period_seconds = integer(ctx, *tv, "PodSpec", f.path("terminationGracePeriodSeconds"), "int64");
    // Valid Kubernetes up to int64, but the kubelet's wait is a time: longer than the longest run
    // it could not be added to the clock.
    if (s.termination_grace_period_seconds > kMaxSimulatedTime.us / 1000000)
      tv->fail("terminationGracePeriodSeconds " + std::to_string(s.termination_grace_period_seconds) +
               " is longer than eksim simulates (at most " + std::to_string(kMaxSimulatedTime.us / 1000000) + ", one year)");
  }
  if (auto vv = f.get("volumes")) {
    // Name and source kind only (Cluster Autoscaler's local-storage rule); the source's own
    // fields are accepted as written.
    auto items = list(ctx, *vv, "PodSpec", f.path("volumes"), "[]v1.Volume");
    for (std::size_t i = 0; i < items.size(); ++i) {
      k8s::Volume vol;
      if (items[i].is_map())
        for (const auto& [key, k, val] : items[i].entries("a field name")) {
          if (key == "name") {
            vol.name = str(ctx, val, "Volume", index(f.path("volumes"), i) + ".name");
          } else if (vol.source.empty()) {
            vol.source = key;
            if (key == "configMap" && val.is_map() && val.node()["name"] && val.node()["name"].IsScalar())
              vol.config_map = val.node()["name"].Scalar();
          }
        }
      s.volumes.push_back(std::move(vol));
    }
  }
  f.allow(kIgnoredPodSpec);
  f.finish();
  if (s.containers.empty()) ctx.invalid(cv ? *cv : v, fe_required(f.path("containers")));
  return s;
}

}  // namespace eksim::scenario::manifest
