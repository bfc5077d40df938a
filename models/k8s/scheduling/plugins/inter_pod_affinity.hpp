#pragma once
// InterPodAffinity (plugins/interpodaffinity): required pod affinity and anti-affinity, the
// incoming pod's and the existing pods' (counted once per pod in PreFilter), and the preferred
// terms' score.
#include <cstdint>
#include <optional>
#include <vector>

#include "models/k8s/scheduling/plugins/plugin_helpers.hpp"

namespace eksim::k8s::plugins {

// PreFilter: topology pairs of the existing pods' required anti-affinity terms that match the
// pod, and of the pod's own required affinity and anti-affinity terms that match existing pods.
void inter_pod_affinity_pre_filter(const Pod& pod, NodeInfoView all, std::optional<bool> any_existing_anti_affinity,
                                   PreFilterState& st);

FilterResult inter_pod_affinity_required(const Pod& pod, const PreFilterState& st, const Node& node);

inline FilterResult inter_pod_affinity_filter(const Pod& pod, const PreFilterState& st, const Node& node) {
  const auto& a = pod.spec.affinity;
  if (a.pod_affinity_required.empty() && a.pod_anti_affinity_required.empty() && st.existing_anti_affinity.empty())
    return {};  // the common case, without a call
  return inter_pod_affinity_required(pod, st, node);
}

// interpodaffinity/scoring.go: normalized scores (0..100) of the feasible nodes.
void inter_pod_affinity_scores(const Pod& pod, const std::vector<const NodeInfo*>& feasible, NodeInfoView all,
                               std::vector<std::int64_t>& out);

}  // namespace eksim::k8s::plugins
