#pragma once
// Karpenter in the simulated cluster, as upstream's controllers over one shared cluster state
// (kubernetes-sigs/karpenter pkg/controllers, karpenter-provider-aws pkg/controllers):
//   state/             state::Cluster: NodePools, NodeClasses, NodeClaims, StateNodes
//   provisioning/      Batcher, Provisioner (templates, scheduling/ simulation)
//   nodeclaim/         Lifecycle (launch, registration, initialization, liveness), GarbageCollection
//   disruption/        Disruption and its methods: Expiration, Drift, Emptiness,
//                      MultiNodeConsolidation, SingleNodeConsolidation; Budgets
//   node/termination/  Terminator
//   interruption/      Interruption (Spot warnings from the SQS queue)
//   nodeclass/         NodeClassController (status, readiness, termination finalizer)
//   cloudprovider.hpp  the CloudProvider seam; aws/ its AWS implementation
// EKS Auto Mode is the same engine with the eks.amazonaws.com label domain, the NodeClass kind,
// built-in NodePools and its event source.
//
// Controller is the wiring (controllers.go) and the one object the rest of eksim talks to
// (kubectl operations, serve, reports, invariants).
#include <map>
#include <string>
#include <vector>

#include "models/autoscaling/karpenter/aws/cloudprovider.hpp"
#include "models/autoscaling/karpenter/context.hpp"
#include "models/autoscaling/karpenter/disruption/controller.hpp"
#include "models/autoscaling/karpenter/interruption/controller.hpp"
#include "models/autoscaling/karpenter/nodeclaim/lifecycle/controller.hpp"
#include "models/autoscaling/karpenter/nodeclass/controller.hpp"
#include "models/autoscaling/karpenter/node/termination/terminator.hpp"
#include "models/autoscaling/karpenter/provisioning/provisioner.hpp"

namespace eksim::autoscaling::karpenter {

class Controller {
 public:
  Controller(Cluster& cluster, Settings settings);

  // kubectl apply of a NodePool / EC2NodeClass / NodeClass: creates or replaces (drift follows).
  void apply_node_pool(NodePool pool);
  void apply_node_class(NodeClass node_class) { node_class_.apply(std::move(node_class)); }
  // The NodePool's NodeClass (nullptr: none of that name and kind).
  const NodeClass* node_class_of(const NodePool& p) const { return state_.node_class_of(p); }
  void refresh_pool_readiness(const std::string& node_class) { node_class_.refresh_pool_readiness(node_class); }
  // kubectl delete nodepool: its NodeClaims are garbage collected.
  bool delete_node_pool(const std::string& name);
  // kubectl delete nodeclaim, or of the Node of a NodeClaim (node/termination).
  bool delete_node_claim(const std::string& name) { return termination_.delete_node_claim(name); }
  bool delete_node(k8s::NodeId node) { return termination_.delete_node(node); }
  // kubectl delete ec2nodeclass|nodeclass (nodeclass/termination.cpp).
  bool delete_node_class(const std::string& kind, const std::string& name) { return node_class_.remove(kind, name); }
  void spot_interruption(const std::string& instance_id) { interruption_.spot_interruption(instance_id); }
  void rebalance_recommendation(const std::string& instance_id) { interruption_.rebalance_recommendation(instance_id); }

  const Settings& settings() const { return settings_; }
  // The leader's controller log (logging.hpp); eksim serve enables it before the run.
  ControllerLog& controller_log() { return log_.log(); }
  const ControllerLog& controller_log() const { return log_.log(); }
  const std::map<std::string, NodePool>& node_pools() const { return state_.node_pools; }
  const std::map<std::string, NodeClass>& node_classes() const { return state_.node_classes; }
  const std::vector<NodeClaimState>& node_claims() const { return state_.node_claims; }
  const UnavailableOfferings& unavailable_offerings() const { return cloud_.unavailable_offerings(); }
  LabelDomain domain() const { return settings_.domain(); }
  const char* source() const { return settings_.source(); }

  // Runs one provisioning pass now (tests and benchmarks; normally batching calls it).
  void provision() { provisioner_.provision(); }
  // Runs one disruption pass now.
  void disrupt() { disruption_.reconcile(); }
  // For tests: the cluster state's simulation nodes, cached and rebuilt from scratch.
  std::vector<ExistingNode> cached_simulation_nodes() { return state_.cached_simulation_nodes(); }
  std::vector<ExistingNode> rebuilt_simulation_nodes() { return state_.rebuilt_simulation_nodes(); }

 private:
  void watch(Cluster& cluster);

  Settings settings_;
  state::Cluster state_;
  AwsCloudProvider cloud_;
  Recorder recorder_;
  Logger log_;
  Batcher batcher_;
  Context ctx_;
  // The controllers (controllers.go), each with only its own state.
  Terminator termination_;
  Lifecycle lifecycle_;
  GarbageCollection garbage_collection_;
  Provisioner provisioner_;
  Disruption disruption_;
  Interruption interruption_;
  NodeClassController node_class_;
};

}  // namespace eksim::autoscaling::karpenter
