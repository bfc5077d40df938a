// Multi-node consolidation (pkg/controllers/disruption/multinodeconsolidation.go).
#include "models/autoscaling/karpenter/disruption/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

std::size_t MultiNodeConsolidation::search_limit(std::size_t candidates) {
  // firstNConsolidationOption: at least two NodeClaims; prefixes [0, mid] with mid < limit.
  if (candidates < 2) return 0;
  return std::min(candidates, kMaxCandidates);
}

bool MultiNodeConsolidation::should_disrupt(const Candidate& c) {
  // Underutilized, not expired (expiration goes first), not marked, not protected by
  // do-not-disrupt, not drifted (drift replaces those), not empty (emptiness's).
  const NodePool& pool = *c.pool;
  const SimTime now = d_.ctx().world.sim.now();
  if (pool.consolidation_policy != "WhenEmptyOrUnderutilized" || !consolidatable(*c.claim, pool, now)) return false;
  if (Expiration::expired(*c.claim, pool, now)) return false;
  state::Cluster& state = d_.ctx().state;
  if (has_taint(d_.ctx().world.api.node(c.node).node.taints, kTaintDisrupted) || state.node_pods(c.node).blocks) return false;
  if (d_.drift().hash_drifted(*c.claim, pool)) return false;
  return state.node_pods(c.node).reschedulable > 0;
}

std::vector<Candidate> MultiNodeConsolidation::ranked_candidates() {
  // Candidates by disruption cost, then name, pre-filtered by the NodePools' budgets.
  state::Cluster& state = d_.ctx().state;
  std::vector<std::pair<double, Candidate>> ranked;
  for (std::size_t i : state.live_claims()) {
    if (!state.node_claims[i].replacements.empty()) continue;
    const std::optional<Candidate> c = d_.candidate(i);
    if (c && should_disrupt(*c)) ranked.emplace_back(disruption_cost(*c->claim), *c);
  }
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return a.second.claim->name < b.second.claim->name;
  });
  std::map<std::string, int> budget;
  std::vector<Candidate> out;
  for (const auto& [cost, c] : ranked) {
    auto b = budget.find(c.claim->node_pool);
    if (b == budget.end()) b = budget.emplace(c.claim->node_pool, d_.budgets().allowed(*c.pool, reason())).first;
    if (b->second <= 0) continue;
    --b->second;
    out.push_back(c);
  }
  return out;
}

std::optional<Command> MultiNodeConsolidation::compute_command(const std::vector<Candidate>& candidates) {
  // A binary search for the longest prefix [0, n] that one command can disrupt (at least two
  // nodes; single-node consolidation handles one).
  std::optional<Command> best;
  const std::size_t limit = search_limit(candidates.size());
  if (limit == 0) return best;
  std::size_t lo = 1, hi = limit - 1;
  while (lo <= hi) {
    const std::size_t mid = (lo + hi) / 2;
    std::vector<std::size_t> prefix;
    for (std::size_t i = 0; i <= mid; ++i) prefix.push_back(candidates[i].index);
    auto cmd = compute_consolidation(prefix);
    if (cmd) {
      best = std::move(cmd);
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best;
}

void MultiNodeConsolidation::run() {
  const SimTime now = d_.ctx().world.sim.now();
  std::optional<Command> best = compute_command(ranked_candidates());
  holds_ = best.has_value();
  if (!best) {
    pending_.reset();
    return;
  }
  // Validation: the same command must still hold consolidationTTL later.
  if (!pending_ || pending_->candidates != best->candidates || pending_->replace != !best->replacements.empty()) {
    pending_ = Pending{best->candidates, !best->replacements.empty(), now + kValidationTtl};
    return;
  }
  if (now < pending_->validate_at) return;
  pending_.reset();
  execute(*best);
}

void MultiNodeConsolidation::execute(const Command& cmd) {
  state::Cluster& state = d_.ctx().state;
  const std::string reason = this->reason();
  d_.ctx().log.disrupting(cmd.candidates, reason, cmd.replacements);
  if (cmd.replacements.empty()) {
    for (std::size_t index : cmd.candidates) d_.terminate(state.node_claims[index], reason, false);
    return;
  }
  // executeCommand: taint the candidates before launching their replacement.
  for (std::size_t index : cmd.candidates) d_.set_disrupted_taint(state.node_claims[index].node_name, true);
  const std::optional<std::string> replacement = d_.launch_replacement(cmd.replacements[0], reason);
  if (!replacement) {
    for (std::size_t index : cmd.candidates) d_.set_disrupted_taint(state.node_claims[index].node_name, false);
    return;
  }
  for (std::size_t index : cmd.candidates) {
    NodeClaimState& c = state.node_claims[index];  // the launch may have grown node_claims
    c.disruption_reason = reason;
    c.replacements = {*replacement};
    state.touch();
    d_.forget_command(index);
  }
}

}  // namespace eksim::autoscaling::karpenter
