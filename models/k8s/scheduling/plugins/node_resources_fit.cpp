#include "models/k8s/scheduling/plugins/node_resources_fit.hpp"

namespace eksim::k8s {

namespace {

std::int64_t least_requested(std::int64_t requested, std::int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return (capacity - requested) * kMaxNodeScore / capacity;
}

}  // namespace

std::int64_t least_allocated_score(const PodSchedulingInfo& pod, const NodeInfo& n) {
  // noderesources/least_allocated.go with the default resources cpu:1, memory:1; a resource
  // the node does not have is left out of the average.
  std::int64_t total = 0, weights = 0;
  auto add = [&](std::int64_t req, std::int64_t alloc) {
    if (alloc == 0) return;
    total += least_requested(req, alloc);
    weights += 1;
  };
  add(n.non_zero_cpu + pod.non_zero_cpu, n.node.allocatable.get(kCpu));
  add(n.non_zero_memory + pod.non_zero_memory, n.node.allocatable.get(kMemory));
  return weights == 0 ? 0 : total / weights;
}

}  // namespace eksim::k8s
