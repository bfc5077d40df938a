#pragma once
// Scale-down eligibility as Cluster Autoscaler computes it: node utilisation
// (simulator/utilization: max of cpu and memory requests over allocatable; GPU nodes by GPU
// requests only) and the drainability rules that keep a pod, and so its node, in place
// (simulator/drainability/rules).
#include <optional>
#include <string>

#include "models/k8s/scheduling/node_info.hpp"

namespace eksim::autoscaling::cas {

inline constexpr const char* kAnnotationSafeToEvict = "cluster-autoscaler.kubernetes.io/safe-to-evict";
inline constexpr const char* kAnnotationScaleDownDisabled = "cluster-autoscaler.kubernetes.io/scale-down-disabled";
inline constexpr const char* kTaintToBeDeleted = "ToBeDeletedByClusterAutoscaler";

struct Utilization {
  double cpu = 0;
  double memory = 0;
  double gpu = 0;
  bool gpu_node = false;
  double value = 0;  // what is compared with the threshold
};

// GPU node: allocatable nvidia.com/gpu > 0, or `gpu_expected` (its group's instance type has GPUs
// while the device plugin has not advertised them yet).
Utilization node_utilization(const k8s::NodeInfo& info, bool gpu_expected = false);

struct DrainOptions {
  bool skip_nodes_with_system_pods = true;    // --skip-nodes-with-system-pods default true
  bool skip_nodes_with_local_storage = true;  // --skip-nodes-with-local-storage default true
};

// Upstream BlockingPodReason name (NotSafeToEvictAnnotation, NotReplicated,
// UnmovableKubeSystemPod) when the pod keeps its node; nullopt when it may be moved or ignored
// (DaemonSet pods, terminal pods, pods annotated safe-to-evict "true").
std::optional<std::string> blocking_reason(const k8s::Pod& pod, const DrainOptions& options = {});
// Pods that count as "to move" when the node goes (not DaemonSet, not terminal).
bool pod_needs_move(const k8s::Pod& pod);

}  // namespace eksim::autoscaling::cas
