#pragma once
// Disruption's types (pkg/controllers/disruption/types.go): the Candidate a method considers, the
// Command it computes, and the Method interface every disruption method implements.
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "models/autoscaling/karpenter/provisioning/provisioner.hpp"

namespace eksim::autoscaling::karpenter {

// An initialized NodeClaim with its NodePool and Node (Candidate).
struct Candidate {
  std::size_t index = 0;  // into state::Cluster::node_claims; a NodeClaim's index names it for the run
  NodeClaimState* claim = nullptr;
  const NodePool* pool = nullptr;
  k8s::NodeId node;
};

// What a method decided (Command): delete the candidates, or replace them with new NodeClaims.
struct Command {
  std::vector<std::size_t> candidates;         // NodeClaim indexes
  std::vector<PlannedNodeClaim> replacements;  // empty: delete
  // The candidates' pods, unbound, when the simulation needed copies (see
  // state::SimulationNodes::classes_of); else the replacements point at the real pods.
  std::unique_ptr<std::vector<k8s::Pod>> pods;
  // What the replacements' templates point into, kept alive with them.
  std::shared_ptr<TemplateSet> templates;
};

class Method {
 public:
  virtual ~Method() = default;
  // Reason: the disruption reason of its commands (events, budgets, the log).
  virtual const char* reason() const = 0;
  // Forceful methods act at once: no budget, no do-not-disrupt, no validation (v1's expiration).
  virtual bool forceful() const { return false; }
  // Whether a command waits consolidationTTL and is computed again before it executes.
  virtual bool validates() const { return true; }
  // Whether a validated command may execute now (single-node consolidation: one a pass).
  virtual bool take_turn() { return true; }
  // ShouldDisrupt: whether the method considers the candidate.
  virtual bool should_disrupt(const Candidate& c) = 0;
  // ComputeCommands over the candidates it considers: nullopt when none this pass.
  virtual std::optional<Command> compute_command(const std::vector<Candidate>& candidates) = 0;
};

}  // namespace eksim::autoscaling::karpenter
