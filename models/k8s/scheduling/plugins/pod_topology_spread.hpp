#pragma once
// PodTopologySpread (plugins/podtopologyspread): DoNotSchedule constraints filter (counts taken
// once per pod in PreFilter), ScheduleAnyway constraints score. System default constraints are
// not modelled: they need the Services and ReplicaSets that select the pod.
#include <cstdint>
#include <vector>

#include "models/k8s/scheduling/plugins/plugin_helpers.hpp"

namespace eksim::k8s::plugins {

// PreFilter: matching pods per topology value of each DoNotSchedule constraint, over `all`.
void pod_topology_spread_pre_filter(const Pod& pod, NodeInfoView all, PreFilterState& st);

inline FilterResult pod_topology_spread_filter(const PreFilterState& st, const Node& node) {
  for (const auto& cs : st.spread) {
    const std::string* v = label(node, cs.constraint->topology_key);
    if (!v) return fail(FilterCode::UnschedulableAndUnresolvable, "PodTopologySpread", kReasonSpreadMissingLabel);
    auto it = cs.counts.find(*v);
    std::int64_t match = it == cs.counts.end() ? 0 : it->second;
    std::int64_t skew = match + (cs.self_match ? 1 : 0) - cs.min_match;
    if (skew > cs.constraint->max_skew) return fail(FilterCode::Unschedulable, "PodTopologySpread", kReasonSpread);
  }
  return {};
}

// podtopologyspread/scoring.go: normalized scores (0..100) of the feasible nodes.
void pod_topology_spread_scores(const Pod& pod, const std::vector<const NodeInfo*>& feasible, NodeInfoView all,
                                std::vector<std::int64_t>& out);

}  // namespace eksim::k8s::plugins
