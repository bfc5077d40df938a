#include "models/autoscaling/cas/core/scaledown/planner/planner.hpp"

#include <algorithm>
#include <cmath>

#include "models/autoscaling/cas/core/scaledown/eligibility/eligibility.hpp"
#include "models/autoscaling/cas/core/scaledown/pdb/remaining_pdbs.hpp"

namespace eksim::autoscaling::cas {

std::vector<const k8s::NodeInfo*> PlanningPass::ready_view() const {
  std::vector<const k8s::NodeInfo*> v;
  v.reserve(size());
  for (std::size_t j = 0; j < size(); ++j)
    if (ready[j]) v.push_back(&snap.at(j));
  return v;
}

PlanningPass Planner::start_pass(const std::vector<LiveNode>& nodes) const {
  PlanningPass pass;
  pass.now = ctx_.cluster.sim.now();
  pass.sched = ctx_.scheduler_options();
  pass.index_of.reserve(nodes.size());
  pass.snap.reserve(nodes.size());
  pass.owners.reserve(nodes.size());
  pass.ready.reserve(nodes.size());
  for (const auto& ln : nodes) {
    const std::string& n = ctx_.cluster.api.node(ln.id).node.meta.name;
    if (deletions_.is_deleting(n) || (!ln.usable && !ln.group)) continue;
    pass.index_of[ln.id.v] = pass.snap.add_shared(&ctx_.node_infos.get(ln.id));
    pass.owners.push_back(&ln);
    pass.ready.push_back(ln.usable);
  }
  for (const NodeGroup* g : ctx_.cloud_provider.node_groups()) {
    std::optional<std::int64_t> target = g->target_size();
    pass.removable[g] = target ? *target - deletions_.deleting_in(g->id()) - g->min_size() : 0;
    pass.gpu_expected[g] = g->has_gpus();
  }
  choose_candidates(pass);
  pass.pdbs = remaining_pdbs(ctx_.cluster);
  pass.removed_in_sim.assign(pass.size(), false);
  pass.utils.resize(pass.size());
  return pass;
}

void Planner::choose_candidates(PlanningPass& pass) const {
  // chooseCandidates: the nodes unneeded in the previous pass first, then the others, each in
  // node order.
  const std::size_t count = pass.size();
  pass.previous.assign(count, false);
  pass.order.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    if (unneeded_.contains(pass.snap.at(i).name())) {
      pass.previous[i] = true;
      pass.order.push_back(i);
    }
  for (std::size_t i = 0; i < count; ++i)
    if (!pass.previous[i]) pass.order.push_back(i);
  const CasOptions& o = ctx_.options;
  pass.bounded = o.scale_down_non_empty_candidates_count > 0;
  if (pass.bounded) {
    auto by_ratio = static_cast<std::int64_t>(std::ceil(static_cast<double>(count) * o.scale_down_candidates_pool_ratio));
    pass.pool = static_cast<std::size_t>(std::max(by_ratio, o.scale_down_candidates_pool_min_count));
  }
}

void Planner::update_cluster_state(const std::vector<LiveNode>& nodes) {
  updated_ = ctx_.cluster.sim.now();
  PlanningPass pass = start_pass(nodes);
  unneeded_.begin_pass();
  unremovable_.clear();
  planning_ = {};
  for (std::size_t i : pass.order) consider(pass, i);
  pod_location_hints_ = std::move(pass.new_hints);
  unneeded_.end_pass();
  std::sort(pass.unneeded_now.begin(), pass.unneeded_now.end());  // node order
  found_.clear();
  for (const auto& [i, since] : pass.unneeded_now)
    found_.push_back({pass.owners[i]->id, pass.owners[i]->group, static_cast<bool>(pass.ready[i]), since, pass.utils[i]});
}

void Planner::consider(PlanningPass& pass, std::size_t i) {
  const LiveNode& ln = *pass.owners[i];
  const k8s::NodeInfo& info = pass.snap.at(i);
  if (!ln.group) return;
  // Reasons: core/scaledown/eligibility and simulator (UnremovableReason names).
  if (const char* reason = ineligible_reason(pass.removable[ln.group], info.node)) {
    unremovable_.add(ln.id, reason);
    return;
  }
  // Utilization as the informers' NodeInfo has it, unless pods moved here in this pass.
  const bool gpu_expected = pass.gpu_expected[ln.group];
  Utilization u = pass.snap.shared(i) ? ctx_.node_infos.utilization(ln.id, gpu_expected) : node_utilization(info, gpu_expected);
  if (!underutilized(u, ctx_.options)) {
    unremovable_.add(ln.id, "NotUnderutilized");
    return;
  }
  ++planning_.candidates;
  std::vector<const k8s::Pod*> to_move;
  for (const k8s::Pod* p : info.pods)
    if (pod_needs_move(*p)) to_move.push_back(p);
  const bool empty = to_move.empty();
  if (!empty && skipped_by_bounds(pass, i)) return;
  std::optional<BlockingPod> blocker;
  for (const k8s::Pod* p : info.pods)
    if (!blocker) blocker = drain_blocker(*p, ctx_.options.drain, pass.pdbs);
  if (blocker) {
    unremovable_.add(ln.id, "BlockedByPod", blocker);
    return;
  }
  // Every pod to move must fit on a ready node that stays.
  if (!empty && !simulate_removal(pass, i, to_move)) {
    unremovable_.add(ln.id, "NoPlaceToMovePods");
    return;
  }
  mark_unneeded(pass, i, to_move, empty, u);
}

bool Planner::skipped_by_bounds(PlanningPass& pass, std::size_t i) {
  if (!pass.bounded || pass.previous[i]) return false;
  std::int64_t additional = ctx_.options.scale_down_non_empty_candidates_count - pass.found_previous;
  if (pass.pool_used >= pass.pool || pass.found_additional >= additional) {
    ++planning_.skipped_by_pool;
    unremovable_.add(pass.owners[i]->id, "NotUnneededOtherReason");
    return true;
  }
  ++pass.pool_used;
  return false;
}

void Planner::mark_unneeded(PlanningPass& pass, std::size_t i, const std::vector<const k8s::Pod*>& to_move, bool empty,
                            const Utilization& u) {
  // RemainingPdbTracker.RemovePods: the moved pods use up their budgets for later nodes.
  for (const k8s::Pod* p : to_move)
    for (auto& pdb : pass.pdbs)
      if (pdb.matches(*p)) --pdb.disruptions_allowed;
  pass.removed_in_sim[i] = true;
  pass.removable[pass.owners[i]->group]--;
  if (!empty) (pass.previous[i] ? pass.found_previous : pass.found_additional)++;
  engine::SimTime since = unneeded_.mark(pass.snap.at(i).name(), pass.now);
  pass.unneeded_now.emplace_back(i, since);
  pass.utils[i] = u;
}

std::vector<NodeToDelete> Planner::nodes_to_delete() const {
  const engine::SimTime now = ctx_.cluster.sim.now();
  const k8s::ApiServer& api = ctx_.cluster.api;
  std::vector<NodeToDelete> out;
  for (const Unneeded& n : found_) {
    if (!UnneededNodes::removable(n.ready, n.since, now, ctx_.options)) continue;
    const k8s::NodeRecord& rec = api.node(n.node);
    bool empty = std::none_of(rec.pods.begin(), rec.pods.end(), [&](k8s::PodId p) {
      return !api.pod(p).deleted && pod_needs_move(api.pod(p).pod);
    });
    out.push_back({n.node, n.group, empty, n.utilization});
  }
  return out;
}

}  // namespace eksim::autoscaling::cas
