#pragma once
// Cluster state as CA tracks it (cluster-autoscaler/clusterstate/clusterstate.go
// ClusterStateRegistry): cluster health, registered and upcoming nodes per group, scale-up
// requests that are fulfilled, failed (placeholders -> ScaleUpFailed, back-off) or timed out
// (max-node-provision-time -> ScaleUpTimedOut), unregistered nodes, and the status ConfigMap
// the loop writes (status.cpp).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/autoscaling/cas/clusterstate/api/types.hpp"
#include "models/autoscaling/cas/context/autoscaling_context.hpp"
#include "models/autoscaling/cas/core/scaledown/deletiontracker/node_deletion_tracker.hpp"
#include "models/autoscaling/cas/core/scaledown/unneeded/nodes.hpp"
#include "models/autoscaling/cas/utils/backoff/exponential_backoff.hpp"

namespace eksim::autoscaling::cas {

// clusterstate.IsClusterHealthy: unready > ok-total-unready-count and unready >
// max-total-unready-percentage % of all registered nodes.
bool cluster_healthy(std::int64_t unready, std::int64_t nodes, const CasOptions& o);

// A scale-up asked of a node group and not yet fulfilled (clusterstate ScaleUpRequest).
struct ScaleUpRequest {
  std::optional<engine::SimTime> time;  // when it was (last) raised; nullopt: none open
  std::int64_t target = 0;
  std::int64_t increase = 0;  // nodes asked for since `time`
};

class ClusterStateRegistry {
 public:
  // Subscribes to Node deletions: a Node deleted while its instance runs on leaves an
  // unregistered node.
  ClusterStateRegistry(AutoscalingContext& ctx, NodeDeletionTracker& deletions);

  // The cloud provider refreshed its groups: requests of groups that went away are forgotten.
  void update_node_groups();
  // Failed scale-ups: ScaleUpFailed, back-off, the placeholders given back. True when one failed.
  bool handle_failed_scale_ups();
  void handle_provision_timeouts();
  // removeOldUnregisteredNodes for instances whose Node was deleted while they run on: each is
  // deleted from its group once unregistered longer than max-node-provision-time, unless the
  // group is at its minimum size.
  void remove_old_unregistered();
  // The live nodes with their groups and usability; forgets deletions of nodes that are gone.
  std::vector<LiveNode> live_nodes();
  bool healthy(const std::vector<LiveNode>& nodes) const;
  // Requests whose group has as many usable nodes as asked for are closed, back-off cleared.
  void close_fulfilled_requests(const std::vector<LiveNode>& nodes);
  // registerOrUpdateScaleUp: a request still open grows by the new delta.
  void register_scale_up(const NodeGroup& group, std::int64_t current, std::int64_t new_size);
  std::int64_t registered_usable(const NodeGroup& group, const std::vector<LiveNode>& nodes) const;

  ExponentialBackoff& backoff() { return backoff_; }
  const ExponentialBackoff& backoff() const { return backoff_; }

  // --- readiness and the status ConfigMap (status.cpp)
  struct Readiness {
    api::NodeCount counts;
    bool any = false;  // a node or an unregistered instance of the group was seen
    std::int64_t target = 0;
  };
  struct LoopReadiness {
    Readiness total;
    std::vector<Readiness> groups;  // by index into the cloud provider's node groups
  };
  // updateClusterState's readiness stats, counted where the loop updates its cluster state.
  LoopReadiness readiness(const std::vector<LiveNode>& nodes);
  // GetStatus, written when the loop ends (once enabled).
  struct ScaleDownState {
    const UnneededNodes& unneeded;
    std::optional<engine::SimTime> probed;  // lastScaleDownUpdateTime
  };
  void write_status(const LoopReadiness& readiness, bool cluster_healthy, const ScaleDownState& scale_down);
  void enable_status() { status_enabled_ = true; }
  bool status_enabled() const { return status_enabled_; }
  const std::optional<api::ClusterAutoscalerStatus>& status() const { return status_; }
  std::optional<engine::SimTime> status_created() const { return status_created_; }

 private:
  void handle_failed_scale_up(NodeGroup& group);
  void handle_provision_timeout(NodeGroup& group);
  void count_unregistered(const NodeGroup& g, Readiness& r, Readiness& total) const;
  api::NodeGroupStatus group_status(const NodeGroup& g, const Readiness& r, const api::NodeGroupStatus* last,
                                    int candidates, bool& in_progress, std::optional<engine::SimTime> probed) const;
  void cluster_wide_status(api::ClusterAutoscalerStatus& s, const Readiness& total, bool cluster_healthy,
                           bool any_in_progress, int candidates, std::optional<engine::SimTime> probed) const;

  AutoscalingContext& ctx_;
  NodeDeletionTracker& deletions_;  // live_nodes() forgets the nodes that are gone
  ExponentialBackoff backoff_;
  std::map<std::string, ScaleUpRequest> requests_;  // by node group id
  // Unregistered nodes that once had a Node: instance id -> when a loop first saw it
  // unregistered (nullopt: not yet).
  std::map<std::string, std::optional<engine::SimTime>> unregistered_since_;
  bool status_enabled_ = false;
  std::optional<api::ClusterAutoscalerStatus> status_;
  std::optional<engine::SimTime> status_created_;
};

}  // namespace eksim::autoscaling::cas
