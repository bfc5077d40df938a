#pragma once
// Cluster Autoscaler (AWS provider) as a controller in the simulated cluster.
//
// Every scan interval (RunOnce upstream): refresh the node groups (ASG tag auto-discovery or
// --nodes), notice failed ASG launches (placeholder instances -> ScaleUpFailed, back-off, desired
// capacity given back) and nodes that never registered (ScaleUpTimedOut), take the unschedulable
// pods, drop those that fit on existing or upcoming nodes, test the rest against each group's
// template with the scheduler's own `fits`, pick a group with the expander and raise its desired
// capacity; then look for unneeded nodes and remove them after scale-down-unneeded-time.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/autoscaling/cas/backoff.hpp"
#include "models/autoscaling/cas/expander.hpp"
#include "models/autoscaling/cas/node_template.hpp"
#include "models/autoscaling/cas/nodegroup_set.hpp"
#include "models/autoscaling/cas/scale_down.hpp"
#include "models/cluster/cluster.hpp"

namespace eksim::autoscaling {

// Flags with upstream defaults (cluster-autoscaler/config/flags/flags.go; FACTS.md).
struct CasOptions {
  engine::Duration scan_interval = engine::Duration::seconds(10);               // --scan-interval
  std::string expander = "least-waste";                                         // --expander (default since 1.30)
  engine::Duration max_node_provision_time = engine::Duration::minutes(15);     // --max-node-provision-time
  bool scale_down_enabled = true;                                               // --scale-down-enabled
  engine::Duration scale_down_unneeded_time = engine::Duration::minutes(10);    // --scale-down-unneeded-time
  engine::Duration scale_down_unready_time = engine::Duration::minutes(20);     // --scale-down-unready-time
  bool scale_down_unready_enabled = true;                                        // --scale-down-unready-enabled
  engine::Duration scale_down_delay_after_add = engine::Duration::minutes(10);  // --scale-down-delay-after-add
  // --scale-down-delay-after-delete defaults to scan-interval.
  std::optional<engine::Duration> scale_down_delay_after_delete;
  engine::Duration scale_down_delay_after_failure = engine::Duration::minutes(3);  // --scale-down-delay-after-failure
  double scale_down_utilization_threshold = 0.5;                                 // --scale-down-utilization-threshold
  double scale_down_gpu_utilization_threshold = 0.5;                             // --scale-down-gpu-utilization-threshold
  bool balance_similar_node_groups = false;                                      // --balance-similar-node-groups
  std::vector<std::string> balancing_ignore_labels;                              // --balancing-ignore-label (repeatable)
  std::int64_t max_nodes_total = 0;                                              // --max-nodes-total, 0 = no limit
  std::vector<std::string> node_group_auto_discovery;                            // --node-group-auto-discovery
  std::vector<std::string> nodes;                                                // --nodes min:max:name
  cas::BackoffOptions backoff;                                                   // --*-node-group-backoff-*
  std::int64_t max_graceful_termination_sec = 600;                               // --max-graceful-termination-sec
  cas::DrainOptions drain;                                                       // --skip-nodes-with-*
  engine::Duration new_pod_scale_up_delay{};                                     // --new-pod-scale-up-delay 0s
  std::int64_t expendable_pods_priority_cutoff = -10;                            // --expendable-pods-priority-cutoff
  // The cluster is unhealthy, and CA does nothing but say so, while more than
  // ok-total-unready-count nodes AND more than max-total-unready-percentage of all nodes are
  // unready (clusterstate.IsClusterHealthy).
  double max_total_unready_percentage = 45;                                      // --max-total-unready-percentage
  std::int64_t ok_total_unready_count = 3;                                       // --ok-total-unready-count
  // eksim: whether CA's IAM policy allows eks:DescribeNodegroup (the lab policy does not).
  bool describe_nodegroup_allowed = false;
  // Priority expander rules when no ConfigMap cluster-autoscaler-priority-expander has been
  // applied (programmatic use; scenarios supply the ConfigMap as a manifest).
  cas::PriorityConfig priorities;
};

// A node that is not Ready counts as unready only once it is older than this; before, it is
// NotStarted (clusterstate.MaxNodeStartupTime, 15 minutes).
inline constexpr engine::Duration kMaxNodeStartupTime = engine::Duration::minutes(15);

// clusterstate.IsClusterHealthy: unready > ok-total-unready-count and unready >
// max-total-unready-percentage % of all registered nodes.
bool cluster_healthy(std::int64_t unready, std::int64_t nodes, const CasOptions& o);

// Parses cluster.spec().autoscaler.flags (kebab-case names, Go durations) over the defaults.
CasOptions cas_options_from_flags(const std::map<std::string, std::string>& flags);

// The Kubernetes events CA writes, in its words.
std::string triggered_scale_up_message(const std::vector<std::string>& infos);  // "pod triggered scale-up: [...]"
std::string scale_up_info(const std::string& group, std::int64_t from, std::int64_t to, std::int64_t max);
// "pod didn't trigger scale-up: 1 max node group size reached, 2 node(s) had ..." with
// "<count> <reason>" (count = node groups) sorted as strings for determinism (upstream: map order).
std::string not_trigger_scale_up_message(const std::map<std::string, int>& reasons);
// utilization.Info printed with %v: "{CpuUtil MemUtil GpuUtil ResourceName Utilization}", e.g.
// "{0.25 0.75 0 memory 0.75}" (floats as Go's %v prints them).
std::string utilization_info_string(const cas::Utilization& u);
// Go's %v of a float64 (strconv 'g', shortest): 0.25, 0, 1e-05, 1e+21.
std::string go_float(double v);

class ClusterAutoscaler : public Controller {
 public:
  ClusterAutoscaler(Cluster& cluster, CasOptions options);
  const char* name() const override { return "cluster-autoscaler"; }

  // Where unschedulable pods come from (the scheduler's list when it is wired); by default every
  // pending, unbound, non-DaemonSet pod of the default scheduler older than one second.
  void set_unschedulable_source(std::function<std::vector<k8s::PodId>()> source) { unschedulable_source_ = std::move(source); }
  void run_once();

  struct GroupState {
    std::string id;          // ASG name
    std::string nodegroup;   // EKS managed node group name, if any
    std::int64_t min = 0, max = 0;
    bool explicit_bounds = false;  // from --nodes
    // Pending scale-up (clusterstate ScaleUpRequest).
    std::optional<engine::SimTime> scale_up_time;
    std::int64_t scale_up_target = 0;
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
  const std::map<std::string, Unremovable>& unremovable() const { return unremovable_; }
  // Template of a group as CA would build it now (live node or instance type + tags).
  std::optional<k8s::Node> template_node(const GroupState& g);

 private:
  struct LiveNode {
    k8s::NodeId id;
    const GroupState* group = nullptr;
    bool usable = false;  // Ready, GPUs advertised, not being deleted
  };
  void refresh_groups();
  bool discovered(const aws::AutoScalingGroup& asg) const;
  void check_failed_activities(GroupState& g);
  void check_provision_timeouts(GroupState& g);
  std::vector<LiveNode> live_nodes();
  GroupState* group_of_node(const k8s::NodeRecord& rec);
  std::int64_t registered_usable(const GroupState& g, const std::vector<LiveNode>& nodes) const;
  std::vector<k8s::PodId> default_unschedulable() const;
  bool healthy() const;  // clusterstate.IsClusterHealthy over the registered nodes
  bool scale_up(const std::vector<LiveNode>& nodes);
  void scale_down(const std::vector<LiveNode>& nodes);
  void start_deletion(k8s::NodeId node, GroupState& g, bool empty, const cas::Utilization& util);
  void wait_drained(k8s::NodeId node, std::string name, std::vector<k8s::PodId> pods, engine::SimTime deadline);
  void finish_deletion(k8s::NodeId node, bool drain);
  std::vector<cas::RemainingPdb> remaining_pdbs() const;
  const cas::PriorityConfig& effective_priorities();
  void emit_status(engine::EventType type, const std::string& reason, const std::string& message);
  void emit_node(k8s::NodeId node, engine::EventType type, const std::string& reason, const std::string& message);
  void emit_pod(k8s::PodId pod, engine::EventType type, const std::string& reason, const std::string& message);
  std::optional<cas::ManagedNodegroupInfo> describe_nodegroup(const std::string& nodegroup);

  Cluster& c_;
  CasOptions o_;
  std::vector<GroupState> groups_;
  cas::ExponentialBackoff backoff_;
  std::function<std::vector<k8s::PodId>()> unschedulable_source_;
  std::map<std::string, engine::SimTime> unneeded_since_;  // node name -> first seen unneeded
  std::map<std::string, std::string> deleting_;            // node name -> group id
  std::optional<engine::SimTime> last_scale_up_;
  std::optional<engine::SimTime> last_scale_down_delete_;
  std::optional<engine::SimTime> last_scale_down_fail_;
  std::uint64_t template_counter_ = 0;
  bool priority_cm_applied_ = false;
  std::optional<cas::PriorityConfig> priority_cm_;
  std::string priority_cm_error_;
  std::map<std::string, Unremovable> unremovable_;
};

// Builds the controller from cluster.spec().autoscaler.flags (real flag names, kebab-case) and
// subscribes it to the cluster. Called once, before Cluster::start().
std::unique_ptr<Controller> make_cluster_autoscaler(Cluster& cluster);

}  // namespace eksim::autoscaling
