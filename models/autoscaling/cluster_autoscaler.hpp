#pragma once
// Cluster Autoscaler (AWS provider) as a controller in the simulated cluster.
//
// Every scan interval (StaticAutoscaler.RunOnce upstream): refresh the node groups (ASG tag
// auto-discovery or --nodes), notice failed ASG launches (placeholder instances -> ScaleUpFailed,
// back-off, desired capacity given back) and nodes that never registered (ScaleUpTimedOut), take
// the unschedulable pods, drop those that fit on existing or upcoming nodes, test the rest
// against each group's template with the scheduler's own filters, pick a group with the expander
// and raise its desired capacity; then look for unneeded nodes and remove them after
// scale-down-unneeded-time.
//
// The code is laid out as upstream's cluster-autoscaler/ tree, under cas/:
//   config/autoscaling_options        flags and defaults
//   core/static_autoscaler            the RunOnce loop
//   core/scaleup/orchestrator         scale-up; equivalence/ (pod groups), resource/ (limits)
//   core/scaledown/planner            eligibility, removal simulation, unneeded nodes;
//                                     budgets/, pdb/, actuation/ (taint, drain, delete)
//   clusterstate/                     health, upcoming nodes, failed scale-ups, timeouts
//   cloudprovider/aws/                node groups, templates (node_template), DescribeNodegroup
//   simulator/                        cluster snapshot, utilization, drainability rules
//   processors/                       nodegroupset (balancing), status (pod events)
//   expander/, utils/backoff/
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/autoscaling/cas/cloudprovider/aws/node_template.hpp"
#include "models/autoscaling/cas/clusterstate/api/types.hpp"
#include "models/autoscaling/cas/config/autoscaling_options.hpp"
#include "models/autoscaling/cas/expander/expander.hpp"
#include "models/autoscaling/cas/processors/nodegroupset/balancing_processor.hpp"
#include "models/autoscaling/cas/processors/status/eventing_scale_up_processor.hpp"
#include "models/autoscaling/cas/simulator/cluster_snapshot.hpp"
#include "models/autoscaling/cas/simulator/drainability/rules.hpp"
#include "models/autoscaling/cas/simulator/utilization.hpp"
#include "models/autoscaling/cas/utils/backoff/exponential_backoff.hpp"
#include "models/cluster/cluster.hpp"
#include "sim/engine/string_map.hpp"

namespace eksim::autoscaling {

// clusterstate.IsClusterHealthy: unready > ok-total-unready-count and unready >
// max-total-unready-percentage % of all registered nodes.
bool cluster_healthy(std::int64_t unready, std::int64_t nodes, const CasOptions& o);

using cas::go_float;
using cas::utilization_info_string;

class ClusterAutoscaler : public Controller {
 public:
  ClusterAutoscaler(Cluster& cluster, CasOptions options);
  const char* name() const override { return "cluster-autoscaler"; }

  // Where unschedulable pods come from (the scheduler's list when it is wired); by default every
  // pending, unbound, non-DaemonSet pod of the default scheduler older than one second.
  // `version` moves whenever the list changes, so that a scan can tell without listing.
  void set_unschedulable_source(std::function<std::vector<k8s::PodId>()> source, std::function<std::uint64_t()> version) {
    unschedulable_source_ = std::move(source);
    unschedulable_version_ = std::move(version);
  }
  void run_once();

  struct GroupState {
    std::string id;          // ASG name
    std::string nodegroup;   // EKS managed node group name, if any
    std::int64_t min = 0, max = 0;
    bool explicit_bounds = false;  // from --nodes
    // Pending scale-up (clusterstate ScaleUpRequest).
    std::optional<engine::SimTime> scale_up_time;
    std::int64_t scale_up_target = 0;
    std::int64_t scale_up_increase = 0;  // ScaleUpRequest.Increase: nodes asked for since scale_up_time
    std::size_t activities_seen = 0;  // index into the activity log already inspected
  };
  const std::vector<GroupState>& groups() const { return groups_; }
  const CasOptions& options() const { return o_; }
  const cas::ExponentialBackoff& backoff() const { return backoff_; }
  // The ConfigMap kube-system/cluster-autoscaler-priority-expander as last applied: its parsed
  // rules, or nullopt and upstream's error text when `priorities` is invalid (each scale-up then
  // records PriorityConfigMapInvalid and the priority expander filters nothing).
  void set_priority_config_map(std::optional<cas::PriorityConfig> config, std::string error);
  // Nodes the last scale-down pass found unremovable, with upstream's UnremovableReason
  // (BlockedByPod, NoPlaceToMovePods, ScaleDownDisabledAnnotation, NotUnderutilized,
  // NodeGroupMinSizeReached) and, for BlockedByPod, the blocking pod's reason and error text.
  struct Unremovable {
    std::string reason;
    std::optional<cas::BlockingPod> blocking_pod;
  };
  const std::map<std::string, Unremovable>& unremovable() const;
  // Template of a group as CA would build it now (live node or instance type + tags).
  std::optional<k8s::Node> template_node(const GroupState& g);

  // Scale-down planning state, for reports and tests: how many nodes are unneeded now, the nodes
  // whose deletion CA has started and not finished (actuation's NodeDeletionTracker: empty
  // and drained), and what the last planning pass simulated.
  std::size_t unneeded_count() const { return unneeded_since_.size(); }
  struct DeletionsInProgress {
    std::set<std::string> empty, drain;
    std::size_t size() const { return empty.size() + drain.size(); }
  };
  const DeletionsInProgress& deletions_in_progress() const { return in_progress_; }
  struct PlanningStats {
    std::size_t candidates = 0;           // eligible (underutilized) nodes
    std::size_t simulated = 0;            // non-empty nodes whose removal was simulated
    std::size_t skipped_by_pool = 0;      // new non-empty candidates left for a later loop
  };
  const PlanningStats& last_planning() const { return planning_; }
  // The NodeInfos CA's informers keep (rebuilt only where something changed).
  const cas::NodeInfoCache& node_infos() const { return node_infos_; }

  // The status ConfigMap kube-system/cluster-autoscaler-status (--write-status-configmap):
  // written at the end of every loop once enabled. `eksim serve` enables it; a batch run has
  // no reader for it and keeps none.
  void enable_status_config_map() { status_enabled_ = true; }
  const std::optional<cas::api::ClusterAutoscalerStatus>& status_config_map() const { return status_; }
  // When the loop first wrote it (the ConfigMap's creationTimestamp).
  std::optional<engine::SimTime> status_config_map_created() const { return status_created_; }

 private:
  struct LiveNode {
    k8s::NodeId id;
    const GroupState* group = nullptr;
    bool usable = false;  // Ready, GPUs advertised, not being deleted
  };

  // cloudprovider/aws (cas/cloudprovider/aws/aws_cloud_provider.cpp)
  void refresh_groups();
  bool discovered(const aws::AutoScalingGroup& asg) const;
  GroupState* group_by_id(const std::string& id);
  // NodeGroupForNode: the ASG that owns the node's instance (cached per node: an instance never
  // changes owner), and its GroupState if CA manages that group.
  std::int32_t owner_index(k8s::NodeId id);
  const std::string* owner_name(k8s::NodeId id);
  aws::AutoScalingGroup* owner_asg(k8s::NodeId id);
  GroupState* group_of_node(k8s::NodeId id);
  std::optional<cas::ManagedNodegroupInfo> describe_nodegroup(const std::string& nodegroup);
  std::optional<k8s::Node> template_node(const GroupState& g, const std::vector<LiveNode>& nodes);
  bool gpu_group(const GroupState& g) const;  // the group's instance type has GPUs

  // clusterstate (cas/clusterstate/clusterstate.cpp)
  void check_failed_activities(GroupState& g);
  void check_provision_timeouts(GroupState& g);
  // removeOldUnregisteredNodes for instances whose Node was deleted while they run on: each is
  // deleted from its group (desired decremented) once unregistered longer than
  // max-node-provision-time, unless the group is at its minimum size.
  void remove_old_unregistered();
  std::vector<LiveNode> live_nodes();
  std::int64_t registered_usable(const GroupState& g, const std::vector<LiveNode>& nodes) const;
  std::int64_t deleting_in(const GroupState& g) const;
  bool healthy(const std::vector<LiveNode>& nodes) const;  // clusterstate.IsClusterHealthy over the registered nodes

  // clusterstate's readiness stats and GetStatus (cas/clusterstate/status.cpp): counted where
  // the loop updates its cluster state, written when the loop ends.
  struct Readiness {
    cas::api::NodeCount counts;
    bool any = false;  // a node or an unregistered instance of the group was seen
    std::int64_t target = 0;
  };
  struct LoopReadiness {
    Readiness total;
    std::vector<Readiness> groups;  // by index into groups_
  };
  LoopReadiness readiness(const std::vector<LiveNode>& nodes);
  void write_status(const LoopReadiness& readiness, bool cluster_healthy);

  // core/static_autoscaler.cpp
  std::vector<k8s::PodId> default_unschedulable() const;
  void emit_status(engine::EventType type, const std::string& reason, const std::string& message);
  void emit_node(k8s::NodeId node, engine::EventType type, const std::string& reason, const std::string& message);
  // False when the broadcaster's queue refused it: nothing more can be queued at this instant.
  bool emit_pod(k8s::PodId pod, engine::EventType type, const std::string& reason, const std::string& message);
  const cas::PriorityConfig& effective_priorities();

  // core/scaleup/orchestrator.cpp
  bool scale_up(const std::vector<LiveNode>& nodes);
  // What a scale-up pass reads besides the pods and the informers' cache: per node group its
  // target, registered and deleting nodes, bounds, back-off and template; which nodes are usable.
  // Builds each group's template once per pass, into `templates`.
  std::string scale_up_inputs(const std::vector<LiveNode>& nodes, std::map<std::string, std::optional<k8s::Node>>& templates);
  // Sends NotTriggerScaleUp to each pod (message by its equivalence group) until the
  // broadcaster's queue refuses one.
  void emit_not_triggered(const std::vector<k8s::PodId>& pods, const std::vector<std::size_t>& group_of,
                          const std::vector<std::string>& messages);

  // core/scaledown: planner.cpp (unneeded nodes), actuation/actuator.cpp (taint, drain, delete),
  // pdb/remaining_pdbs.cpp
  void scale_down(const std::vector<LiveNode>& nodes);
  void start_deletion(k8s::NodeId node, GroupState& g, bool empty, const cas::Utilization& util);
  void wait_drained(k8s::NodeId node, std::string name, std::vector<k8s::PodId> pods, engine::SimTime deadline);
  void finish_deletion(k8s::NodeId node, bool drain);
  void end_deletion(const std::string& name);
  std::vector<cas::RemainingPdb> remaining_pdbs() const;

  Cluster& c_;
  CasOptions o_;
  // clusterstate's unregistered nodes that once had a Node: instance id -> when a loop first
  // saw it unregistered (nullopt: not yet).
  std::map<std::string, std::optional<engine::SimTime>> unregistered_since_;
  cas::NodeInfoCache node_infos_;
  std::vector<GroupState> groups_;
  std::map<std::string, std::size_t> group_index_;  // id -> index into groups_
  // node (by NodeId) -> index into owner_names_ of its ASG, -1 for none, -2 not looked up yet
  std::vector<std::int32_t> node_owner_;
  std::vector<std::string> owner_names_;
  cas::ExponentialBackoff backoff_;
  std::function<std::vector<k8s::PodId>()> unschedulable_source_;
  std::function<std::uint64_t()> unschedulable_version_;
  // node name -> first seen unneeded, and the planning pass that last found it unneeded (the
  // pass drops the others without sorting names).
  struct UnneededSince {
    engine::SimTime since;
    std::uint64_t pass = 0;
  };
  engine::StringMap<UnneededSince> unneeded_since_;
  std::uint64_t planning_pass_ = 0;
  std::map<std::string, std::string> deleting_;            // node name -> group id
  DeletionsInProgress in_progress_;
  // Where the last planning pass moved each pod (simulator.RemovalSimulator hints): tried first
  // in the next pass.
  std::map<const k8s::Pod*, k8s::NodeId> pod_location_hints_;  // pods of the API (stable addresses)
  PlanningStats planning_;
  // A pass that scaled nothing up, with what it read: a pass that reads the same (informers'
  // version, unschedulable list, inputs) would find the same and only sends its events again.
  struct ScaleUpMemo {
    bool valid = false;
    std::uint64_t version = 0;
    std::uint64_t unschedulable_version = 0;  // with a versioned source; else the list itself
    std::vector<k8s::PodId> unschedulable;
    std::string inputs;
    std::vector<k8s::PodId> remaining;
    std::vector<std::size_t> group_of;
    std::vector<std::string> messages;  // by equivalence group
  };
  ScaleUpMemo scale_up_memo_;
  bool status_enabled_ = false;
  std::optional<cas::api::ClusterAutoscalerStatus> status_;
  std::optional<engine::SimTime> status_created_;
  std::optional<engine::SimTime> scale_down_probed_;  // lastScaleDownUpdateTime
  std::optional<engine::SimTime> last_scale_up_;
  std::optional<engine::SimTime> last_scale_down_delete_;
  std::optional<engine::SimTime> last_scale_down_fail_;
  std::uint64_t template_counter_ = 0;
  bool priority_cm_applied_ = false;
  std::optional<cas::PriorityConfig> priority_cm_;
  std::string priority_cm_error_;
  // The last pass's unremovable nodes as it found them (node, reason name, blocking pod); the
  // by-name map is built from it only when asked for.
  struct UnremovableNode {
    k8s::NodeId node;
    const char* reason;
    std::optional<cas::BlockingPod> blocking_pod;
  };
  std::vector<UnremovableNode> unremovable_nodes_;
  mutable std::optional<std::map<std::string, Unremovable>> unremovable_;
};

// Builds the controller from cluster.spec().autoscaler.flags (real flag names, kebab-case) and
// subscribes it to the cluster. Called once, before Cluster::start().
std::unique_ptr<Controller> make_cluster_autoscaler(Cluster& cluster);

}  // namespace eksim::autoscaling
