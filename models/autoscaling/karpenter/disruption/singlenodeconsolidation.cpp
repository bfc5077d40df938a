// Single-node consolidation (pkg/controllers/disruption/singlenodeconsolidation.go): one
// underutilized node at a time, deleted when its pods fit elsewhere, or replaced with one cheaper
// NodeClaim; the candidates whose simulation found nothing stay settled while nothing they read
// changes.
#include "models/autoscaling/karpenter/disruption/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

bool SingleNodeConsolidation::should_disrupt(const Candidate& c) {
  return consolidatable(*c.claim, *c.pool, d_.ctx().world.sim.now()) &&
         c.pool->consolidation_policy == "WhenEmptyOrUnderutilized" && !multi_.holds_command();
}

std::optional<Command> SingleNodeConsolidation::compute_command(const std::vector<Candidate>& candidates) {
  return d_.simulate(candidates.front(), reason());
}

bool SingleNodeConsolidation::take_turn() {
  // SingleNodeConsolidation returns one command per pass; the others wait for the next.
  if (executed_) return false;
  executed_ = true;
  return true;
}

bool SingleNodeConsolidation::budget_allows(const NodePool* pool) {
  // With no disruption allowed it would report DisruptionBlocked.
  state::Cluster& state = d_.ctx().state;
  if (budget_pass_ != state.pass || budget_version_ != state.version) {
    budget_ok_.clear();
    budget_pass_ = state.pass;
    budget_version_ = state.version;
  }
  auto b = budget_ok_.find(pool);
  if (b == budget_ok_.end()) b = budget_ok_.emplace(pool, d_.budgets().allowed(*pool, reason()) > 0).first;
  return b->second;
}

bool SingleNodeConsolidation::still_settled(std::size_t index) {
  auto it = settled_.find(index);
  if (it == settled_.end()) return false;
  const Settled& st = it->second;
  state::Cluster& state = d_.ctx().state;
  const SimTime now = d_.ctx().world.sim.now();
  if (d_.ctx().world.api.node_deleted(k8s::NodeId{st.node}) || state.node_stamp(st.node) != st.stamp || now >= st.until)
    return false;
  if (d_.provisioner().template_set()->generation != st.generation) return false;
  if (!budget_allows(st.pool)) return false;
  state::Snapshot& snap = state.snapshot();
  if (snap.any_required_anti_affinity)
    for (k8s::PodId p : state.node_pods(k8s::NodeId{st.node}).reschedulable_ids)
      if (snap.anti_affinity_selects(d_.ctx().world.api.pod(p).pod)) return false;
  auto own = state.nodes.find(st.node);
  const std::optional<std::uint32_t> own_pos = own == state.nodes.end() ? std::nullopt : state.position(own->second);
  const k8s::SchedulerOptions options;
  bool uninitialized = false;
  for (std::uint32_t k : st.classes) {
    // The simulation tries initialized nodes first: one that fits (other than the candidate's
    // own) could take the pod. Uninitialized ones only ever make it a no-op.
    for (std::uint32_t pos : snap.fits_of(k, state.classes, options)) {
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

void SingleNodeConsolidation::settle(const Candidate& c, std::uint64_t generation, const std::vector<std::uint32_t>& classes,
                                     bool relies_on_uninitialized) {
  Settled st;
  st.node = c.node.v;
  st.stamp = d_.ctx().state.node_stamp(c.node.v);
  st.generation = generation;
  st.until = c.pool->expire_after ? c.claim->created + *c.pool->expire_after : SimTime{INT64_MAX};
  st.pool = c.pool;
  st.relies_on_uninitialized = relies_on_uninitialized;
  st.classes = classes;
  settled_[c.index] = std::move(st);
}

}  // namespace eksim::autoscaling::karpenter
