// Disruption helpers (pkg/controllers/disruption/helpers.go): SimulateScheduling for one
// candidate, as drift and single-node consolidation use it, and the disruption cost.
#include "models/autoscaling/karpenter/disruption/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

std::optional<Command> Disruption::simulate(const Candidate& c, const std::string& reason) {
  state::Cluster& state = ctx_.state;
  Command cmd;
  cmd.candidates = {c.index};
  std::vector<const k8s::Pod*> pods;
  for (k8s::PodId p : state.node_pods(c.node).reschedulable_ids) pods.push_back(&ctx_.world.api.pod(p).pod);
  if (pods.empty()) return cmd;
  // One simulation with the NodePools, as upstream's SimulateScheduling: no new NodeClaim means
  // the pods fit elsewhere (their topology domains still count the pools' zones).
  cmd.templates = provisioner_.template_set();
  state::Snapshot& snap = state.snapshot();
  state::SimulationNodes others(snap, state.classes, state.positions_of({c.node}));
  std::optional<std::vector<std::uint32_t>> classes;
  if (!snap.anti_affinity_selects_any(pods)) classes = state.pod_classes_of(c.node);
  if (!classes) {
    cmd.pods = std::make_unique<std::vector<k8s::Pod>>();
    for (const k8s::Pod* p : pods) cmd.pods->push_back(unbound(*p));
    for (std::size_t i = 0; i < pods.size(); ++i) pods[i] = &(*cmd.pods)[i];
  } else if (others.only_uninitialized_fit(*classes)) {
    // The simulation would rely on a node that is not initialized: no command, and none while
    // that stands.
    forget_command(c.index);
    single_node_.settle(c, cmd.templates->generation, *classes, true);
    return std::nullopt;
  }
  // A spot candidate is never replaced without SpotToSpotConsolidation, and no replacement can
  // be cheaper than the candidate when the price floor of its pods' classes is not: only a
  // delete can come of it, so the simulation stops at the first pod that would need a NodeClaim
  // (any such pod makes it a no-op).
  const bool underutilized = reason == "Underutilized";
  const bool spot_locked = c.claim->capacity_type == "spot" && !ctx_.settings.spot_to_spot_consolidation;
  const bool delete_only = underutilized && classes &&
                           (spot_locked || provisioner_.price_floor(*cmd.templates, *classes) >= c.claim->price_per_hour);
  SchedulingResults sim = solve(pods, others, cmd.templates->templates, ctx_.settings.domain(), {}, delete_only);
  if (relies_on_uninitialized(sim, others)) {
    forget_command(c.index);
    return std::nullopt;
  }
  if (sim.stopped || !sim.errors.empty() || !sim.new_claims.empty()) {
    if (underutilized) {
      bool cheaper = !sim.stopped && sim.errors.empty() && sim.new_claims.size() == 1 &&
                     sim.new_claims[0].options.front()->cheapest(sim.new_claims[0].requirements) < c.claim->price_per_hour;
      if (cheaper && spot_locked) cheaper = false;
      if (!cheaper) {
        forget_command(c.index);
        if (sim.existing.empty() && classes) single_node_.settle(c, cmd.templates->generation, *classes, false);
        return std::nullopt;
      }
    }
    cmd.replacements = std::move(sim.new_claims);
  }
  return cmd;
}

double MultiNodeConsolidation::disruption_cost(const NodeClaimState& c) {
  // disruption/helpers.go: ReschedulingCost(pods) * LifetimeRemaining. Each evictable pod costs
  // EvictionCost = 1 (no pod-deletion-cost annotation or priority adjustment modelled); the
  // lifetime factor is the fraction of expireAfter left.
  state::Cluster& state = d_.ctx().state;
  const SimTime now = d_.ctx().world.sim.now();
  double pods = 0;
  if (auto node = state.node_of(c)) pods = state.node_pods(*node).reschedulable;
  double lifetime = 1;
  auto pool_it = state.node_pools.find(c.node_pool);
  if (pool_it != state.node_pools.end() && pool_it->second.expire_after && pool_it->second.expire_after->us > 0)
    lifetime = std::clamp(1.0 - static_cast<double>((now - c.created).us) / static_cast<double>(pool_it->second.expire_after->us),
                          0.0, 1.0);
  return pods * lifetime;
}

}  // namespace eksim::autoscaling::karpenter
