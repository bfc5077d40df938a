// NodeResourcesBalancedAllocation (plugins/noderesources/balanced_allocation.go): a score only.
#include <algorithm>
#include <cmath>
#include <vector>

#include "models/k8s/scheduling/plugins.hpp"

namespace eksim::k8s {

std::int64_t balanced_allocation_score(const PodSchedulingInfo& pod, const NodeInfo& n) {
  // 100 * (1 - standard deviation of the requested fractions), on actual requests. Pods
  // requesting neither cpu nor memory skip the plugin.
  std::int64_t pc = pod.requests.get(kCpu), pm = pod.requests.get(kMemory);
  if (pc == 0 && pm == 0) return 0;
  std::vector<double> fr;
  auto add = [&](std::int64_t req, std::int64_t alloc) {
    if (alloc == 0) return;
    fr.push_back(std::min(1.0, static_cast<double>(req) / static_cast<double>(alloc)));
  };
  add(n.requested.get(kCpu) + pc, n.node.allocatable.get(kCpu));
  add(n.requested.get(kMemory) + pm, n.node.allocatable.get(kMemory));
  double sd = fr.size() == 2 ? std::abs((fr[0] - fr[1]) / 2) : 0.0;
  return static_cast<std::int64_t>((1 - sd) * static_cast<double>(kMaxNodeScore));
}

}  // namespace eksim::k8s
