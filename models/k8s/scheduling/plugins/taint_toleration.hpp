#pragma once
// TaintToleration (plugins/tainttoleration): the filter refuses a node with a NoSchedule or
// NoExecute taint the pod does not tolerate; the score prefers fewer untolerated
// PreferNoSchedule taints.
#include <cstdint>
#include <vector>

#include "models/k8s/scheduling/plugins/plugin_helpers.hpp"

namespace eksim::k8s::plugins {

inline FilterResult taint_toleration_filter(const PodSpec& spec, const Node& node, const KubernetesVersion& version) {
  if (auto t = find_untolerated_taint(node.taints, spec.tolerations))
    return fail(FilterCode::UnschedulableAndUnresolvable, "TaintToleration", untolerated_taint_reason(*t, version));
  return {};
}

// Normalized scores (0..100) of the feasible nodes, in their order.
void taint_toleration_scores(const Pod& pod, const std::vector<const NodeInfo*>& feasible, std::vector<std::int64_t>& out);

}  // namespace eksim::k8s::plugins
