#include "models/k8s/addons/chart_values.hpp"

#include <algorithm>
#include <cstdlib>

namespace eksim::k8s::chart {

std::string get(const FlatValues& v, const std::string& key, const std::string& def) {
  auto it = v.find(key);
  return it == v.end() ? def : it->second;
}
bool get_bool(const FlatValues& v, const std::string& key, bool def) {
  auto it = v.find(key);
  if (it == v.end()) return def;
  return it->second == "true" || it->second == "True" || it->second == "1";
}
bool has_prefix(const FlatValues& v, const std::string& prefix) {
  auto it = v.lower_bound(prefix);
  return it != v.end() && it->first.rfind(prefix, 0) == 0;
}
// Indexes used under "<prefix>[i]".
std::vector<int> indexes(const FlatValues& v, const std::string& prefix) {
  std::vector<int> out;
  for (auto it = v.lower_bound(prefix + "["); it != v.end() && it->first.rfind(prefix + "[", 0) == 0; ++it) {
    int i = std::atoi(it->first.c_str() + prefix.size() + 1);
    if (out.empty() || out.back() != i) out.push_back(i);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}
std::string idx(const std::string& prefix, int i) { return prefix + "[" + std::to_string(i) + "]"; }

std::vector<NodeSelectorRequirement> parse_requirements(const FlatValues& v, const std::string& prefix) {
  std::vector<NodeSelectorRequirement> out;
  for (int i : indexes(v, prefix)) {
    std::string p = idx(prefix, i);
    NodeSelectorRequirement r{get(v, p + ".key"), get(v, p + ".operator"), {}};
    for (int j : indexes(v, p + ".values")) r.values.push_back(get(v, idx(p + ".values", j)));
    out.push_back(r);
  }
  return out;
}

Labels parse_map(const FlatValues& v, const std::string& prefix) {
  Labels out;
  for (auto it = v.lower_bound(prefix + "."); it != v.end() && it->first.rfind(prefix + ".", 0) == 0; ++it)
    out[it->first.substr(prefix.size() + 1)] = it->second;
  return out;
}

Toleration tol(std::string key, std::string op, std::string value, std::string effect) {
  return Toleration{std::move(key), std::move(op), std::move(value), std::move(effect), std::nullopt};
}


// The container the chart's template gives each program (name and command as in the
// nvidia-device-plugin 0.18 chart's daemonset-*.yml, the NFD chart's worker and the GPU
// Operator's operands).
Container chart_container(const std::string& role, const std::string& image) {
  Container c;
  c.image = image;
  if (role == kRoleDevicePlugin) {
    c.name = "nvidia-device-plugin-ctr";
    c.command = {"nvidia-device-plugin"};
  } else if (role == kRoleGfd) {
    c.name = "gpu-feature-discovery-ctr";
    c.command = {"gpu-feature-discovery"};
  } else if (role == kRoleNfdWorker) {
    c.name = "worker";
    c.command = {"nfd-worker"};
  } else if (role == kRoleOther) {
    c.name = "mps-control-daemon-ctr";
    c.command = {"mps-control-daemon"};
  } else {
    c.name = "nvidia-" + role + "-ctr";
  }
  return c;
}

DaemonSet make_ds(const std::string& name, const std::string& ns, const std::string& role, const std::string& image,
                  std::vector<Toleration> tolerations, Labels node_selector, std::optional<Affinity> affinity) {
  auto ds = node_critical_workload<DaemonSet>(name, ns, "app.kubernetes.io/name", std::move(tolerations));
  ds.tmpl.spec.node_selector = std::move(node_selector);
  if (affinity) ds.tmpl.spec.affinity = *affinity;
  ds.tmpl.spec.containers.push_back(chart_container(role, image));
  return ds;
}

// Values given for a list/map replace the chart default; otherwise the default stays.
std::vector<Toleration> tolerations_or(const FlatValues& v, const std::string& prefix, std::vector<Toleration> def) {
  if (has_prefix(v, prefix + "[")) return parse_tolerations(v, prefix);
  return def;
}
Labels node_selector_or(const FlatValues& v, const std::string& prefix, Labels def) {
  if (has_prefix(v, prefix + ".")) return parse_map(v, prefix);
  return def;
}
std::optional<Affinity> affinity_or(const FlatValues& v, const std::string& prefix, std::optional<Affinity> def) {
  if (v.count(prefix) || has_prefix(v, prefix + ".")) return parse_affinity(v, prefix);
  return def;
}

}  // namespace eksim::k8s::chart
