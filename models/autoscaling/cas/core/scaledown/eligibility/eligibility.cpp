#include "models/autoscaling/cas/core/scaledown/eligibility/eligibility.hpp"

#include "models/autoscaling/cas/simulator/drainability/rules.hpp"

namespace eksim::autoscaling::cas {

const char* ineligible_reason(std::int64_t removable_in_group, const k8s::Node& node) {
  if (removable_in_group <= 0) return "NodeGroupMinSizeReached";
  auto ann = node.meta.annotations.find(kAnnotationScaleDownDisabled);
  if (ann != node.meta.annotations.end() && ann->second == "true") return "ScaleDownDisabledAnnotation";
  return nullptr;
}

bool underutilized(const Utilization& u, const CasOptions& o) {
  double threshold = u.gpu_node ? o.scale_down_gpu_utilization_threshold : o.scale_down_utilization_threshold;
  return u.value < threshold;
}

}  // namespace eksim::autoscaling::cas
