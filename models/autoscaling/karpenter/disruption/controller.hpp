#pragma once
// The disruption controller (pkg/controllers/disruption/controller.go): every 10 s, the
// replacements that initialized let their candidates go (orchestration), then the methods in
// order: multi-node consolidation over all candidates, then per candidate the first of
// Expiration, Drift, Emptiness and SingleNodeConsolidation that should disrupt it, within its
// NodePool's budget, its command validated consolidationTTL later where the method asks.
#include <array>
#include <optional>
#include <string>
#include <unordered_map>

#include "models/autoscaling/karpenter/disruption/budgets.hpp"
#include "models/autoscaling/karpenter/disruption/methods.hpp"
#include "models/autoscaling/karpenter/node/termination/terminator.hpp"

namespace eksim::autoscaling::karpenter {

class Disruption {
 public:
  Disruption(Context& ctx, Provisioner& provisioner, Lifecycle& lifecycle, Terminator& termination);
  Disruption(const Disruption&) = delete;
  Disruption& operator=(const Disruption&) = delete;
  // One pass.
  void reconcile();

  // --- what the methods share
  Context& ctx() { return ctx_; }
  Provisioner& provisioner() { return provisioner_; }
  Budgets& budgets() { return budgets_; }
  Drift& drift() { return drift_; }
  // The NodeClaim as a candidate: initialized, its NodePool and Node there.
  std::optional<Candidate> candidate(std::size_t index);
  // SimulateScheduling (helpers.go): the candidate's pods without it, existing nodes first, then
  // new NodeClaims; nullopt when no command comes of it (the validation forgets the candidate).
  std::optional<Command> simulate(const Candidate& c, const std::string& reason);
  // The candidate's pending validation is void.
  void forget_command(std::size_t index) { pending_commands_.erase(index); }
  // Events DisruptionTerminating on the Node and NodeClaim, then the NodeClaim's deletion.
  void terminate(NodeClaimState& c, const std::string& reason, bool forceful);
  // Launches a replacement (events DisruptionLaunching, DisruptionWaitingReadiness); its name,
  // or nullopt when the launch failed.
  std::optional<std::string> launch_replacement(const PlannedNodeClaim& planned, const std::string& reason);
  void set_disrupted_taint(const std::string& node_name, bool on) { termination_.set_disrupted_taint(node_name, on); }

 private:
  // Orchestration: candidates whose replacements initialized go; a failed one is released.
  void finish_commands();
  void disrupt(std::size_t index);
  // The first method that should disrupt the candidate; do-not-disrupt pods protect it from all
  // but the forceful ones.
  Method* choose(const Candidate& c);
  bool validated(std::size_t index, Method& m);
  void execute(const Candidate& c, Method& m, const Command& cmd);

  Context& ctx_;
  Provisioner& provisioner_;
  Lifecycle& lifecycle_;
  Terminator& termination_;
  Budgets budgets_;
  Expiration expiration_;
  Drift drift_;
  Emptiness emptiness_;
  MultiNodeConsolidation multi_node_;
  SingleNodeConsolidation single_node_;
  // Per candidate, in order (multi-node consolidation runs before, over all candidates).
  std::array<Method*, 4> methods_;
  std::unordered_map<std::size_t, engine::SimTime> pending_commands_;  // NodeClaim index -> validate-at
};

}  // namespace eksim::autoscaling::karpenter
