#pragma once
// Disruption budgets (pkg/apis/v1 nodepool.go GetAllowedDisruptionsByReason, disruption/helpers.go
// BuildDisruptionBudgetMapping): how many of a NodePool's nodes a reason may disrupt now.
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "models/autoscaling/karpenter/context.hpp"

namespace eksim::autoscaling::karpenter {

class Budgets {
 public:
  explicit Budgets(Context& ctx) : ctx_(ctx) {}
  // Allowed disruptions for the reason, less the NodePool's nodes already disrupting; computed
  // once per pass, again after a command changed the NodeClaims.
  int allowed(const NodePool& p, const std::string& reason);

 private:
  bool active(const Budget& b) const;
  Context& ctx_;
  std::map<std::pair<std::string, std::string>, int> allowed_;  // (pool, reason) -> allowed
  std::uint64_t pass_ = 0, version_ = 0;
};

}  // namespace eksim::autoscaling::karpenter
