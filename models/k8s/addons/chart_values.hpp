#pragma once
// Reading a Helm chart's values as eksim's add-ons get them (flattened `--set` paths, see
// addons.hpp) and building the objects the charts' templates render: shared by the device
// plugin, NFD and GPU Operator charts.
#include <optional>
#include <string>
#include <vector>

#include "models/k8s/addons/addons.hpp"
#include "models/k8s/api/workloads.hpp"

namespace eksim::k8s::chart {

std::string get(const FlatValues& v, const std::string& key, const std::string& def = {});
// Helm/YAML true (true, True, 1); `def` when the key is not set.
bool get_bool(const FlatValues& v, const std::string& key, bool def);
bool has_prefix(const FlatValues& v, const std::string& prefix);
// Indexes used under "<prefix>[i]", sorted.
std::vector<int> indexes(const FlatValues& v, const std::string& prefix);
std::string idx(const std::string& prefix, int i);
std::vector<NodeSelectorRequirement> parse_requirements(const FlatValues& v, const std::string& prefix);
Labels parse_map(const FlatValues& v, const std::string& prefix);
Toleration tol(std::string key, std::string op, std::string value = {}, std::string effect = {});

Container chart_container(const std::string& role, const std::string& image);
// What the charts' DaemonSets and Deployments share: name and namespace, one label (label_key:
// name) on the object and its pods and as the selector, the tolerations, and the
// system-node-critical priority class.
template <class Workload>
Workload node_critical_workload(const std::string& name, const std::string& ns, const std::string& label_key,
                                std::vector<Toleration> tolerations) {
  Workload w;
  w.meta.name = name;
  w.meta.ns = ns;
  w.meta.labels[label_key] = name;
  w.selector.match_labels[label_key] = name;
  w.tmpl.meta.labels[label_key] = name;
  w.tmpl.spec.tolerations = std::move(tolerations);
  w.tmpl.spec.priority_class_name = "system-node-critical";
  w.tmpl.spec.priority = 2000001000;  // system-node-critical
  return w;
}
DaemonSet make_ds(const std::string& name, const std::string& ns, const std::string& role, const std::string& image,
                  std::vector<Toleration> tolerations, Labels node_selector, std::optional<Affinity> affinity);

// Values given for a list/map replace the chart default; otherwise the default stays.
std::vector<Toleration> tolerations_or(const FlatValues& v, const std::string& prefix, std::vector<Toleration> def);
Labels node_selector_or(const FlatValues& v, const std::string& prefix, Labels def);
std::optional<Affinity> affinity_or(const FlatValues& v, const std::string& prefix, std::optional<Affinity> def);

}  // namespace eksim::k8s::chart
