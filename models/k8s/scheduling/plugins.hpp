#pragma once
// The kube-scheduler's default filter and score plugins as pure functions
// (pkg/scheduler/framework/plugins/*). `fits` is THE answer to "does this pod fit this node":
// the scheduler, Cluster Autoscaler and Karpenter all call it, also on template nodes.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/k8s/scheduling/node_info.hpp"

namespace eksim::k8s {

struct KubernetesVersion {
  int minor = 33;
  // -1 = the latest patch release of that minor. Needed for 1.34 only: v1.34.2 took the
  // cherry-pick (#135023) that hides taint keys and values in FailedScheduling messages.
  int patch = -1;
};

// Default weights of the score plugins (pkg/scheduler/apis/config/v1/default_plugins.go).
// ImageLocality (weight 1) is not modelled: it needs per-node image caches and sizes.
struct ScoreWeights {
  std::int64_t taint_toleration = 3;
  std::int64_t node_affinity = 2;
  std::int64_t node_resources_fit = 1;  // LeastAllocated, cpu and memory weight 1 each
  std::int64_t balanced_allocation = 1;
  std::int64_t pod_topology_spread = 2;
  std::int64_t inter_pod_affinity = 2;
};

struct SchedulerOptions {
  KubernetesVersion version;
  bool preemption = true;  // DefaultPreemption PostFilter
  ScoreWeights weights;
};

inline constexpr std::int64_t kMaxNodeScore = 100;

// Status codes of framework.Status that matter to the messages: UnschedulableAndUnresolvable
// nodes are skipped by preemption ("Preemption is not helpful for scheduling").
enum class FilterCode { Success, Unschedulable, UnschedulableAndUnresolvable };

struct FilterResult {
  FilterCode code = FilterCode::Success;
  std::string plugin;                // failing plugin name, e.g. "NodeResourcesFit"
  std::vector<std::string> reasons;  // each counted once in the FailedScheduling histogram
  bool ok() const { return code == FilterCode::Success; }
};

// Upstream reason texts.
inline constexpr const char* kReasonUnschedulable = "node(s) were unschedulable";
inline constexpr const char* kReasonNodeName = "node(s) didn't match the requested node name";
inline constexpr const char* kReasonNodeAffinity = "node(s) didn't match Pod's node affinity/selector";
inline constexpr const char* kReasonNodePorts = "node(s) didn't have free ports for the requested pod ports";
inline constexpr const char* kReasonTooManyPods = "Too many pods";
inline constexpr const char* kReasonSpread = "node(s) didn't match pod topology spread constraints";
inline constexpr const char* kReasonSpreadMissingLabel =
    "node(s) didn't match pod topology spread constraints (missing required label)";
inline constexpr const char* kReasonPodAffinity = "node(s) didn't match pod affinity rules";
inline constexpr const char* kReasonPodAntiAffinity = "node(s) didn't match pod anti-affinity rules";
inline constexpr const char* kReasonExistingAntiAffinity =
    "node(s) didn't satisfy existing pods anti-affinity rules";

// TaintToleration's reason for version: `node(s) had untolerated taint {KEY: VALUE}` up to
// v1.34.1, `node(s) had untolerated taint(s)` from v1.34.2 and 1.35 (kubernetes#134740).
std::string untolerated_taint_reason(const Taint& taint, const KubernetesVersion& version);

// What PreFilter computes once per pod and scheduling attempt over every node: topology spread
// counts and inter-pod affinity counts (podtopologyspread/filtering.go, interpodaffinity/
// filtering.go). Empty when the pod has no such constraints and no pod in the cluster has
// required anti-affinity, so it costs nothing for plain pods.
using TopologyPair = std::pair<std::string, std::string>;  // label key, value
struct SpreadConstraintState {
  const TopologySpreadConstraint* constraint = nullptr;
  std::map<std::string, std::int64_t> counts;  // topology value -> matching pods
  std::int64_t min_match = 0;
  bool self_match = false;
};
struct PreFilterState {
  std::vector<SpreadConstraintState> spread;  // DoNotSchedule constraints, in spec order
  std::map<TopologyPair, std::int64_t> existing_anti_affinity;
  std::map<TopologyPair, std::int64_t> affinity;
  std::map<TopologyPair, std::int64_t> anti_affinity;
};
// any_existing_anti_affinity: whether a pod on one of `all` has required pod anti-affinity, when
// the caller keeps that count (SchedulingSnapshot); nullopt: walk `all` to find out.
PreFilterState pre_filter(const Pod& pod, const PodSchedulingInfo& info, NodeInfoView all,
                          std::optional<bool> any_existing_anti_affinity = std::nullopt);
FilterResult run_filters(const Pod& pod, const PodSchedulingInfo& info, const PreFilterState& state,
                         const NodeInfo& node, const SchedulerOptions& options);

// The filter plugins in upstream order: NodeUnschedulable, NodeName, TaintToleration,
// NodeAffinity, NodePorts, NodeResourcesFit, PodTopologySpread, InterPodAffinity. Returns the
// first failure; NodeResourcesFit lists every insufficient resource. `all` is every node of the
// cluster (it may or may not contain `node`; a template node need not be in it).
FilterResult fits(const Pod& pod, const NodeInfo& node, NodeInfoView all,
                  const SchedulerOptions& options = {});
FilterResult fits(const Pod& pod, const PodSchedulingInfo& info, const NodeInfo& node,
                  NodeInfoView all, const SchedulerOptions& options = {});

// Scores every feasible node (0..100 per plugin after normalizing, times the weights), in the
// order given. Plugins that normalize over nodes see exactly `feasible`.
std::vector<std::int64_t> score_nodes(const Pod& pod, const PodSchedulingInfo& info,
                                      const std::vector<const NodeInfo*>& feasible,
                                      NodeInfoView all, const SchedulerOptions& options = {});

// Single-node raw plugin scores used by score_nodes (exposed for tests).
std::int64_t least_allocated_score(const PodSchedulingInfo& pod, const NodeInfo& node);
std::int64_t balanced_allocation_score(const PodSchedulingInfo& pod, const NodeInfo& node);
std::int64_t node_affinity_raw_score(const Pod& pod, const Node& node);

// pluginhelper.DefaultNormalizeScore.
void default_normalize_score(std::vector<std::int64_t>& scores, bool reverse);

}  // namespace eksim::k8s
