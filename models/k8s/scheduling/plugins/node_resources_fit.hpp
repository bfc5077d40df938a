#pragma once
// NodeResourcesFit (plugins/noderesources/fit.go): the filter reports every resource the node
// is short of (fitsRequest), and the pod count; the score is LeastAllocated (least_allocated.go).
#include "models/k8s/scheduling/plugins/plugin_helpers.hpp"

namespace eksim::k8s::plugins {

inline FilterResult node_resources_fit_filter(const PodSchedulingInfo& info, const NodeInfo& ni) {
  const Node& node = ni.node;
  FilterResult r;
  if (ni.pod_count() + 1 > node.allocatable.get(kPods)) r.reasons.emplace_back(kReasonTooManyPods);
  for (const auto& [name, amount] : info.requests.items()) {
    if (amount <= 0) continue;
    if (amount > node.allocatable.get(name) - ni.requested.get(name)) r.reasons.push_back("Insufficient " + name);
  }
  if (!r.reasons.empty()) {
    r.code = FilterCode::Unschedulable;
    r.plugin = "NodeResourcesFit";
  }
  return r;
}

}  // namespace eksim::k8s::plugins
