#pragma once
// Termination (pkg/controllers/node/termination): a NodeClaim being deleted has its node tainted
// karpenter.sh/disrupted, drained of what a drain moves, then its instance terminated.
#include <string>

#include "models/autoscaling/karpenter/context.hpp"

namespace eksim::autoscaling::karpenter {

class Terminator {
 public:
  explicit Terminator(Context& ctx) : ctx_(ctx) {}
  // Deletes the NodeClaim (reason: its disruption reason, if any): the termination finalizer
  // taints and drains the node, then terminates the instance.
  void delete_claim(NodeClaimState& c, const std::string& reason, bool forceful);
  // kubectl delete nodeclaim, or of the Node of a NodeClaim. False when there is no such
  // NodeClaim (or the node is not Karpenter's).
  bool delete_node_claim(const std::string& name);
  bool delete_node(k8s::NodeId node);
  // Adds or removes karpenter.sh/disrupted:NoSchedule on the node (adding triggers provisioning).
  void set_disrupted_taint(const std::string& node_name, bool on);

 private:
  void finish_drain(const std::string& claim_name);
  Context& ctx_;
};

}  // namespace eksim::autoscaling::karpenter
