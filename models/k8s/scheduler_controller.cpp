#include "models/k8s/scheduler_controller.hpp"

#include "models/k8s/scheduling/queueing_hints.hpp"

#include <algorithm>

#include "models/k8s/kubelet.hpp"
#include "models/k8s/node_lifecycle.hpp"

namespace eksim::k8s {

namespace {
using engine::Duration;
using engine::EventType;
using engine::SimTime;
}  // namespace

SchedulerController::SchedulerController(ApiServer& api, SchedulerControllerOptions options, Kubelet* kubelet)
    : api_(api), options_(std::move(options)), kubelet_(kubelet) {
  api_.on_pod_added.push_back([this](PodId id) { on_pod_added(id); });
  api_.on_pod_bound.push_back([this](PodId id) {
    const PodRecord& r = api_.pod(id);
    const std::string& node = api_.node(r.node).node.meta.name;
    if (snapshot_.bind(r.pod, node)) bound_in_snapshot_[id.v] = node;
    queued_.erase(id.v);
    unpark(id);
  });
  api_.on_pod_deleted.push_back([this](PodId id) { on_pod_gone(id, true); });
  api_.on_pod_phase.push_back([this](PodId id) {
    auto ph = api_.pod(id).pod.status.phase;
    if (ph == PodPhase::Succeeded || ph == PodPhase::Failed) on_pod_gone(id, false);
  });
  api_.on_node.push_back([this](NodeId id, NodeChange ch) { on_node(id, ch); });
  api_.sim().every(options_.flush_period, [this] { flush_unschedulable(); });
}

Node SchedulerController::snapshot_node(const Node& node) const {
  Node n = node;
  // A NotReady node carries node.kubernetes.io/not-ready:NoSchedule (TaintNodesByCondition).
  if (!n.ready && std::none_of(n.taints.begin(), n.taints.end(), [](const Taint& t) { return t.key == kTaintNotReady; }))
    n.taints.push_back(Taint{kTaintNotReady, "", kNoSchedule});
  return n;
}

void SchedulerController::on_node(NodeId id, NodeChange change) {
  const NodeRecord& r = api_.node(id);
  if (change == NodeChange::Deleted) {
    snapshot_.remove_node(r.node.meta.name);
    return;
  }
  snapshot_.set_node(snapshot_node(r.node));
  if (change == NodeChange::Added && !waiting_for_node_.empty()) {
    auto waiting = std::move(waiting_for_node_);
    waiting_for_node_.clear();
    for (PodId p : waiting) on_pod_added(p);
  }
  // Queueing hints: only the pods whose rejecting plugins this node could now let through.
  if (const NodeInfo* node = unschedulable_.empty() ? nullptr : snapshot_.find(r.node.meta.name))
    requeue_if([&](const Pod& pending, const std::set<std::string>* rejected) {
      return worth_requeuing_after_node_event(pending, rejected, *node, options_.version);
    });
}

void SchedulerController::on_pod_gone(PodId id, bool deleted) {
  auto it = bound_in_snapshot_.find(id.v);
  bool was_assigned = it != bound_in_snapshot_.end();
  if (was_assigned) {
    snapshot_.unbind(api_.pod(id).pod, it->second);
    bound_in_snapshot_.erase(it);
  }
  if (deleted) {
    queued_.erase(id.v);
    unpark(id);
    failures_.erase(id.v);
    classes_.forget(api_.pod(id).pod.meta.uid);
    for (auto a = active_.begin(); a != active_.end();) a = a->second == id ? active_.erase(a) : std::next(a);
  }
  // AssignedPodDelete (and a pod that finished frees its node the same way); an unassigned pod
  // going away frees nothing.
  if (was_assigned)
    requeue_if([&](const Pod& pending, const std::set<std::string>* rejected) {
      return worth_requeuing_after_assigned_pod_gone(pending, rejected);
    });
}

void SchedulerController::on_pod_added(PodId id) {
  PodRecord& r = api_.pod(id);
  if (r.node.valid() || r.deleted) return;
  if (!r.pod.spec.node_name.empty()) {
    if (auto node = api_.find_node(r.pod.spec.node_name)) api_.bind(id, *node);
    else waiting_for_node_.push_back(id);
    return;
  }
  if (r.pod.spec.scheduler_name != options_.scheduler_name) return;
  push_active(id);
}

void SchedulerController::push_active(PodId id) {
  if (queued_.count(id.v)) return;
  queued_.insert(id.v);
  active_.emplace(std::make_pair(-static_cast<std::int64_t>(api_.pod(id).pod.spec.priority), seq_++), id);
  kick();
}

void SchedulerController::kick() {
  if (cycle_pending_) return;
  cycle_pending_ = true;
  api_.sim().schedule(Duration{}, [this] {
    cycle_pending_ = false;
    run_cycle();
  });
}

void SchedulerController::run_cycle() {
  while (!active_.empty()) {
    PodId id = active_.begin()->second;
    active_.erase(active_.begin());
    queued_.erase(id.v);
    attempt(id);
  }
}

void SchedulerController::attempt(PodId id) {
  PodRecord& r = api_.pod(id);
  if (r.deleted || r.terminating || r.node.valid()) return;
  ++attempts_[id.v];
  last_attempt_[id.v] = api_.now();
  SchedulerOptions so;
  so.version = options_.version;
  so.preemption = options_.preemption;
  // The class is looked up only when a failure could be reused or kept: a pod that schedules at
  // its first attempt never needs one.
  const bool reusable = last_failure_ && last_failure_->generation == snapshot_.generation() &&
                        last_failure_->priority == r.pod.spec.priority;
  std::optional<std::uint32_t> pod_class = reusable ? classes_.of(r.pod) : std::nullopt;
  ScheduleResult res = reusable && pod_class == last_failure_->pod_class ? last_failure_->result
                                                                         : schedule_one(r.pod, snapshot_, so);
  if (!res.scheduled() && !res.preemption) {
    if (!reusable) pod_class = classes_.of(r.pod);
    if (pod_class) last_failure_ = CachedFailure{*pod_class, r.pod.spec.priority, snapshot_.generation(), res};
  }
  if (res.scheduled()) {
    auto node = api_.find_node(res.node_name);
    if (!node) return;  // cannot happen: the snapshot follows the API
    api_.emit(EventType::Normal, "Scheduled", ApiServer::ref(r.pod),
              "Successfully assigned " + r.pod.meta.ns + "/" + r.pod.meta.name + " to " + res.node_name,
              options_.scheduler_name);
    failures_.erase(id.v);
    unpark(id);
    r.pod.status.nominated_node_name.clear();
    api_.bind(id, *node);
    for (auto& fn : on_scheduled) fn(id, *node);
    return;
  }
  api_.emit(EventType::Warning, "FailedScheduling", ApiServer::ref(r.pod), res.message, options_.scheduler_name);
  if (res.preemption) {
    r.pod.status.nominated_node_name = res.preemption->node_name;
    for (const Pod* victim : res.preemption->victims) {
      auto vid = api_.find_pod(victim->meta.ns, victim->meta.name);
      if (!vid) continue;
      if (kubelet_) kubelet_->delete_pod(*vid);
      else api_.remove_pod(*vid);
    }
  }
  park(id, res);
  const ScheduleResult& failure = failures_[id.v] = std::move(res);
  for (auto& fn : on_unschedulable) fn(id, failure);
}

void SchedulerController::move_to_active_or_backoff(PodId id) {
  if (queued_.count(id.v)) return;
  int n = attempts_[id.v];
  Duration backoff = options_.initial_backoff;
  for (int i = 1; i < n && backoff < options_.max_backoff; ++i) backoff = backoff * 2;
  if (backoff > options_.max_backoff) backoff = options_.max_backoff;
  engine::SimTime ready = last_attempt_[id.v] + backoff;
  if (ready <= api_.now()) {
    push_active(id);
    return;
  }
  queued_.insert(id.v);  // in the back-off queue
  api_.sim().schedule_at(ready, [this, id] {
    if (!queued_.count(id.v)) return;  // bound or deleted meanwhile
    queued_.erase(id.v);
    const PodRecord& r = api_.pod(id);
    if (r.deleted || r.node.valid()) return;
    push_active(id);
  });
}

void SchedulerController::flush_unschedulable() {
  // flushUnschedulablePodsLeftover: pods parked longer than podMaxInUnschedulablePodsDuration.
  const SimTime now = api_.now();
  std::vector<PodId> move;
  for (const auto& [pod, parked] : unschedulable_)
    if (now - parked.since > options_.max_in_unschedulable) move.push_back(PodId{pod});
  requeue(std::move(move));
}

void SchedulerController::requeue_if(
    const std::function<bool(const Pod& pending, const std::set<std::string>* rejected_by)>& worth) {
  if (unschedulable_.empty()) return;
  std::vector<PodId> move;
  for (const auto& [key, pods] : parked_groups_) {
    // A group's pods share their filter class and rejecting plugins: one answer holds for all.
    const std::uint32_t rep = *pods.begin();
    auto f = failures_.find(rep);
    const std::set<std::string>* rejected = f == failures_.end() ? nullptr : &f->second.unschedulable_plugins;
    if (worth(api_.pod(PodId{rep}).pod, rejected))
      for (std::uint32_t p : pods) move.push_back(PodId{p});
  }
  std::sort(move.begin(), move.end());  // the order of asking pod by pod
  requeue(std::move(move));
}

void SchedulerController::requeue(std::vector<PodId> pods) {
  for (PodId p : pods) {
    unpark(p);
    move_to_active_or_backoff(p);
  }
}

void SchedulerController::park(PodId id, const ScheduleResult& failure) {
  unpark(id);
  std::string group;
  if (auto c = classes_.of(api_.pod(id).pod)) {
    group += 'c';
    group += std::to_string(*c);
    group += '|';
    for (const auto& plugin : failure.unschedulable_plugins) {
      group += plugin;
      group += ',';
    }
  } else {
    group += 'p';
    group += std::to_string(id.v);
  }
  parked_groups_[group].insert(id.v);
  unschedulable_.emplace(id.v, Parked{api_.now(), std::move(group)});
}

void SchedulerController::unpark(PodId id) {
  auto it = unschedulable_.find(id.v);
  if (it == unschedulable_.end()) return;
  auto g = parked_groups_.find(it->second.group);
  g->second.erase(id.v);
  if (g->second.empty()) parked_groups_.erase(g);
  unschedulable_.erase(it);
}

std::vector<PodId> SchedulerController::unschedulable_pods() const {
  std::vector<PodId> out;
  for (const auto& [pod, parked] : unschedulable_) out.push_back(PodId{pod});
  // Pods waiting out a back-off after a failure are still unschedulable to an autoscaler.
  for (std::uint32_t pod : queued_)
    if (failures_.count(pod) && !unschedulable_.count(pod)) out.push_back(PodId{pod});
  std::sort(out.begin(), out.end());
  return out;
}

const ScheduleResult* SchedulerController::last_failure(PodId pod) const {
  auto it = failures_.find(pod.v);
  return it == failures_.end() ? nullptr : &it->second;
}

}  // namespace eksim::k8s
