#pragma once
// NodePorts (plugins/nodeports): a host port may be used once per node.
#include "models/k8s/scheduling/plugins/plugin_helpers.hpp"

namespace eksim::k8s::plugins {

inline FilterResult node_ports_filter(const PodSchedulingInfo& info, const NodeInfo& ni) {
  for (const auto& hp : info.host_ports)
    if (std::binary_search(ni.used_ports.begin(), ni.used_ports.end(), hp))
      return fail(FilterCode::Unschedulable, "NodePorts", kReasonNodePorts);
  return {};
}

}  // namespace eksim::k8s::plugins
