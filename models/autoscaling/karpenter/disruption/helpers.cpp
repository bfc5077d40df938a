// Disruption helpers (pkg/controllers/disruption/helpers.go): do-not-disrupt, disruption cost.
#include "models/autoscaling/karpenter/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

bool Controller::pods_block_disruption(const k8s::NodeRecord& rec) const {
  auto dnd = [](const k8s::Labels& a) {
    auto it = a.find(kAnnotationDoNotDisrupt);
    return it != a.end() && it->second == "true";
  };
  if (dnd(rec.node.meta.annotations)) return true;
  for (k8s::PodId p : rec.pods) {
    const auto& r = c_.api.pod(p);
    if (reschedulable(r) && dnd(r.pod.meta.annotations)) return true;
  }
  return false;
}


double Controller::disruption_cost(const NodeClaimState& c, SimTime now) const {
  // disruption/helpers.go: ReschedulingCost(pods) * LifetimeRemaining. Each evictable pod costs
  // EvictionCost = 1 (no pod-deletion-cost annotation or priority adjustment modelled); the
  // lifetime factor is the fraction of expireAfter left.
  double pods = 0;
  if (auto node = c_.api.find_node(c.node_name))
    for (k8s::PodId p : c_.api.node(*node).pods)
      if (reschedulable(c_.api.pod(p))) pods += 1;
  double lifetime = 1;
  auto pool_it = pools_.find(c.node_pool);
  if (pool_it != pools_.end() && pool_it->second.expire_after && pool_it->second.expire_after->us > 0)
    lifetime = std::clamp(1.0 - static_cast<double>((now - c.created).us) / static_cast<double>(pool_it->second.expire_after->us),
                          0.0, 1.0);
  return pods * lifetime;
}

}  // namespace eksim::autoscaling::karpenter
