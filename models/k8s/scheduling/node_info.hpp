#pragma once
// NodeInfo: a node plus what is scheduled on it, as the kube-scheduler's cache keeps it
// (pkg/scheduler/framework/types.go NodeInfo). Built from a node and its pods; the scheduler,
// Cluster Autoscaler and Karpenter all test pods against NodeInfos, including template nodes
// that do not exist yet.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "models/k8s/api/objects.hpp"

namespace eksim::k8s {

struct HostPort {
  std::string protocol;  // TCP | UDP | SCTP
  std::int32_t port = 0;
  bool operator==(const HostPort&) const = default;
  auto operator<=>(const HostPort&) const = default;
};

// Pod-level facts the plugins need, computed once per pod.
struct PodSchedulingInfo {
  ResourceList requests;             // resource.PodRequests
  std::int64_t non_zero_cpu = 0;     // millicores, with 100m for containers without a request
  std::int64_t non_zero_memory = 0;  // bytes, with 200Mi for containers without a request
  std::vector<HostPort> host_ports;
  bool has_pod_affinity = false;  // any required/preferred pod affinity or anti-affinity term
  bool has_required_anti_affinity = false;
};
PodSchedulingInfo pod_scheduling_info(const Pod& pod);

// Defaults for pods that request no cpu/memory when scoring
// (pkg/scheduler/util/pod_resources.go DefaultMilliCPURequest, DefaultMemoryRequest).
inline constexpr std::int64_t kDefaultMilliCpuRequest = 100;
inline constexpr std::int64_t kDefaultMemoryRequest = 200LL * 1024 * 1024;

struct NodeInfo {
  Node node;
  // Pods assigned to the node, not owned: the caller keeps them alive and in place while the
  // NodeInfo is used (the Cluster's stable storage, or a scratch vector in a simulation).
  std::vector<const Pod*> pods;
  ResourceList requested;            // sum of pod_requests of pods
  std::int64_t non_zero_cpu = 0;     // sum with scoring defaults (NodeInfo.NonZeroRequested)
  std::int64_t non_zero_memory = 0;
  std::vector<HostPort> used_ports;  // sorted, with repeats
  int pods_with_affinity = 0;        // pods having any pod (anti-)affinity term
  int pods_with_required_anti_affinity = 0;
  // Lowest priority among the pods (INT32_MAX when empty): preemption skips nodes quickly when
  // nothing on them has a lower priority than the incoming pod.
  std::int32_t min_pod_priority = INT32_MAX;

  const std::string& name() const { return node.meta.name; }
  std::int64_t pod_count() const { return static_cast<std::int64_t>(pods.size()); }
};

// Builds a NodeInfo. Pods in phase Succeeded or Failed are left out: they hold no resources
// (the scheduler cache drops terminal pods).
NodeInfo make_node_info(const Node& node, std::span<const Pod* const> pods = {});
void add_pod(NodeInfo& info, const Pod& pod);
// Removes the pod (by address, else by namespace/name). Returns false when absent.
bool remove_pod(NodeInfo& info, const Pod& pod);

// Every node of the cluster as the scheduler sees it, for plugins that look beyond the node
// under test (PodTopologySpread, InterPodAffinity). Order does not matter to the results.
using NodeInfoView = std::span<const NodeInfo* const>;

}  // namespace eksim::k8s
