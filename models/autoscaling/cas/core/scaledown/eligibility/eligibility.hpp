#pragma once
// Which nodes may be scale-down candidates at all (cluster-autoscaler/core/scaledown/
// eligibility/eligibility.go): a node of a known group above its group's min size, without the
// scale-down-disabled annotation, below the utilization threshold (the GPU threshold for GPU
// nodes).
#include <cstdint>

#include "models/autoscaling/cas/config/autoscaling_options.hpp"
#include "models/autoscaling/cas/simulator/utilization.hpp"
#include "models/k8s/api/objects.hpp"

namespace eksim::autoscaling::cas {

// The UnremovableReason known before the node's utilization is (NodeGroupMinSizeReached,
// ScaleDownDisabledAnnotation), or nullptr. removable_in_group: nodes the group may still lose.
const char* ineligible_reason(std::int64_t removable_in_group, const k8s::Node& node);
bool underutilized(const Utilization& u, const CasOptions& o);

}  // namespace eksim::autoscaling::cas
