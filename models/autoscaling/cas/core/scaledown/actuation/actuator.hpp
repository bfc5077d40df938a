#pragma once
// Scale-down actuation (cluster-autoscaler/core/scaledown/actuation): within the parallelism
// budgets (../budgets), taint each node ToBeDeletedByClusterAutoscaler, evict its pods with the
// capped grace period and wait for them (drain.go), then delete the node through the cloud
// provider (delete_in_batch.go). The deletions in progress feed the budgets.
#include <optional>
#include <string>
#include <vector>

#include "models/autoscaling/cas/context/autoscaling_context.hpp"
#include "models/autoscaling/cas/core/scaledown/deletiontracker/node_deletion_tracker.hpp"
#include "models/autoscaling/cas/core/scaledown/planner/planner.hpp"
#include "models/autoscaling/cas/core/scaledown/unneeded/nodes.hpp"

namespace eksim::autoscaling::cas {

class Actuator {
 public:
  Actuator(AutoscalingContext& ctx, NodeDeletionTracker& deletions, UnneededNodes& unneeded)
      : ctx_(ctx), deletions_(deletions), unneeded_(unneeded) {}
  // StartDeletion: as many of the nodes as the budgets allow, empty ones first.
  void start_deletion(const std::vector<NodeToDelete>& nodes);

  // When a deletion last started, and when a drain last failed (the scale-down cool-downs).
  std::optional<engine::SimTime> last_delete() const { return last_delete_; }
  std::optional<engine::SimTime> last_failure() const { return last_failure_; }
  void forget_failure() { last_failure_.reset(); }

 private:
  // Drains in progress: those whose evicted pods are still on their node.
  std::size_t draining() const;
  void start(const NodeToDelete& n);
  void evict(k8s::NodeId node, std::string name, const std::vector<k8s::PodId>& pods);
  void wait_drained(k8s::NodeId node, std::string name, std::vector<k8s::PodId> pods, engine::SimTime deadline);
  void finish_deletion(k8s::NodeId node, bool drain);
  void drain_failed(k8s::NodeId node, const std::string& name);

  AutoscalingContext& ctx_;
  NodeDeletionTracker& deletions_;
  UnneededNodes& unneeded_;
  std::optional<engine::SimTime> last_delete_;
  std::optional<engine::SimTime> last_failure_;
};

}  // namespace eksim::autoscaling::cas
