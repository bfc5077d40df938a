// Emptiness (pkg/controllers/disruption/emptiness.go): a node with no reschedulable pods, past
// its NodePool's consolidateAfter, is deleted (after validation, within the budget).
#include "models/autoscaling/karpenter/disruption/controller.hpp"

#include <algorithm>

namespace eksim::autoscaling::karpenter {

bool consolidatable(const NodeClaimState& c, const NodePool& pool, engine::SimTime now) {
  return pool.consolidate_after && now - std::max(c.last_pod_event, c.initialized_at.value_or(now)) >= *pool.consolidate_after;
}

bool Emptiness::should_disrupt(const Candidate& c) {
  return consolidatable(*c.claim, *c.pool, d_.ctx().world.sim.now()) && d_.ctx().state.node_pods(c.node).reschedulable == 0;
}

std::optional<Command> Emptiness::compute_command(const std::vector<Candidate>& candidates) {
  Command cmd;
  for (const Candidate& c : candidates) cmd.candidates.push_back(c.index);
  return cmd;
}

}  // namespace eksim::autoscaling::karpenter
