#pragma once
// The NodeClass controller (karpenter-provider-aws pkg/controllers/nodeclass): status (subnets,
// security groups, conditions) reconciled from EC2, requeued while not Ready; the termination
// finalizer of a deleted NodeClass (nodeclass/termination.cpp); and the readiness of the
// NodePools that use it (karpenter pkg/controllers/nodepool/readiness).
#include <set>
#include <string>

#include "models/autoscaling/karpenter/context.hpp"

namespace eksim::autoscaling::karpenter {

class NodeClassController {
 public:
  explicit NodeClassController(Context& ctx);
  // kubectl apply of an EC2NodeClass / NodeClass: creates or replaces it (drift follows).
  void apply(NodeClass node_class);
  // kubectl delete: false when there is none. Its NodePools turn NodeClassReady=False
  // (NodeClassTerminating) and launch nothing; the NodeClass goes once no NodeClaim uses it.
  bool remove(const std::string& kind, const std::string& name);
  // The nodepool readiness controller on every NodePool that refers to the NodeClass `name`
  // (after the class changed, began terminating or went).
  void refresh_pool_readiness(const std::string& node_class);

 private:
  void reconcile(const std::string& name);
  // The termination finalizer of a deleted NodeClass: waits while NodeClaims use it (every 10
  // minutes, and whenever one of them is deleted), then lets it go.
  void finalize(const std::string& name);
  Context& ctx_;
  std::set<std::string> requeued_;           // NodeClasses with a reconcile scheduled
  std::set<std::string> finalize_requeued_;  // ... with a finalizer pass scheduled
};

}  // namespace eksim::autoscaling::karpenter
