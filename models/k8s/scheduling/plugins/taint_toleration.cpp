#include "models/k8s/scheduling/plugins/taint_toleration.hpp"

namespace eksim::k8s {

std::string untolerated_taint_reason(const Taint& taint, const KubernetesVersion& v) {
  bool hidden = v.minor > 34 || (v.minor == 34 && (v.patch < 0 || v.patch >= 2));
  if (hidden) return "node(s) had untolerated taint(s)";
  return "node(s) had untolerated taint {" + taint.key + ": " + taint.value + "}";
}

namespace plugins {

void taint_toleration_scores(const Pod& pod, const std::vector<const NodeInfo*>& feasible, std::vector<std::int64_t>& out) {
  for (std::size_t i = 0; i < feasible.size(); ++i)
    out[i] = count_untolerated_prefer_no_schedule(feasible[i]->node.taints, pod.spec.tolerations);
  default_normalize_score(out, true);
}

}  // namespace plugins
}  // namespace eksim::k8s
