#pragma once
// The NodeClaim lifecycle (pkg/controllers/nodeclaim/lifecycle): Launch (launch.cpp) creates the
// instance through the cloud provider; Registration (registration.cpp) sees it join as a Node;
// Initialization (initialization.cpp) waits for Ready, startup taints gone and the requested
// resources registered; Liveness (liveness.cpp) deletes a NodeClaim that never registered.
// Garbage collection (nodeclaim/garbagecollection) deletes the NodeClaim of a vanished instance.
#include <string>

#include "models/autoscaling/karpenter/context.hpp"
#include "models/autoscaling/karpenter/node/termination/terminator.hpp"

namespace eksim::autoscaling::karpenter {

class Lifecycle {
 public:
  Lifecycle(Context& ctx, Terminator& termination) : ctx_(ctx), termination_(termination) {}
  // Creates and launches a NodeClaim for a planned claim; returns its index or -1.
  int launch(const PlannedNodeClaim& planned, bool replacement);
  // The instance is running: it boots and joins as the NodeClaim's Node.
  void on_instance_running(aws::Instance& inst);
  // A Node was added, changed or deleted.
  void on_node(k8s::NodeId id, k8s::NodeChange change);

 private:
  void launch_failed(NodeClaimState& c, const CreateResult& created);
  void set_labels(NodeClaimState& c, const NodePool& pool, const NodeClass& nc, const Requirements& type_requirements);
  void register_node(NodeClaimState& c, k8s::NodeRecord& rec, k8s::NodeId id);
  void check_initialized(NodeClaimState& c, k8s::NodeRecord& rec);
  void start_liveness(const std::string& name);
  Context& ctx_;
  Terminator& termination_;
};

// Garbage collection (pkg/controllers/nodeclaim/garbagecollection): a NodeClaim whose instance
// is gone is deleted.
class GarbageCollection {
 public:
  explicit GarbageCollection(Context& ctx) : ctx_(ctx) {}
  void on_instance_terminated(aws::Instance& inst);

 private:
  Context& ctx_;
};

}  // namespace eksim::autoscaling::karpenter
