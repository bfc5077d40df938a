// The disruption controller (pkg/controllers/disruption/controller.go, orchestration/queue.go):
// one pass every 10 s walks the methods in order and executes the commands they compute.
#include "models/autoscaling/karpenter/disruption/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

Disruption::Disruption(Context& ctx, Provisioner& provisioner, Lifecycle& lifecycle, Terminator& termination)
    : ctx_(ctx),
      provisioner_(provisioner),
      lifecycle_(lifecycle),
      termination_(termination),
      budgets_(ctx),
      expiration_(*this),
      drift_(*this),
      emptiness_(*this),
      multi_node_(*this),
      single_node_(*this, multi_node_),
      methods_{&expiration_, &drift_, &emptiness_, &single_node_} {}

void Disruption::reconcile() {
  if (!ctx_.world.autoscaler_running()) return;  // no controller pod Running, no disruption either
  // Pending pods retry on every poll (ICE cache expiry, limits freed, NodePools changed), and so
  // do nodes marked for deletion (provisioner.trigger.node requeues every 10 s).
  ++ctx_.state.pass;
  if (provisioner_.any_provisionable() || ctx_.state.any_deleting_node_pods()) ctx_.batcher.trigger();
  finish_commands();
  // Multi-node consolidation comes before single-node; while it holds a command, single-node
  // consolidation waits.
  multi_node_.run();
  single_node_.begin_pass();
  std::vector<std::size_t> indexes;
  for (std::size_t i : ctx_.state.live_claims()) {
    const NodeClaimState& c = ctx_.state.node_claims[i];
    if (c.phase == NodeClaimPhase::Initialized && c.replacements.empty()) indexes.push_back(i);
  }
  for (std::size_t index : indexes) disrupt(index);
}

void Disruption::finish_commands() {
  state::Cluster& state = ctx_.state;
  const std::vector<std::size_t> live = state.live_claims();
  for (std::size_t i : live) {
    NodeClaimState& c = state.node_claims[i];
    if (c.replacements.empty() || c.deleting_or_deleted()) continue;
    bool ready = true, failed = false;
    for (const auto& r : c.replacements) {
      NodeClaimState* rc = state.claim_by_name(r);
      if (!rc || rc->deleting_or_deleted()) failed = true;
      else if (rc->phase != NodeClaimPhase::Initialized) ready = false;
    }
    if (failed) {
      // The command failed: the candidate is schedulable again (RequireNoScheduleTaint false).
      c.replacements.clear();
      c.disruption_reason.clear();
      state.touch();
      set_disrupted_taint(c.node_name, false);
      continue;
    }
    if (!ready) continue;
    c.replacements.clear();
    state.touch();
    const std::string reason = c.disruption_reason;
    terminate(c, reason, false);
  }
}

std::optional<Candidate> Disruption::candidate(std::size_t index) {
  NodeClaimState* c = &ctx_.state.node_claims[index];
  if (c->phase != NodeClaimPhase::Initialized) return std::nullopt;
  const NodePool* pool = ctx_.state.pool_of(*c);
  auto node = ctx_.state.node_of(*c);
  if (!pool || !node) return std::nullopt;
  return Candidate{index, c, pool, *node};
}

void Disruption::disrupt(std::size_t index) {
  if (single_node_.still_settled(index)) return;
  single_node_.forget(index);
  // An earlier command of this pass may have moved the NodeClaim on.
  const std::optional<Candidate> c = candidate(index);
  if (!c) return;
  Method* method = choose(*c);
  if (!method) return;
  const std::string reason = method->reason();
  if (!method->forceful() && budgets_.allowed(*c->pool, reason) <= 0) {
    ctx_.recorder.publish(EventType::Normal, "DisruptionBlocked", pool_ref(c->pool->name),
                          "No allowed disruptions for disruption reason " + reason + " due to blocking budget",
                          Duration::minutes(1));
    return;
  }
  const std::optional<Command> cmd = method->compute_command({*c});
  if (!cmd || !validated(index, *method)) return;
  execute(*c, *method, *cmd);
}

Method* Disruption::choose(const Candidate& c) {
  bool protected_checked = false;
  for (Method* m : methods_) {
    if (!m->forceful() && !protected_checked) {
      protected_checked = true;
      if (ctx_.state.node_pods(c.node).blocks) {
        pending_commands_.erase(c.index);
        return nullptr;
      }
    }
    if (m->should_disrupt(c)) return m;
  }
  pending_commands_.erase(c.index);
  return nullptr;
}

bool Disruption::validated(std::size_t index, Method& m) {
  if (m.forceful() || !m.validates()) return true;
  // Consolidation waits kValidationTtl and re-validates before acting.
  const SimTime now = ctx_.world.sim.now();
  auto it = pending_commands_.find(index);
  if (it == pending_commands_.end()) {
    pending_commands_[index] = now + kValidationTtl;
    return false;
  }
  if (now < it->second || !m.take_turn()) return false;
  pending_commands_.erase(it);
  return true;
}

void Disruption::execute(const Candidate& c, Method& m, const Command& cmd) {
  const std::string reason = m.reason();
  if (m.forceful()) {
    terminate(*c.claim, reason, true);
    return;
  }
  c.claim->disruption_reason = reason;
  // executeCommand: the candidate is tainted karpenter.sh/disrupted:NoSchedule before any
  // replacement is launched, so that nothing new schedules onto it meanwhile.
  set_disrupted_taint(c.claim->node_name, true);
  ctx_.log.disrupting({c.index}, reason, cmd.replacements);
  if (cmd.replacements.empty()) {
    terminate(*c.claim, reason, false);
    return;
  }
  std::vector<std::string> launched;
  for (const auto& planned : cmd.replacements) {
    auto name = launch_replacement(planned, reason);
    if (!name) break;
    launched.push_back(*name);
  }
  NodeClaimState& claim = ctx_.state.node_claims[c.index];  // a launch may have grown node_claims
  if (launched.size() != cmd.replacements.size()) {
    claim.disruption_reason.clear();
    set_disrupted_taint(claim.node_name, false);
    return;
  }
  claim.replacements = launched;
  ctx_.state.touch();
}

void Disruption::terminate(NodeClaimState& c, const std::string& reason, bool forceful) {
  ctx_.recorder.publish(EventType::Normal, "DisruptionTerminating", {"Node", "", c.node_name}, "Disrupting Node: " + title(reason));
  ctx_.recorder.publish(EventType::Normal, "DisruptionTerminating", claim_ref(c.name), "Disrupting NodeClaim: " + title(reason));
  termination_.delete_claim(c, reason, forceful);
}

std::optional<std::string> Disruption::launch_replacement(const PlannedNodeClaim& planned, const std::string& reason) {
  const int idx = lifecycle_.launch(planned, true);
  if (idx < 0) return std::nullopt;
  const std::string name = ctx_.state.node_claims[static_cast<std::size_t>(idx)].name;
  ctx_.recorder.publish(EventType::Normal, "DisruptionLaunching", claim_ref(name), "Launching NodeClaim: " + reason);
  ctx_.recorder.publish(EventType::Normal, "DisruptionWaitingReadiness", claim_ref(name),
                        "Waiting on readiness to continue disruption");
  return name;
}

}  // namespace eksim::autoscaling::karpenter
