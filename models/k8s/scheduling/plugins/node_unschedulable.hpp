#pragma once
// NodeUnschedulable (plugins/nodeunschedulable): a cordoned node takes only pods that tolerate
// the node.kubernetes.io/unschedulable:NoSchedule taint.
#include "models/k8s/scheduling/plugins/plugin_helpers.hpp"

namespace eksim::k8s::plugins {

// The taint the node lifecycle controller puts on cordoned nodes.
inline const Taint kUnschedulableTaint{"node.kubernetes.io/unschedulable", "", kNoSchedule};

inline FilterResult node_unschedulable_filter(const PodSpec& spec, const Node& node) {
  if (node.unschedulable && !tolerations_tolerate_taint(spec.tolerations, kUnschedulableTaint))
    return fail(FilterCode::UnschedulableAndUnresolvable, "NodeUnschedulable", kReasonUnschedulable);
  return {};
}

}  // namespace eksim::k8s::plugins
