// Multi-node consolidation (pkg/controllers/disruption/multinodeconsolidation.go).
#include "models/autoscaling/karpenter/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

std::size_t Controller::multi_node_search_limit(std::size_t candidates) {
  // firstNConsolidationOption: at least two NodeClaims; prefixes [0, mid] with mid < limit.
  if (candidates < 2) return 0;
  return std::min(candidates, kMultiNodeMaxCandidates);
}

bool Controller::multi_node_consolidation(SimTime now) {
  // MultiNodeConsolidation.ComputeCommand: candidates by disruption cost, pre-filtered by the
  // NodePools' budgets, then a binary search for the longest prefix [0, n] that one command
  // can disrupt (at least two nodes; single-node consolidation handles one).
  std::vector<std::pair<double, std::size_t>> ranked;
  for (std::size_t i : live_claims())
    if (underutilized_candidate(claims_[i], now)) ranked.emplace_back(disruption_cost(claims_[i], now), i);
  std::sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return claims_[a.second].name < claims_[b.second].name;
  });
  std::map<std::string, int> budget;
  std::vector<std::size_t> candidates;
  bool constrained = false;
  for (const auto& [cost, index] : ranked) {
    const NodeClaimState& c = claims_[index];
    auto b = budget.find(c.node_pool);
    if (b == budget.end()) b = budget.emplace(c.node_pool, allowed_disruptions(pools_.at(c.node_pool), "Underutilized")).first;
    if (b->second <= 0) {
      constrained = true;
      continue;
    }
    --b->second;
    candidates.push_back(index);
  }
  (void)constrained;
  std::optional<ConsolidationCommand> best;
  if (const std::size_t limit = multi_node_search_limit(candidates.size()); limit > 0) {
    std::size_t lo = 1, hi = limit - 1;
    while (lo <= hi) {
      std::size_t mid = (lo + hi) / 2;
      std::vector<std::size_t> prefix(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(mid + 1));
      auto cmd = compute_consolidation(prefix);
      if (cmd) {
        best = std::move(cmd);
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
  }
  if (!best) {
    pending_multi_.reset();
    return false;
  }
  // Validation: the same command must still hold consolidationTTL later.
  if (!pending_multi_ || pending_multi_->candidates != best->candidates || pending_multi_->replace != !best->replacement.empty()) {
    pending_multi_ = PendingMulti{best->candidates, !best->replacement.empty(), now + kValidationTtl};
    return true;
  }
  if (now < pending_multi_->validate_at) return true;
  pending_multi_.reset();
  const std::string reason = "Underutilized";
  log_disrupting(best->candidates, reason, best->replacement);
  if (best->replacement.empty()) {
    for (std::size_t index : best->candidates) {
      NodeClaimState& c = claims_[index];
      event(EventType::Normal, "DisruptionTerminating", {"Node", "", c.node_name}, "Disrupting Node: " + reason);
      event(EventType::Normal, "DisruptionTerminating", claim_ref(c.name), "Disrupting NodeClaim: " + reason);
      delete_claim(c, reason, false);
    }
    return true;
  }
  // executeCommand: taint the candidates before launching their replacement.
  for (std::size_t index : best->candidates) set_disrupted_taint(claims_[index].node_name, true);
  int idx = launch(best->replacement[0], true);
  if (idx < 0) {
    for (std::size_t index : best->candidates) set_disrupted_taint(claims_[index].node_name, false);
    return true;
  }
  const std::string replacement = claims_[idx].name;
  event(EventType::Normal, "DisruptionLaunching", claim_ref(replacement), "Launching NodeClaim: " + reason);
  event(EventType::Normal, "DisruptionWaitingReadiness", claim_ref(replacement), "Waiting on readiness to continue disruption");
  for (std::size_t index : best->candidates) {
    NodeClaimState& c = claims_[index];  // launch() may have grown claims_
    c.disruption_reason = reason;
    c.replacements = {replacement};
    state_.touch();
    pending_commands_.erase(index);
  }
  return true;
}

}  // namespace eksim::autoscaling::karpenter
