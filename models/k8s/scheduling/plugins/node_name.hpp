#pragma once
// NodeName (plugins/nodename): a pod with spec.nodeName fits only that node.
#include "models/k8s/scheduling/plugins/plugin_helpers.hpp"

namespace eksim::k8s::plugins {

inline FilterResult node_name_filter(const PodSpec& spec, const Node& node) {
  if (!spec.node_name.empty() && spec.node_name != node.meta.name)
    return fail(FilterCode::UnschedulableAndUnresolvable, "NodeName", kReasonNodeName);
  return {};
}

}  // namespace eksim::k8s::plugins
