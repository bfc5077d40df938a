// Scale-down planning (cluster-autoscaler/core/scaledown/planner, legacy UpdateUnneededNodes) and
// the hand-over to actuation:
//
// - eligibility (core/scaledown/eligibility): a node of a known group, above its group's min
//   size, without the scale-down-disabled annotation, below the utilization threshold;
// - removal simulation (simulator.RemovalSimulator): every pod that must move fits on a ready
//   node that stays, tried first where the same pod went in the previous pass (pod location
//   hints), then in node order; the moved pods use up their PodDisruptionBudgets;
// - bounds (chooseCandidates): nodes unneeded in the previous pass are simulated first; then at
//   most --scale-down-non-empty-candidates-count non-empty nodes are added, looked for among the
//   first max(ceil(nodes * --scale-down-candidates-pool-ratio), --scale-down-candidates-pool-
//   min-count) other eligible non-empty nodes. Empty nodes need no simulation and are not bounded;
// - unneeded nodes (core/scaledown/unneeded): unneeded since the first pass that found them;
//   removable after scale-down-unneeded-time (ready) or scale-down-unready-time (unready);
// - actuation budgets (core/scaledown/budgets), then actuation/actuator.cpp.
#include <algorithm>
#include <cmath>
#include <deque>
#include <set>
#include <unordered_map>

#include "models/autoscaling/cas/core/scaledown/budgets/budgets.hpp"
#include "models/autoscaling/cluster_autoscaler.hpp"

namespace eksim::autoscaling {

void ClusterAutoscaler::scale_down(const std::vector<LiveNode>& nodes) {
  if (!o_.scale_down_enabled) return;
  const engine::SimTime now = c_.sim.now();
  scale_down_probed_ = now;
  k8s::SchedulerOptions sched;
  sched.version = k8s::KubernetesVersion{c_.spec().kubernetes_minor, -1};

  // Candidates: every node of a known group not already being deleted, ready or not (an unready
  // node, including a GPU node whose GPUs never appear, goes after scale-down-unready-time).
  // Destinations for moved pods: the usable nodes. The snapshot shares the informers' NodeInfos
  // and copies a node only when a simulated pod lands on it.
  cas::SnapshotFork snap;
  std::vector<const LiveNode*> owners;
  std::vector<bool> ready;
  std::unordered_map<std::uint32_t, std::size_t> index_of;  // NodeId -> snapshot index
  index_of.reserve(nodes.size());
  snap.reserve(nodes.size());
  owners.reserve(nodes.size());
  ready.reserve(nodes.size());
  for (const auto& ln : nodes) {
    const std::string& n = c_.api.node(ln.id).node.meta.name;
    if (deleting_.count(n) || (!ln.usable && !ln.group)) continue;
    index_of[ln.id.v] = snap.add_shared(&node_infos_.get(ln.id));
    owners.push_back(&ln);
    ready.push_back(ln.usable);
  }
  const std::size_t count = snap.size();
  // What the scheduler plugins see as the cluster: the ready nodes as the simulation leaves them.
  auto ready_view = [&] {
    std::vector<const k8s::NodeInfo*> v;
    v.reserve(count);
    for (std::size_t j = 0; j < count; ++j)
      if (ready[j]) v.push_back(&snap.at(j));
    return v;
  };

  std::map<const GroupState*, std::int64_t> removable;  // group -> nodes that may still go (size - min)
  std::map<const GroupState*, bool> gpu_expected_in;    // group -> its instance type has GPUs
  for (const auto& g : groups_) {
    aws::AutoScalingGroup* asg = c_.auto_scaling.find(g.id);
    removable[&g] = asg ? asg->sizes.desired - deleting_in(g) - g.min : 0;
    gpu_expected_in[&g] = gpu_group(g);
  }

  // chooseCandidates: the nodes unneeded in the previous pass first, then the others, each in
  // node order.
  std::vector<std::size_t> order;
  std::vector<bool> previous(count, false);
  order.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    if (unneeded_since_.count(snap.at(i).name())) {
      previous[i] = true;
      order.push_back(i);
    }
  for (std::size_t i = 0; i < count; ++i)
    if (!previous[i]) order.push_back(i);
  const bool bounded = o_.scale_down_non_empty_candidates_count > 0;
  std::size_t pool = 0, pool_used = 0;
  std::int64_t found_previous = 0, found_additional = 0;
  if (bounded) {
    auto by_ratio = static_cast<std::int64_t>(std::ceil(static_cast<double>(count) * o_.scale_down_candidates_pool_ratio));
    pool = static_cast<std::size_t>(std::max(by_ratio, o_.scale_down_candidates_pool_min_count));
  }

  std::vector<cas::RemainingPdb> pdbs = remaining_pdbs();
  // Pods as the removal simulation moves them: copies with spec.nodeName cleared
  // (simulator/cluster.go findPlaceFor), else the NodeName filter pins them to the node going away.
  std::deque<k8s::Pod> moved;
  std::set<const k8s::Pod*> moved_copies;  // placed by this pass, not pods of the API
  // By snapshot index: a scan over 1,500 nodes allocates no set or map node per node.
  std::vector<bool> removed_in_sim(count, false);
  std::vector<std::pair<std::size_t, engine::SimTime>> unneeded_now;  // snapshot index, unneeded since
  ++planning_pass_;
  std::vector<cas::Utilization> utils(count);
  std::map<const k8s::Pod*, k8s::NodeId> new_hints;
  unremovable_nodes_.clear();
  unremovable_.reset();
  auto unremovable = [&](std::size_t i, const char* reason, std::optional<cas::BlockingPod> blocker = std::nullopt) {
    unremovable_nodes_.push_back({owners[i]->id, reason, std::move(blocker)});
  };
  planning_ = {};
  for (std::size_t i : order) {
    const LiveNode& ln = *owners[i];
    const k8s::NodeInfo& info = snap.at(i);
    const std::string& name = info.name();
    if (!ln.group) continue;
    // Reasons: core/scaledown/eligibility and simulator (UnremovableReason names).
    if (removable[ln.group] <= 0) {
      unremovable(i, "NodeGroupMinSizeReached");
      continue;
    }
    auto ann = info.node.meta.annotations.find(cas::kAnnotationScaleDownDisabled);
    if (ann != info.node.meta.annotations.end() && ann->second == "true") {
      unremovable(i, "ScaleDownDisabledAnnotation");
      continue;
    }
    // Utilization as the informers' NodeInfo has it, unless pods moved here in this pass.
    const bool gpu_expected = gpu_expected_in[ln.group];
    cas::Utilization u = snap.shared(i) ? node_infos_.utilization(ln.id, gpu_expected)
                                        : cas::node_utilization(info, gpu_expected);
    double threshold = u.gpu_node ? o_.scale_down_gpu_utilization_threshold : o_.scale_down_utilization_threshold;
    if (u.value >= threshold) {
      unremovable(i, "NotUnderutilized");
      continue;
    }
    ++planning_.candidates;
    std::vector<const k8s::Pod*> to_move;
    for (const k8s::Pod* p : info.pods)
      if (cas::pod_needs_move(*p)) to_move.push_back(p);
    const bool empty = to_move.empty();
    if (!empty && bounded && !previous[i]) {
      std::int64_t additional = o_.scale_down_non_empty_candidates_count - found_previous;
      if (pool_used >= pool || found_additional >= additional) {
        ++planning_.skipped_by_pool;
        unremovable(i, "NotUnneededOtherReason");
        continue;
      }
      ++pool_used;
    }
    std::optional<cas::BlockingPod> blocker;
    for (const k8s::Pod* p : info.pods)
      if (!blocker) blocker = cas::drain_blocker(*p, o_.drain, pdbs);
    if (blocker) {
      unremovable(i, "BlockedByPod", blocker);
      continue;
    }
    // Every pod to move must fit on a ready node that stays.
    bool ok = true;
    if (!empty) {
      ++planning_.simulated;
      snap.fork();
      std::vector<std::pair<const k8s::Pod*, k8s::NodeId>> placed_at;
      for (const k8s::Pod* original : to_move) {
        const k8s::Pod* p = original;
        if (!original->spec.node_name.empty()) {
          moved.push_back(*original);
          moved.back().spec.node_name.clear();
          p = &moved.back();
          moved_copies.insert(p);
        }
        auto all = ready_view();
        cas::PodFitter fitter(*p, all, sched);
        auto destination = [&](std::size_t j) { return j != i && ready[j] && !removed_in_sim[j]; };
        std::optional<std::size_t> where;
        if (auto h = pod_location_hints_.find(original); h != pod_location_hints_.end())
          if (auto at = index_of.find(h->second.v); at != index_of.end())
            if (destination(at->second) && fitter.fits(snap.at(at->second))) where = at->second;
        for (std::size_t j = 0; !where && j < count; ++j)
          if (destination(j) && fitter.fits(snap.at(j))) where = j;
        if (!where) {
          ok = false;
          break;
        }
        snap.add_pod(*where, *p);
        placed_at.emplace_back(original, owners[*where]->id);
      }
      if (!ok) {
        snap.revert();
        unremovable(i, "NoPlaceToMovePods");
        continue;
      }
      snap.commit();
      for (const auto& [pod, node] : placed_at)
        if (!moved_copies.count(pod)) new_hints[pod] = node;
    }
    // RemainingPdbTracker.RemovePods: the moved pods use up their budgets for later nodes.
    for (const k8s::Pod* p : to_move)
      for (auto& pdb : pdbs)
        if (pdb.matches(*p)) --pdb.disruptions_allowed;
    removed_in_sim[i] = true;
    removable[ln.group]--;
    if (!empty) (previous[i] ? found_previous : found_additional)++;
    auto since = unneeded_since_.try_emplace(name, UnneededSince{now, 0}).first;
    since->second.pass = planning_pass_;
    unneeded_now.emplace_back(i, since->second.since);
    utils[i] = u;
  }
  pod_location_hints_ = std::move(new_hints);
  std::erase_if(unneeded_since_, [&](const auto& kv) { return kv.second.pass != planning_pass_; });
  std::sort(unneeded_now.begin(), unneeded_now.end());  // node order

  // Actuation waits out the cool-downs (unneeded time keeps accruing meanwhile).
  engine::Duration after_delete = o_.scale_down_delay_after_delete.value_or(o_.scan_interval);
  if (last_scale_up_ && now < *last_scale_up_ + o_.scale_down_delay_after_add) return;
  if (last_scale_down_fail_ && now < *last_scale_down_fail_ + o_.scale_down_delay_after_failure) return;
  if (last_scale_down_delete_ && now < *last_scale_down_delete_ + after_delete) return;

  // unneeded.Nodes.RemovableAt: unneeded long enough; a ready node for scale-down-unneeded-time,
  // an unready one for scale-down-unready-time (and only when scale-down-unready-enabled).
  struct Removable {
    std::size_t index;
    bool empty;
  };
  std::vector<Removable> removable_now;
  std::size_t empty_count = 0, drain_count = 0;
  for (const auto& [i, since] : unneeded_now) {
    if (!ready[i] && !o_.scale_down_unready_enabled) continue;
    engine::Duration needed = ready[i] ? o_.scale_down_unneeded_time : o_.scale_down_unready_time;
    if (now - since < needed) continue;
    const k8s::NodeRecord& rec = c_.api.node(owners[i]->id);
    bool empty = std::none_of(rec.pods.begin(), rec.pods.end(), [&](k8s::PodId p) {
      return !c_.api.pod(p).deleted && cas::pod_needs_move(c_.api.pod(p).pod);
    });
    removable_now.push_back({i, empty});
    (empty ? empty_count : drain_count)++;
  }
  // A drain counts as in progress while pods it evicts are still on the node; once they are
  // gone the node is deleted at the drain's next 5 s check (waitPodsToDisappear), whatever this
  // loop decides.
  std::size_t draining = 0;
  for (const std::string& n : in_progress_.drain)
    if (auto id = c_.api.find_node(n)) {
      const k8s::NodeRecord& rec = c_.api.node(*id);
      draining += std::any_of(rec.pods.begin(), rec.pods.end(), [&](k8s::PodId p) {
        return !c_.api.pod(p).deleted && cas::pod_needs_move(c_.api.pod(p).pod);
      });
    }
  cas::ScaleDownBudget budget = cas::crop_nodes(o_.max_scale_down_parallelism, o_.max_drain_parallelism,
                                                in_progress_.empty.size(), draining, empty_count, drain_count);
  for (const auto& r : removable_now) {
    std::size_t& left = r.empty ? budget.empty : budget.drain;
    if (left == 0) continue;
    --left;
    start_deletion(owners[r.index]->id, *group_by_id(owners[r.index]->group->id), r.empty, utils[r.index]);
  }
}

const std::map<std::string, ClusterAutoscaler::Unremovable>& ClusterAutoscaler::unremovable() const {
  if (!unremovable_) {
    unremovable_.emplace();
    for (const auto& u : unremovable_nodes_)
      (*unremovable_)[c_.api.node(u.node).node.meta.name] = Unremovable{u.reason, u.blocking_pod};
  }
  return *unremovable_;
}

}  // namespace eksim::autoscaling
