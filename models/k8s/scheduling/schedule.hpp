#pragma once
// One scheduling cycle of the kube-scheduler (pkg/scheduler/schedule_one.go): filter, score,
// select a host, or explain the failure with the exact FailedScheduling event text, including
// the DefaultPreemption PostFilter. The controller that owns the queue and binds pods sits on
// top of this: it calls schedule_one, then SchedulingSnapshot::bind on success, or posts the
// message (and evicts result.preemption->victims) on failure.
//
// Determinism: upstream breaks score ties at random (selectHost, reservoir sampling) and, on
// large clusters, stops after finding percentageOfNodesToScore feasible nodes starting from a
// rotating index. Here every node is evaluated and ties go to the node name ascending, so a run
// never depends on iteration order or an RNG draw; spreading still happens through the
// LeastAllocated and BalancedAllocation scores, which change as pods bind.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "models/k8s/scheduling/node_info.hpp"
#include "models/k8s/scheduling/plugins.hpp"

namespace eksim::k8s {

// What DefaultPreemption would do: nominate node_name after evicting victims.
struct PreemptionPlan {
  std::string node_name;
  std::vector<const Pod*> victims;
};

struct ScheduleResult {
  std::string node_name;  // chosen node; empty when the pod is unschedulable
  // FailedScheduling message when unschedulable, e.g. "0/3 nodes are available: 1 node(s) had
  // untolerated taint(s), 2 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes
  // are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for
  // incoming pod."; "no nodes available to schedule pods" when the cluster has no nodes.
  std::string message;
  // Set when preemption found victims; the message then has no PostFilter part (upstream prints
  // only the filter histogram when preemption succeeds).
  std::optional<PreemptionPlan> preemption;
  std::map<std::string, std::int64_t> reasons;  // filter histogram: reason -> node count
  std::set<std::string> unschedulable_plugins;  // for requeueing on the right cluster events
  std::int64_t score = 0;                       // winning node's total score
  bool scheduled() const { return !node_name.empty(); }
};

inline constexpr const char* kNoNodesAvailable = "no nodes available to schedule pods";
inline constexpr const char* kPreemptionNotHelpful = "Preemption is not helpful for scheduling";
inline constexpr const char* kNoPreemptionVictims = "No preemption victims found for incoming pod";
// DynamicResources PostFilter text for pods without claims, on by default from 1.34.
inline constexpr const char* kNoNewClaimsToDeallocate = "no new claims to deallocate";

// "<count> <reason>" entries sorted as strings and joined by ", " (FitError.Error).
std::string format_reason_histogram(const std::map<std::string, std::int64_t>& histogram);
// "0/N nodes are available: <histogram>." plus " <post_filter>." when post_filter is not empty.
std::string failed_scheduling_message(std::size_t num_nodes, const std::map<std::string, std::int64_t>& histogram,
                                      std::string_view post_filter);

// Schedules against an explicit list of nodes, testing every node. Used by autoscalers to ask
// "would the scheduler place this pod on these (possibly template) nodes".
ScheduleResult schedule_one(const Pod& pod, NodeInfoView nodes, const SchedulerOptions& options = {});

// The cluster as the scheduler's cache holds it, with nodes grouped into equivalence classes
// (same labels except kubernetes.io/hostname, taints, unschedulable, allocatable, requested and
// host ports, pod count). A pod without inter-pod affinity, topology spread, nodeName or
// hostname-keyed node selection is tested once per class instead of once per node, and only
// while no pod in the cluster carries pod (anti-)affinity terms. Classes follow binds.
class SchedulingSnapshot {
 public:
  // Adds the node or replaces its object (labels, taints, allocatable, cordon); keeps its pods.
  void set_node(const Node& node);
  void remove_node(std::string_view name);
  // Pods are referenced, not copied: keep them alive and in place until unbound.
  bool bind(const Pod& pod, std::string_view node_name);
  bool unbind(const Pod& pod, std::string_view node_name);

  const NodeInfo* find(std::string_view name) const;
  NodeInfoView nodes() const;  // sorted by name
  std::size_t size() const { return entries_.size(); }
  std::size_t class_count() const { return classes_.size(); }
  bool any_pod_affinity() const { return pods_with_affinity_ > 0; }
  bool any_required_anti_affinity() const { return pods_with_required_anti_affinity_ > 0; }
  // Moves on every change above: two attempts at one generation see the same cluster.
  std::uint64_t generation() const { return generation_; }

 private:
  friend ScheduleResult schedule_one(const Pod&, const SchedulingSnapshot&, const SchedulerOptions&);
  struct Entry {
    NodeInfo info;
    std::string class_key;
  };
  void reclassify(Entry& e);
  void unclassify(const Entry& e);

  std::map<std::string, Entry, std::less<>> entries_;
  // class key -> members by name (pointers into entries_, which never move)
  std::map<std::string, std::map<std::string, const NodeInfo*>> classes_;
  mutable std::vector<const NodeInfo*> view_;
  mutable bool view_dirty_ = true;
  // Sums over the nodes' NodeInfo counts, kept as pods bind and leave.
  std::int64_t pods_with_affinity_ = 0;
  std::int64_t pods_with_required_anti_affinity_ = 0;
  std::uint64_t generation_ = 0;
};

ScheduleResult schedule_one(const Pod& pod, const SchedulingSnapshot& snapshot, const SchedulerOptions& options = {});

}  // namespace eksim::k8s
