#pragma once
// NodeAffinity (plugins/nodeaffinity): the filter applies nodeSelector and required node
// affinity; the score sums the weights of the preferred terms a node matches.
#include <cstdint>
#include <vector>

#include "models/k8s/scheduling/plugins/plugin_helpers.hpp"

namespace eksim::k8s::plugins {

inline FilterResult node_affinity_filter(const PodSpec& spec, const Node& node) {
  if (!pod_matches_node_selector_and_affinity(spec, node))
    return fail(FilterCode::UnschedulableAndUnresolvable, "NodeAffinity", kReasonNodeAffinity);
  return {};
}

// Normalized scores (0..100) of the feasible nodes; the caller skips pods without preferred terms.
void node_affinity_scores(const Pod& pod, const std::vector<const NodeInfo*>& feasible, std::vector<std::int64_t>& out);

}  // namespace eksim::k8s::plugins
