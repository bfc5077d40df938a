#include "models/k8s/scheduling/plugins.hpp"

#include <algorithm>

#include "models/k8s/scheduling/plugins/inter_pod_affinity.hpp"
#include "models/k8s/scheduling/plugins/node_affinity.hpp"
#include "models/k8s/scheduling/plugins/node_name.hpp"
#include "models/k8s/scheduling/plugins/node_ports.hpp"
#include "models/k8s/scheduling/plugins/node_resources_fit.hpp"
#include "models/k8s/scheduling/plugins/node_unschedulable.hpp"
#include "models/k8s/scheduling/plugins/pod_topology_spread.hpp"
#include "models/k8s/scheduling/plugins/taint_toleration.hpp"

// The framework's order of the default plugins; each plugin is its own file in plugins/.
namespace eksim::k8s {

PreFilterState pre_filter(const Pod& pod, const PodSchedulingInfo&, NodeInfoView all,
                          std::optional<bool> any_existing_anti_affinity) {
  PreFilterState st;
  plugins::pod_topology_spread_pre_filter(pod, all, st);
  plugins::inter_pod_affinity_pre_filter(pod, all, any_existing_anti_affinity, st);
  return st;
}

FilterResult run_filters(const Pod& pod, const PodSchedulingInfo& info, const PreFilterState& st,
                         const NodeInfo& ni, const SchedulerOptions& options) {
  const Node& node = ni.node;
  const PodSpec& spec = pod.spec;
  if (FilterResult r = plugins::node_unschedulable_filter(spec, node); !r.ok()) return r;
  if (FilterResult r = plugins::node_name_filter(spec, node); !r.ok()) return r;
  if (FilterResult r = plugins::taint_toleration_filter(spec, node, options.version); !r.ok()) return r;
  if (FilterResult r = plugins::node_affinity_filter(spec, node); !r.ok()) return r;
  if (FilterResult r = plugins::node_ports_filter(info, ni); !r.ok()) return r;
  if (FilterResult r = plugins::node_resources_fit_filter(info, ni); !r.ok()) return r;
  if (FilterResult r = plugins::pod_topology_spread_filter(st, node); !r.ok()) return r;
  return plugins::inter_pod_affinity_filter(pod, st, node);
}

FilterResult fits(const Pod& pod, const PodSchedulingInfo& info, const NodeInfo& node, NodeInfoView all,
                  const SchedulerOptions& options) {
  return run_filters(pod, info, pre_filter(pod, info, all), node, options);
}

FilterResult fits(const Pod& pod, const NodeInfo& node, NodeInfoView all, const SchedulerOptions& options) {
  return fits(pod, pod_scheduling_info(pod), node, all, options);
}

void default_normalize_score(std::vector<std::int64_t>& scores, bool reverse) {
  std::int64_t mx = 0;
  for (auto s : scores) mx = std::max(mx, s);
  if (mx == 0) {
    if (reverse) std::fill(scores.begin(), scores.end(), kMaxNodeScore);
    return;
  }
  for (auto& s : scores) {
    s = kMaxNodeScore * s / mx;
    if (reverse) s = kMaxNodeScore - s;
  }
}

std::vector<std::int64_t> score_nodes(const Pod& pod, const PodSchedulingInfo& info,
                                      const std::vector<const NodeInfo*>& feasible, NodeInfoView all,
                                      const SchedulerOptions& options) {
  const auto& w = options.weights;
  std::size_t n = feasible.size();
  std::vector<std::int64_t> total(n, 0), tmp(n);
  // TaintToleration: fewer untolerated PreferNoSchedule taints is better.
  plugins::taint_toleration_scores(pod, feasible, tmp);
  for (std::size_t i = 0; i < n; ++i) total[i] += w.taint_toleration * tmp[i];
  // NodeAffinity (preferred terms).
  if (!pod.spec.affinity.node_preferred.empty()) {
    plugins::node_affinity_scores(pod, feasible, tmp);
    for (std::size_t i = 0; i < n; ++i) total[i] += w.node_affinity * tmp[i];
  }
  for (std::size_t i = 0; i < n; ++i) {
    total[i] += w.node_resources_fit * least_allocated_score(info, *feasible[i]);
    total[i] += w.balanced_allocation * balanced_allocation_score(info, *feasible[i]);
  }
  if (!pod.spec.topology_spread_constraints.empty()) {
    plugins::pod_topology_spread_scores(pod, feasible, all, tmp);
    for (std::size_t i = 0; i < n; ++i) total[i] += w.pod_topology_spread * tmp[i];
  }
  plugins::inter_pod_affinity_scores(pod, feasible, all, tmp);
  for (std::size_t i = 0; i < n; ++i) total[i] += w.inter_pod_affinity * tmp[i];
  return total;
}

}  // namespace eksim::k8s
