#include "models/k8s/scheduling/plugins/node_affinity.hpp"

namespace eksim::k8s {

std::int64_t node_affinity_raw_score(const Pod& pod, const Node& node) {
  std::int64_t s = 0;
  for (const auto& p : pod.spec.affinity.node_preferred)
    if (p.weight != 0 && node_selector_term_matches(p.preference, node)) s += p.weight;
  return s;
}

namespace plugins {

void node_affinity_scores(const Pod& pod, const std::vector<const NodeInfo*>& feasible, std::vector<std::int64_t>& out) {
  for (std::size_t i = 0; i < feasible.size(); ++i) out[i] = node_affinity_raw_score(pod, feasible[i]->node);
  default_normalize_score(out, false);
}

}  // namespace plugins
}  // namespace eksim::k8s
