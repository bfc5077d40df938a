// Expiration (kubernetes-sigs/karpenter v1 pkg/controllers/nodeclaim/expiration): a NodeClaim
// older than its NodePool's expireAfter is deleted, whatever its budget or do-not-disrupt pods.
#include "models/autoscaling/karpenter/disruption/controller.hpp"

namespace eksim::autoscaling::karpenter {

bool Expiration::expired(const NodeClaimState& c, const NodePool& pool, engine::SimTime now) {
  return pool.expire_after && now - c.created >= *pool.expire_after;
}

bool Expiration::should_disrupt(const Candidate& c) { return expired(*c.claim, *c.pool, d_.ctx().world.sim.now()); }

std::optional<Command> Expiration::compute_command(const std::vector<Candidate>& candidates) {
  Command cmd;
  for (const Candidate& c : candidates) cmd.candidates.push_back(c.index);
  return cmd;
}

}  // namespace eksim::autoscaling::karpenter
