// The disruption controller (pkg/controllers/disruption/controller.go): every 10 s, in order,
// replacements that initialized, multi-node consolidation, then per NodeClaim expiration,
// drift, emptiness and single-node consolidation.
#include "models/autoscaling/karpenter/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"
#include "models/autoscaling/karpenter/state/cluster.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

bool Controller::still_settled(std::size_t index, SimTime now) {
  auto it = settled_.find(index);
  if (it == settled_.end()) return false;
  const Settled& st = it->second;
  if (c_.api.node_deleted(k8s::NodeId{st.node}) || state_.node_stamp(st.node) != st.stamp || now >= st.until) return false;
  if (template_set()->generation != st.generation) return false;
  // With no disruption allowed it would report DisruptionBlocked.
  if (budget_pass_ != pass_ || budget_version_ != state_.version) {
    budget_ok_.clear();
    budget_pass_ = pass_;
    budget_version_ = state_.version;
  }
  auto b = budget_ok_.find(st.pool);
  if (b == budget_ok_.end()) b = budget_ok_.emplace(st.pool, allowed_disruptions(*st.pool, "Underutilized") > 0).first;
  if (!b->second) return false;
  state::Snapshot& snap = snapshot();
  if (snap.any_required_anti_affinity)
    for (k8s::PodId p : node_pods(k8s::NodeId{st.node}).reschedulable_ids)
      if (snap.anti_affinity_selects(c_.api.pod(p).pod)) return false;
  auto own = state_.nodes.find(st.node);
  const std::optional<std::uint32_t> own_pos = own == state_.nodes.end() ? std::nullopt : state_.position(own->second);
  const k8s::SchedulerOptions options;
  bool uninitialized = false;
  for (std::uint32_t k : st.classes) {
    // The simulation tries initialized nodes first: one that fits (other than the candidate's
    // own) could take the pod. Uninitialized ones only ever make it a no-op.
    for (std::uint32_t pos : snap.fits_of(k, state_.classes, options)) {
      if (own_pos && pos == *own_pos) continue;
      if (!snap.nodes[pos]->node.initialized) {
        uninitialized = true;
        break;
      }
      return false;
    }
  }
  // A no-op for relying on an uninitialized node holds only while one still fits; without it the
  // pods would need a new NodeClaim, which the last pass never priced.
  return uninitialized || !st.relies_on_uninitialized;
}

void Controller::settle(std::size_t index, k8s::NodeId node, const NodePool& pool, std::uint64_t generation,
                        const std::vector<std::uint32_t>& classes, bool relies_on_uninitialized) {
  Settled st;
  st.node = node.v;
  st.stamp = state_.node_stamp(node.v);
  st.generation = generation;
  st.until = pool.expire_after ? claims_[index].created + *pool.expire_after : SimTime{INT64_MAX};
  st.pool = &pool;
  st.relies_on_uninitialized = relies_on_uninitialized;
  st.classes = classes;
  settled_[index] = std::move(st);
}

void Controller::disrupt() {
  if (!c_.autoscaler_running()) return;  // no controller pod Running, no disruption either
  const SimTime now = c_.sim.now();
  auto& api = c_.api;
  // Pending pods retry on every poll (ICE cache expiry, limits freed, NodePools changed), and so
  // do nodes marked for deletion (provisioner.trigger.node requeues every 10 s).
  ++pass_;
  if (any_provisionable() || any_deleting_node_pods()) trigger();
  // Replacements that have initialized let their originals go.
  const std::vector<std::size_t> live = live_claims();
  for (std::size_t i : live) {
    NodeClaimState& c = claims_[i];
    if (c.replacements.empty() || c.phase == NodeClaimPhase::Deleting || c.phase == NodeClaimPhase::Deleted) continue;
    bool ready = true, failed = false;
    for (const auto& r : c.replacements) {
      NodeClaimState* rc = claim_by_name(r);
      if (!rc || rc->phase == NodeClaimPhase::Deleted || rc->phase == NodeClaimPhase::Deleting) failed = true;
      else if (rc->phase != NodeClaimPhase::Initialized) ready = false;
    }
    if (failed) {
      // The command failed: the candidate is schedulable again (RequireNoScheduleTaint false).
      c.replacements.clear();
      c.disruption_reason.clear();
      state_.touch();
      set_disrupted_taint(c.node_name, false);
      continue;
    }
    if (!ready) continue;
    c.replacements.clear();
    state_.touch();
    std::string reason = c.disruption_reason;
    event(EventType::Normal, "DisruptionTerminating", {"Node", "", c.node_name}, "Disrupting Node: " + title(reason));
    event(EventType::Normal, "DisruptionTerminating", claim_ref(c.name), "Disrupting NodeClaim: " + title(reason));
    delete_claim(c, reason, false);
  }

  // Multi-node consolidation comes before single-node; while it holds a command, single-node
  // consolidation waits.
  const bool multi = multi_node_consolidation(now);
  bool single_node_done = false;
  std::vector<std::size_t> names;
  for (std::size_t i : live_claims())
    if (claims_[i].phase == NodeClaimPhase::Initialized && claims_[i].replacements.empty()) names.push_back(i);
  for (std::size_t index : names) {
    if (still_settled(index, now)) continue;
    settled_.erase(index);
    // A NodeClaim's name is its own for the run (launch), so its index names it too; an earlier
    // command of this pass may have moved it on.
    NodeClaimState* c = &claims_[index];
    if (c->phase != NodeClaimPhase::Initialized) continue;
    const NodePool* pool_ptr = pool_of(*c);
    auto node = node_of(*c);
    if (!pool_ptr || !node) continue;
    const NodePool& pool = *pool_ptr;
    // Expiration is forceful in v1: no budget, no do-not-disrupt.
    if (pool.expire_after && now - c->created >= *pool.expire_after) {
      event(EventType::Normal, "DisruptionTerminating", {"Node", "", c->node_name}, "Disrupting Node: Expired");
      event(EventType::Normal, "DisruptionTerminating", claim_ref(c->name), "Disrupting NodeClaim: Expired");
      delete_claim(*c, "Expired", true);
      continue;
    }
    if (pods_block_disruption(*node)) {
      pending_commands_.erase(index);
      continue;
    }
    // Drift: the NodePool template or NodeClass changed, or the node no longer meets the
    // NodePool's requirements. Both verdicts are cached, so a node that is neither drifted nor
    // past consolidateAfter costs a few lookups a pass.
    std::string reason;
    const bool drifted = hash_drifted(*c, pool) || requirements_drifted(pool, *node);
    bool consolidatable = pool.consolidate_after &&
                          now - std::max(c->last_pod_event, c->initialized_at.value_or(now)) >= *pool.consolidate_after;
    if (drifted) reason = "Drifted";
    else if (consolidatable && reschedulable_pods(*node) == 0) reason = "Empty";
    else if (consolidatable && pool.consolidation_policy == "WhenEmptyOrUnderutilized") reason = "Underutilized";
    if (reason.empty() || (multi && reason == "Underutilized")) {
      pending_commands_.erase(index);
      continue;
    }
    if (allowed_disruptions(pool, reason) <= 0) {
      event(EventType::Normal, "DisruptionBlocked", pool_ref(pool.name),
            "No allowed disruptions for disruption reason " + reason + " due to blocking budget", Duration::minutes(1));
      continue;
    }
    std::vector<const k8s::Pod*> pods;
    for (k8s::PodId p : node_pods(*node).reschedulable_ids) pods.push_back(&api.pod(p).pod);
    // Simulate the node's pods elsewhere: existing nodes first, new NodeClaims if needed.
    std::vector<PlannedNodeClaim> replacements;
    std::shared_ptr<TemplateSet> tmpls;
    std::vector<k8s::Pod> moved;
    if (!pods.empty()) {
      // One simulation with the NodePools, as upstream's SimulateScheduling: no new NodeClaim
      // means the pods fit elsewhere (their topology domains still count the pools' zones).
      tmpls = template_set();
      state::Snapshot& snap = snapshot();
      state::SimulationNodes others(snap, state_.classes, positions_of({*node}));
      std::optional<std::vector<std::uint32_t>> classes;
      if (!snap.anti_affinity_selects_any(pods)) classes = node_classes(*node);
      if (!classes) {
        for (const k8s::Pod* p : pods) moved.push_back(unbound(*p));
        for (std::size_t i = 0; i < pods.size(); ++i) pods[i] = &moved[i];
      } else if (others.only_uninitialized_fit(*classes)) {
        // The simulation would rely on a node that is not initialized: no command, and none
        // while that stands.
        pending_commands_.erase(index);
        settle(index, *node, pool, tmpls->generation, *classes, true);
        continue;
      }
      // A spot candidate is never replaced without SpotToSpotConsolidation, and no replacement
      // can be cheaper than the candidate when the price floor of its pods' classes is not:
      // only a delete can come of it, so the simulation stops at the first pod that would need
      // a NodeClaim (any such pod makes it a no-op).
      const bool delete_only =
          reason == "Underutilized" && classes &&
          ((c->capacity_type == "spot" && !settings_.spot_to_spot_consolidation) ||
           price_floor(*tmpls, *classes) >= c->price_per_hour);
      SchedulingResults sim = solve(pods, others, tmpls->templates, domain(), {}, delete_only);
      if (relies_on_uninitialized(sim, others)) {
        pending_commands_.erase(index);
        continue;
      }
      if (sim.stopped || !sim.errors.empty() || !sim.new_claims.empty()) {
        if (reason == "Underutilized") {
          bool cheaper = !sim.stopped && sim.errors.empty() && sim.new_claims.size() == 1 &&
                         sim.new_claims[0].options.front()->cheapest(sim.new_claims[0].requirements) < c->price_per_hour;
          if (cheaper && c->capacity_type == "spot" && !settings_.spot_to_spot_consolidation) cheaper = false;
          if (!cheaper) {
            pending_commands_.erase(index);
            if (sim.existing.empty() && classes) settle(index, *node, pool, tmpls->generation, *classes, false);
            continue;
          }
        }
        replacements = std::move(sim.new_claims);
      }
    }
    if (reason != "Drifted") {
      // Consolidation waits kValidationTtl and re-validates before acting.
      auto it = pending_commands_.find(index);
      if (it == pending_commands_.end()) {
        pending_commands_[index] = now + kValidationTtl;
        continue;
      }
      if (now < it->second) continue;
      // SingleNodeConsolidation returns one command per pass; the others wait for the next.
      if (reason == "Underutilized" && single_node_done) continue;
      pending_commands_.erase(it);
      if (reason == "Underutilized") single_node_done = true;
    }
    c->disruption_reason = reason;
    // executeCommand: the candidate is tainted karpenter.sh/disrupted:NoSchedule before any
    // replacement is launched, so that nothing new schedules onto it meanwhile.
    set_disrupted_taint(c->node_name, true);
    log_disrupting({index}, reason, replacements);
    if (replacements.empty()) {
      event(EventType::Normal, "DisruptionTerminating", {"Node", "", c->node_name}, "Disrupting Node: " + reason);
      event(EventType::Normal, "DisruptionTerminating", claim_ref(c->name), "Disrupting NodeClaim: " + reason);
      delete_claim(*c, reason, false);
      continue;
    }
    std::vector<std::string> launched;
    for (const auto& planned : replacements) {
      int idx = launch(planned, true);
      if (idx < 0) break;
      launched.push_back(claims_[idx].name);
      event(EventType::Normal, "DisruptionLaunching", claim_ref(claims_[idx].name), "Launching NodeClaim: " + reason);
      event(EventType::Normal, "DisruptionWaitingReadiness", claim_ref(claims_[idx].name),
            "Waiting on readiness to continue disruption");
    }
    c = &claims_[index];  // launch() may have grown claims_
    if (launched.size() != replacements.size()) {
      c->disruption_reason.clear();
      set_disrupted_taint(c->node_name, false);
      continue;
    }
    c->replacements = launched;
    state_.touch();
  }
}

}  // namespace eksim::autoscaling::karpenter
