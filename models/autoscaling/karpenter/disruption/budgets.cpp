// Disruption budgets (pkg/apis/v1 nodepool.go GetAllowedDisruptionsByReason, helpers.go
// BuildDisruptionBudgetMapping).
#include "models/autoscaling/karpenter/disruption/budgets.hpp"

#include "models/autoscaling/karpenter/internal.hpp"
#include "models/autoscaling/karpenter/cron.hpp"
#include "sim/engine/numbers.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

bool Budgets::active(const Budget& b) const {
  // Budget.IsActive: without a schedule always; else when a cron hit (UTC) falls in
  // (now - duration, now]. Simulated time 0 is Settings::start_unix_seconds.
  if (b.schedule.empty()) return true;
  auto cron = parse_cron(b.schedule);
  if (!cron || !b.duration) return false;
  const std::int64_t now = ctx_.settings.start_unix_seconds + ctx_.world.sim.now().us / 1000000;
  return cron_window_active(*cron, now, b.duration->us / 1000000);
}

int Budgets::allowed(const NodePool& p, const std::string& reason) {
  // BuildDisruptionBudgetMapping once per pass, again after a command changed the NodeClaims.
  const std::uint64_t pass = ctx_.state.pass;
  if (pass_ != pass || version_ != ctx_.state.version || pass == 0) {
    allowed_.clear();
    pass_ = pass;
    version_ = ctx_.state.version;
  }
  auto key = std::make_pair(p.name, reason);
  auto memo = allowed_.find(key);
  if (memo != allowed_.end()) return memo->second;
  std::int64_t nodes = 0, disrupting = 0;
  for (std::size_t i : ctx_.state.live_claims()) {
    const NodeClaimState& c = ctx_.state.node_claims[i];
    if (c.node_pool != p.name) continue;
    ++nodes;
    if (c.phase == NodeClaimPhase::Deleting || !c.replacements.empty()) ++disrupting;
  }
  std::int64_t allowed = INT32_MAX;
  for (const auto& b : p.budgets) {
    if (!b.reasons.empty() && std::find(b.reasons.begin(), b.reasons.end(), reason) == b.reasons.end()) continue;
    if (!active(b)) continue;
    std::int64_t v = 0;
    if (!b.nodes.empty() && b.nodes.back() == '%') {
      // intstr.GetScaledValueFromIntOrPercent(..., roundUp=true)
      // The loader has checked both forms (0-100%, a count within int32).
      std::int64_t pct = engine::parse_integer<std::int64_t>(std::string_view(b.nodes).substr(0, b.nodes.size() - 1)).value;
      v = (nodes * pct + 99) / 100;
    } else {
      v = engine::parse_integer<std::int64_t>(b.nodes).value;
    }
    allowed = std::min(allowed, v);
  }
  int out = static_cast<int>(std::max<std::int64_t>(0, allowed - disrupting));
  allowed_.emplace(key, out);
  return out;
}

}  // namespace eksim::autoscaling::karpenter
