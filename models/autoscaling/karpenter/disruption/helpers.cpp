// Disruption helpers (pkg/controllers/disruption/helpers.go): do-not-disrupt, disruption cost.
#include "models/autoscaling/karpenter/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

bool Controller::pods_block_disruption(k8s::NodeId node) { return node_pods(node).blocks; }

int Controller::reschedulable_pods(k8s::NodeId node) { return node_pods(node).reschedulable; }

double Controller::disruption_cost(const NodeClaimState& c, SimTime now) {
  // disruption/helpers.go: ReschedulingCost(pods) * LifetimeRemaining. Each evictable pod costs
  // EvictionCost = 1 (no pod-deletion-cost annotation or priority adjustment modelled); the
  // lifetime factor is the fraction of expireAfter left.
  double pods = 0;
  if (auto node = node_of(c)) pods = reschedulable_pods(*node);
  double lifetime = 1;
  auto pool_it = pools_.find(c.node_pool);
  if (pool_it != pools_.end() && pool_it->second.expire_after && pool_it->second.expire_after->us > 0)
    lifetime = std::clamp(1.0 - static_cast<double>((now - c.created).us) / static_cast<double>(pool_it->second.expire_after->us),
                          0.0, 1.0);
  return pods * lifetime;
}

}  // namespace eksim::autoscaling::karpenter
