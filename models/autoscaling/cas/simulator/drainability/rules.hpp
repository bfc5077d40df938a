#pragma once
// The drainability rules that keep a pod, and so its node, in place
// (cluster-autoscaler/simulator/drainability/rules).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/k8s/scheduling/node_info.hpp"

namespace eksim::autoscaling::cas {

inline constexpr const char* kAnnotationSafeToEvict = "cluster-autoscaler.kubernetes.io/safe-to-evict";
inline constexpr const char* kAnnotationScaleDownDisabled = "cluster-autoscaler.kubernetes.io/scale-down-disabled";

// Volumes named here (comma-separated) do not count as blocking local storage.
inline constexpr const char* kAnnotationSafeToEvictLocalVolumes = "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes";

struct DrainOptions {
  bool skip_nodes_with_system_pods = true;    // --skip-nodes-with-system-pods default true
  bool skip_nodes_with_local_storage = true;  // --skip-nodes-with-local-storage default true
};

// A PodDisruptionBudget as the drain simulation sees it (pdb.RemainingPdbTracker): how many
// more pods it lets go in this loop.
struct RemainingPdb {
  std::string ns = "default";
  k8s::LabelSelector selector;
  std::int64_t disruptions_allowed = 0;
  bool matches(const k8s::Pod& pod) const;
};

// Why a pod keeps its node: upstream's BlockingPodReason name and the error text the
// drainability rule returns (logged as "node N cannot be removed: <message>").
struct BlockingPod {
  std::string reason;   // NotReplicated, UnmovableKubeSystemPod, NotSafeToEvictAnnotation, LocalStorageRequested, NotEnoughPdb
  std::string message;  // "default/web is not replicated", ...
  bool operator==(const BlockingPod&) const = default;
};

// simulator/drainability/rules, in upstream's order: DaemonSet pods, pods annotated
// safe-to-evict "true" and terminal pods never block; then replicated (no controller owner ->
// NotReplicated), system (kube-system pod matched by no PDB, when skip_nodes_with_system_pods),
// notsafetoevict (annotation "false"), localstorage (an emptyDir or hostPath volume not listed in
// safe-to-evict-local-volumes, when skip_nodes_with_local_storage), pdb (a matching budget with
// fewer than 1 disruption left).
std::optional<BlockingPod> drain_blocker(const k8s::Pod& pod, const DrainOptions& options,
                                         const std::vector<RemainingPdb>& pdbs);
// The reason name of drain_blocker with no PodDisruptionBudgets.
std::optional<std::string> blocking_reason(const k8s::Pod& pod, const DrainOptions& options = {});
// HasBlockingLocalStorage.
bool has_blocking_local_storage(const k8s::Pod& pod);

// Pods that count as "to move" when the node goes (not DaemonSet, not terminal).
bool pod_needs_move(const k8s::Pod& pod);

}  // namespace eksim::autoscaling::cas
