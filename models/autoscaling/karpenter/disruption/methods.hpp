#pragma once
// The disruption methods (pkg/controllers/disruption): Expiration, Drift, Emptiness,
// SingleNodeConsolidation and MultiNodeConsolidation, each in its own file named as upstream's.
// Each holds only its own caches; what they share (the cluster state, the provisioner's
// templates, budgets, the simulation, the commands' execution) they reach through Disruption.
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "models/autoscaling/karpenter/disruption/types.hpp"

namespace eksim::autoscaling::karpenter {

class Disruption;

// Expiration (v1 nodeclaim/expiration): a NodeClaim past its NodePool's expireAfter goes,
// forcefully.
class Expiration : public Method {
 public:
  explicit Expiration(Disruption& d) : d_(d) {}
  const char* reason() const override { return "Expired"; }
  bool forceful() const override { return true; }
  bool should_disrupt(const Candidate& c) override;
  std::optional<Command> compute_command(const std::vector<Candidate>& candidates) override;
  static bool expired(const NodeClaimState& c, const NodePool& pool, engine::SimTime now);

 private:
  Disruption& d_;
};

// Drift (drift.go): the NodePool template or NodeClass changed since launch (hashes), or the
// node no longer meets the NodePool's requirements. Replaced at once, without validation.
class Drift : public Method {
 public:
  explicit Drift(Disruption& d) : d_(d) {}
  const char* reason() const override { return "Drifted"; }
  bool validates() const override { return false; }
  bool should_disrupt(const Candidate& c) override;
  std::optional<Command> compute_command(const std::vector<Candidate>& candidates) override;
  // Drift by hash, per config version.
  bool hash_drifted(const NodeClaimState& c, const NodePool& pool);

 private:
  // Per node stamp and config version.
  bool requirements_drifted(const NodePool& pool, k8s::NodeId node);
  // pool_hash / class_hash and the NodePool's requirements, computed once per pass.
  const std::string& pool_hash_cached(const NodePool& p);
  const std::string& class_hash_cached(const NodeClass& c);
  const std::vector<Requirement>& pool_requirements(const NodePool& p);
  Disruption& d_;
  std::vector<std::pair<std::uint64_t, bool>> hash_drift_;  // by NodeClaim index
  struct RequirementsVerdict {
    std::uint64_t stamp = 0, config = 0;
    const NodePool* pool = nullptr;
    bool drifted = false;
  };
  std::vector<RequirementsVerdict> requirements_drift_;  // by NodeId
  std::map<std::string, std::pair<std::uint64_t, std::string>> pool_hashes_, class_hashes_;
  std::map<std::string, std::pair<std::uint64_t, std::vector<Requirement>>> pool_requirements_;
};

// Emptiness (emptiness.go): a node past consolidateAfter with no reschedulable pods goes.
class Emptiness : public Method {
 public:
  explicit Emptiness(Disruption& d) : d_(d) {}
  const char* reason() const override { return "Empty"; }
  bool should_disrupt(const Candidate& c) override;
  std::optional<Command> compute_command(const std::vector<Candidate>& candidates) override;

 private:
  Disruption& d_;
};

// consolidateAfter has passed since the last pod came or went (or since initialization).
bool consolidatable(const NodeClaimState& c, const NodePool& pool, engine::SimTime now);

// Multi-node consolidation (multinodeconsolidation.go): candidates by disruption cost, within
// the NodePools' budgets, and a binary search for the longest prefix one command can delete or
// replace with one cheaper NodeClaim.
class MultiNodeConsolidation : public Method {
 public:
  explicit MultiNodeConsolidation(Disruption& d) : d_(d) {}
  // "Only consider a maximum batch of 100 NodeClaims".
  static constexpr std::size_t kMaxCandidates = 100;
  // The largest prefix length of `candidates` budget-allowed candidates the binary search tries
  // (0 when it does not run: it needs two).
  static std::size_t search_limit(std::size_t candidates);
  const char* reason() const override { return "Underutilized"; }
  bool should_disrupt(const Candidate& c) override;
  // Over the ranked, budget-allowed candidates.
  std::optional<Command> compute_command(const std::vector<Candidate>& candidates) override;
  // One pass: compute, validate consolidationTTL later, execute.
  void run();
  // A command waits for validation or was just executed: single-node consolidation waits.
  bool holds_command() const { return holds_; }

 private:
  std::vector<Candidate> ranked_candidates();
  double disruption_cost(const NodeClaimState& c);
  // computeConsolidation (consolidation.cpp).
  std::optional<Command> compute_consolidation(const std::vector<std::size_t>& candidates);
  std::string no_command_key(const std::vector<std::size_t>& candidates, const std::vector<std::uint32_t>& classes,
                             const state::SimulationNodes& others, std::uint64_t generation);
  void remember_no_command(const std::string& key);
  void execute(const Command& cmd);
  Disruption& d_;
  struct Pending {
    std::vector<std::size_t> candidates;
    bool replace = false;
    engine::SimTime validate_at;
  };
  std::optional<Pending> pending_;
  bool holds_ = false;
  // Simulations that found no command, by what they read (no_command_key).
  std::unordered_set<std::string> no_command_;
};

// Single-node consolidation (singlenodeconsolidation.go): one underutilized node deleted, or
// replaced with one cheaper NodeClaim; one command a pass, none while multi-node holds one.
class SingleNodeConsolidation : public Method {
 public:
  SingleNodeConsolidation(Disruption& d, const MultiNodeConsolidation& multi) : d_(d), multi_(multi) {}
  const char* reason() const override { return "Underutilized"; }
  bool take_turn() override;
  bool should_disrupt(const Candidate& c) override;
  std::optional<Command> compute_command(const std::vector<Candidate>& candidates) override;
  void begin_pass() { executed_ = false; }
  // A candidate whose last simulation found nothing, and nothing it read has changed since.
  bool still_settled(std::size_t index);
  void settle(const Candidate& c, std::uint64_t generation, const std::vector<std::uint32_t>& classes,
              bool relies_on_uninitialized);
  void forget(std::size_t index) { settled_.erase(index); }

 private:
  bool budget_allows(const NodePool* pool);
  Disruption& d_;
  const MultiNodeConsolidation& multi_;
  bool executed_ = false;
  // The last simulation found no cheaper replacement and no pod fit an existing node, so it
  // stays a no-op while the candidate's node (its stamp), the templates (generation) and the
  // time (expiry) stand, the NodePool's budget allows a disruption, and no initialized node
  // besides its own fits one of its pod classes.
  struct Settled {
    std::uint32_t node = 0;
    std::uint64_t stamp = 0, generation = 0;
    engine::SimTime until;
    const NodePool* pool = nullptr;
    std::vector<std::uint32_t> classes;
    // The no-op came from relying on an uninitialized node (no initialized one fit), not from a
    // replacement that was not cheaper: it also needs an uninitialized node that still fits.
    bool relies_on_uninitialized = false;
  };
  std::unordered_map<std::size_t, Settled> settled_;
  std::unordered_map<const NodePool*, bool> budget_ok_;  // per pass and state version
  std::uint64_t budget_pass_ = 0, budget_version_ = 0;
};

}  // namespace eksim::autoscaling::karpenter
