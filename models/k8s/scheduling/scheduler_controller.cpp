#include "models/k8s/scheduling/scheduler_controller.hpp"

#include "models/k8s/scheduling/queueing_hints.hpp"

#include <algorithm>

#include "models/k8s/kubelet/kubelet.hpp"
#include "models/k8s/kubelet/node_lifecycle.hpp"

namespace eksim::k8s {

namespace {
using engine::Duration;
using k8s::EventType;
using engine::SimTime;
}  // namespace

SchedulerController::SchedulerController(ApiServer& api, SchedulerControllerOptions options, Kubelet* kubelet)
    : api_(api), options_(std::move(options)), kubelet_(kubelet) {
  api_.log().report_through_events_api(options_.scheduler_name);
  // tools/events' broadcaster queues 1000 events (DropIfChannelFull) in front of the scheduler's
  // client, which writes at clientConnection qps 50, burst 100 (KubeSchedulerConfiguration).
  api_.log().limit_sink(options_.scheduler_name, k8s::SinkLimits{50, 100, 1000});
  api_.on_pod_added.push_back([this](PodId id) { on_pod_added(id); });
  api_.on_pod_bound.push_back([this](PodId id) {
    const PodRecord& r = api_.pod(id);
    const std::string& node = api_.node(r.node).node.meta.name;
    if (snapshot_.bind(r.pod, node)) bound_in_snapshot_[id.v] = node;
    state(id).queued = false;
    unpark(id);
    set_listed(id, false);
  });
  api_.on_pod_deleted.push_back([this](PodId id) { on_pod_gone(id, true); });
  api_.on_pod_phase.push_back([this](PodId id) {
    auto ph = api_.pod(id).pod.status.phase;
    if (ph == PodPhase::Succeeded || ph == PodPhase::Failed) on_pod_gone(id, false);
  });
  api_.on_node.push_back([this](NodeId id, NodeChange ch) { on_node(id, ch); });
  api_.sim().every(options_.flush_period, [this] { flush_unschedulable(); });
}

SchedulerController::PodQueueState& SchedulerController::state(PodId id) {
  if (id.v >= pods_.size()) pods_.resize(std::max<std::size_t>(id.v + 1, pods_.size() * 3 / 2));
  return pods_[id.v];
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
  if (const NodeInfo* node = parked_ == 0 ? nullptr : snapshot_.find(r.node.meta.name))
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
    PodQueueState& st = state(id);
    st.queued = false;  // its activeQ entry, if any, is skipped
    unpark(id);
    set_listed(id, false);
    st.failure.reset();
    classes_.forget(api_.pod(id).pod.meta.uid);
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
  PodQueueState& st = state(id);
  if (st.queued) return;
  st.queued = true;
  active_[api_.pod(id).pod.spec.priority].push_back(id);
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
    auto highest = active_.begin();
    const PodId id = highest->second.front();
    highest->second.pop_front();
    if (highest->second.empty()) active_.erase(highest);
    PodQueueState& st = state(id);
    if (!st.queued) continue;  // bound or deleted while queued
    st.queued = false;
    attempt(id);
  }
}

void SchedulerController::attempt(PodId id) {
  PodRecord& r = api_.pod(id);
  if (r.deleted || r.terminating || r.node.valid()) {
    set_listed(id, false);
    return;
  }
  {
    PodQueueState& st = state(id);
    ++st.attempts;
    st.last_attempt = api_.now();
  }
  SchedulerOptions so;
  so.version = options_.version;
  so.preemption = options_.preemption;
  // The class is looked up only when a failure could be reused or kept: a pod that schedules at
  // its first attempt never needs one.
  const bool reusable = last_failure_ && last_failure_->generation == snapshot_.generation() &&
                        last_failure_->priority == r.pod.spec.priority;
  std::optional<std::uint32_t> pod_class = reusable ? classes_.of(r.pod, r.template_id) : std::nullopt;
  std::shared_ptr<const ScheduleResult> failure;
  if (reusable && pod_class == last_failure_->pod_class) {
    failure = last_failure_->result;
  } else {
    ScheduleResult res = schedule_one(r.pod, snapshot_, so);
    if (res.scheduled()) {
      auto node = api_.find_node(res.node_name);
      if (!node) return;  // cannot happen: the snapshot follows the API
      api_.emit(EventType::Normal, "Scheduled", ApiServer::ref(r.pod),
                "Successfully assigned " + r.pod.meta.ns + "/" + r.pod.meta.name + " to " + res.node_name,
                options_.scheduler_name);
      state(id).failure.reset();
      unpark(id);
      set_listed(id, false);
      r.pod.status.nominated_node_name.clear();
      api_.bind(id, *node);
      for (auto& fn : on_scheduled) fn(id, *node);
      return;
    }
    const bool cacheable = !res.preemption;
    failure = std::make_shared<const ScheduleResult>(std::move(res));
    if (cacheable) {
      if (!reusable) pod_class = classes_.of(r.pod, r.template_id);
      if (pod_class)
        last_failure_ = CachedFailure{*pod_class, r.pod.spec.priority, snapshot_.generation(), failure, kNotParked};
    }
  }
  if (api_.log().accepts(options_.scheduler_name, api_.now()))
    api_.emit(EventType::Warning, "FailedScheduling", ApiServer::ref(r.pod), failure->message, options_.scheduler_name);
  if (failure->preemption) {
    r.pod.status.nominated_node_name = failure->preemption->node_name;
    for (const Pod* victim : failure->preemption->victims) {
      auto vid = api_.find_pod(victim->meta.ns, victim->meta.name);
      if (!vid) continue;
      if (kubelet_) kubelet_->delete_pod(*vid);
      else api_.remove_pod(*vid);
    }
  }
  state(id).failure = failure;
  park(id);
  for (auto& fn : on_unschedulable) fn(id, *failure);
}

void SchedulerController::move_to_active_or_backoff(PodId id) {
  PodQueueState& st = state(id);
  if (st.queued) return;
  Duration backoff = options_.initial_backoff;
  for (std::uint32_t i = 1; i < st.attempts && backoff < options_.max_backoff; ++i) backoff = backoff * 2;
  if (backoff > options_.max_backoff) backoff = options_.max_backoff;
  engine::SimTime ready = st.last_attempt + backoff;
  if (ready <= api_.now()) {
    push_active(id);
    return;
  }
  st.queued = true;  // in the back-off queue
  api_.sim().schedule_at(ready, [this, id] {
    PodQueueState& s = state(id);
    if (!s.queued) return;  // bound or deleted meanwhile
    s.queued = false;
    const PodRecord& r = api_.pod(id);
    if (r.deleted || r.node.valid()) return;
    push_active(id);
  });
}

void SchedulerController::flush_unschedulable() {
  // flushUnschedulablePodsLeftover: pods parked longer than podMaxInUnschedulablePodsDuration,
  // read oldest first from the park order (entries of pods that left or parked again are stale).
  const SimTime now = api_.now();
  std::vector<PodId> move;
  while (!park_order_.empty() && now - park_order_.front().since > options_.max_in_unschedulable) {
    const Parked& p = park_order_.front();
    if (parked_member(p.pod, p.serial)) move.push_back(PodId{p.pod});
    park_order_.pop_front();
  }
  std::sort(move.begin(), move.end());  // the order of asking pod by pod
  requeue(std::move(move));
}

bool SchedulerController::parked_member(std::uint32_t pod, std::uint64_t serial) const {
  const PodQueueState& st = pods_[pod];
  return st.group != kNotParked && st.park_serial == serial;
}

std::uint32_t SchedulerController::first_parked(ParkedGroup& group) const {
  // Members before `head` are stale for good (a pod parks again only as a new member at the
  // back), so each is stepped over once: asking a group costs O(1) amortized, not O(members).
  while (!parked_member(group.members[group.head].first, group.members[group.head].second)) ++group.head;
  return group.members[group.head].first;
}

void SchedulerController::drop_stale_members(ParkedGroup& group) const {
  auto& members = group.members;
  members.erase(std::remove_if(members.begin(), members.end(),
                               [&](const auto& m) { return !parked_member(m.first, m.second); }),
                members.end());
  group.head = 0;
}

void SchedulerController::requeue_if(
    const std::function<bool(const Pod& pending, const std::set<std::string>* rejected_by)>& worth) {
  if (parked_ == 0) return;
  std::vector<PodId> move;
  auto rejected_by = [&](std::uint32_t pod) {
    const auto& f = pods_[pod].failure;
    return f ? &f->unschedulable_plugins : nullptr;
  };
  for (std::uint32_t g : live_groups_) {
    // A group's pods share their filter class and rejecting plugins: one answer holds for all.
    ParkedGroup& group = groups_[g];
    const std::uint32_t rep = first_parked(group);
    if (!worth(api_.pod(PodId{rep}).pod, rejected_by(rep))) continue;
    for (std::size_t i = group.head; i < group.members.size(); ++i)
      if (parked_member(group.members[i].first, group.members[i].second)) move.push_back(PodId{group.members[i].first});
  }
  for (std::uint32_t pod : parked_alone_)
    if (worth(api_.pod(PodId{pod}).pod, rejected_by(pod))) move.push_back(PodId{pod});
  std::sort(move.begin(), move.end());  // the order of asking pod by pod
  requeue(std::move(move));
}

void SchedulerController::requeue(std::vector<PodId> pods) {
  for (PodId p : pods) {
    unpark(p);
    move_to_active_or_backoff(p);
  }
}

std::uint32_t SchedulerController::group_of(const Pod& pod, const std::shared_ptr<const ScheduleResult>& failure) {
  const bool cached = last_failure_ && last_failure_->result == failure;
  if (cached && last_failure_->group != kNotParked) return last_failure_->group;
  auto c = classes_.of(pod);
  if (!c) return kParkedAlone;
  std::string key = std::to_string(*c);
  key += '|';
  for (const auto& plugin : failure->unschedulable_plugins) {
    key += plugin;
    key += ',';
  }
  auto [it, added] = group_by_key_.emplace(std::move(key), static_cast<std::uint32_t>(groups_.size()));
  if (added) groups_.emplace_back();
  if (cached) last_failure_->group = it->second;
  return it->second;
}

void SchedulerController::park(PodId id) {
  unpark(id);
  PodQueueState& st = state(id);
  const std::uint32_t g = group_of(api_.pod(id).pod, st.failure);
  st.group = g;
  st.park_serial = ++park_serial_;
  ++parked_;
  if (g == kParkedAlone) {
    parked_alone_.insert(id.v);
  } else {
    ParkedGroup& group = groups_[g];
    if (group.live++ == 0) {
      group.position = live_groups_.size();
      live_groups_.push_back(g);
    }
    // Stale members are dropped when they outnumber the live ones, so a group stays O(live).
    if (group.members.size() > 2 * group.live + 16) drop_stale_members(group);
    group.members.emplace_back(id.v, st.park_serial);
  }
  park_order_.push_back(Parked{api_.now(), id.v, st.park_serial});
  set_listed(id, true);
}

void SchedulerController::unpark(PodId id) {
  PodQueueState& st = state(id);
  if (st.group == kNotParked) return;
  --parked_;
  if (st.group == kParkedAlone) {
    parked_alone_.erase(id.v);
  } else if (ParkedGroup& group = groups_[st.group]; --group.live == 0) {
    group.members.clear();
    group.head = 0;
    // Swap-remove from the live list; the order of live_groups_ never shows (moves are sorted).
    const std::uint32_t last = live_groups_.back();
    live_groups_[group.position] = last;
    groups_[last].position = group.position;
    live_groups_.pop_back();
  }
  st.group = kNotParked;
}

void SchedulerController::set_listed(PodId id, bool listed) {
  PodQueueState& st = state(id);
  if (st.listed == listed) return;
  st.listed = listed;
  ++unschedulable_version_;
  if (listed) unschedulable_.insert(id.v);
  else unschedulable_.erase(id.v);
}

std::vector<PodId> SchedulerController::unschedulable_pods() const {
  // Pods waiting out a back-off or queued again after a failure are still unschedulable to an
  // autoscaler: the set holds every pod from its first failure until it binds or goes away.
  std::vector<PodId> out;
  out.reserve(unschedulable_.size());
  for (std::uint32_t pod : unschedulable_) out.push_back(PodId{pod});
  return out;
}

const ScheduleResult* SchedulerController::last_failure(PodId pod) const {
  return pod.v < pods_.size() ? pods_[pod.v].failure.get() : nullptr;
}

}  // namespace eksim::k8s
