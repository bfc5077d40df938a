#include "models/autoscaling/cas/simulator/cluster_snapshot.hpp"

namespace eksim::autoscaling::cas {

// --- NodeInfoCache ----------------------------------------------------------------------------

NodeInfoCache::NodeInfoCache(k8s::ApiServer& api) : api_(api) {
  for (std::size_t i = 0; i < api_.node_slots(); ++i) {
    k8s::NodeId id{static_cast<std::uint32_t>(i)};
    if (!api_.node(id).deleted) live_.insert(id);
  }
  for (std::size_t i = 0; i < api_.pod_slots(); ++i) {
    k8s::PodId id{static_cast<std::uint32_t>(i)};
    if (!api_.pod(id).deleted) live_pods_.insert(id);
  }
  api_.on_pod_added.push_back([this](k8s::PodId p) {
    ++version_;
    live_pods_.insert(p);
  });
  api_.on_pod_updated.push_back([this](k8s::PodId) { ++version_; });
  api_.on_pod_terminating.push_back([this](k8s::PodId) { ++version_; });
  api_.on_node.push_back([this](k8s::NodeId id, k8s::NodeChange change) {
    ++version_;
    if (change == k8s::NodeChange::Deleted) {
      // The NodeInfo may still be shared by a simulation in progress: freed by collect().
      live_.erase(id);
      deleted_.push_back(id);
      return;
    }
    if (change == k8s::NodeChange::Added) live_.insert(id);
    mark(id, true);
  });
  auto pod_changed = [this](k8s::PodId p) {
    ++version_;
    const k8s::PodRecord& r = api_.pod(p);
    if (r.node.valid()) mark(r.node, false);
  };
  api_.on_pod_bound.push_back(pod_changed);
  api_.on_pod_phase.push_back(pod_changed);
  api_.on_pod_deleted.push_back([this, pod_changed](k8s::PodId p) {
    live_pods_.erase(p);
    pod_changed(p);
  });
}

void NodeInfoCache::mark(k8s::NodeId id, bool node) {
  if (id.v >= entries_.size()) return;
  Entry& e = entries_[id.v];
  e.pods_dirty = true;
  if (node) e.node_dirty = true;
}

void NodeInfoCache::collect() {
  for (k8s::NodeId id : deleted_)
    if (id.v < entries_.size() && !live_.count(id)) entries_[id.v] = Entry{};
  deleted_.clear();
}

const k8s::NodeInfo& NodeInfoCache::get(k8s::NodeId id) {
  if (id.v >= entries_.size()) entries_.resize(id.v + 1);
  Entry& e = entries_[id.v];
  if (!e.info || e.node_dirty || e.pods_dirty) {
    const k8s::NodeRecord& rec = api_.node(id);
    // make_node_info(rec.node, pods), keeping the Node copy when only pods changed.
    k8s::NodeInfo info;
    if (e.info && !e.node_dirty) info.node = std::move(e.info->node);
    else info.node = rec.node;
    info.pods.reserve(rec.pods.size());
    for (k8s::PodId p : rec.pods)
      if (!api_.pod(p).deleted) k8s::add_pod(info, api_.pod(p).pod);
    e.info = std::move(info);
    e.node_dirty = e.pods_dirty = false;
    e.util[0].reset();
    e.util[1].reset();
    ++rebuilds_;
  }
  return *e.info;
}

const Utilization& NodeInfoCache::utilization(k8s::NodeId id, bool gpu_expected) {
  const k8s::NodeInfo& info = get(id);
  auto& u = entries_[id.v].util[gpu_expected ? 1 : 0];
  if (!u) u = node_utilization(info, gpu_expected);
  return *u;
}

// --- SnapshotFork -----------------------------------------------------------------------------

std::size_t SnapshotFork::add_shared(const k8s::NodeInfo* info) {
  pods_with_required_anti_affinity_ += info->pods_with_required_anti_affinity;
  view_.push_back(info);
  owned_.push_back(nullptr);
  saved_.push_back(false);
  return view_.size() - 1;
}

std::size_t SnapshotFork::add_owned(k8s::NodeInfo info) {
  pods_with_required_anti_affinity_ += info.pods_with_required_anti_affinity;
  storage_.push_back(std::move(info));
  view_.push_back(&storage_.back());
  owned_.push_back(&storage_.back());
  saved_.push_back(false);
  return view_.size() - 1;
}

k8s::NodeInfo& SnapshotFork::writable(std::size_t i) {
  if (forked_ && !saved_[i]) {
    saved_[i] = true;
    Saved s{i, view_[i], owned_[i], std::nullopt};
    if (owned_[i]) s.before = *owned_[i];
    undo_.push_back(std::move(s));
  }
  if (!owned_[i]) {
    storage_.push_back(*view_[i]);
    owned_[i] = &storage_.back();
    view_[i] = owned_[i];
  }
  return *owned_[i];
}

void SnapshotFork::add_pod(std::size_t i, const k8s::Pod& pod) {
  k8s::NodeInfo& node = writable(i);
  const int before = node.pods_with_required_anti_affinity;
  k8s::add_pod(node, pod);
  pods_with_required_anti_affinity_ += node.pods_with_required_anti_affinity - before;
}

void SnapshotFork::fork() {
  before_trial_ = pods_with_required_anti_affinity_;
  forked_ = true;
  undo_.clear();
}

void SnapshotFork::revert() {
  for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) {
    if (it->before) *it->owned = std::move(*it->before);
    owned_[it->index] = it->owned;
    view_[it->index] = it->view;
    saved_[it->index] = false;
  }
  undo_.clear();
  forked_ = false;
  pods_with_required_anti_affinity_ = before_trial_;
}

void SnapshotFork::commit() {
  for (const auto& s : undo_) saved_[s.index] = false;
  undo_.clear();
  forked_ = false;
}

// --- FirstFitMemo -----------------------------------------------------------------------------

FirstFitMemo::FirstFitMemo(k8s::NodeInfoView all) {
  for (const k8s::NodeInfo* n : all)
    if (n->pods_with_required_anti_affinity > 0) off_ = true;
}

bool FirstFitMemo::applies(const k8s::Pod& pod) {
  const auto& a = pod.spec.affinity;
  return pod.spec.topology_spread_constraints.empty() && a.pod_affinity_required.empty() &&
         a.pod_anti_affinity_required.empty();
}

std::size_t FirstFitMemo::start(const k8s::Pod& pod, std::uint32_t template_id) const {
  if (off_ || !applies(pod)) return 0;
  for (const auto& e : entries_)
    if (e.template_id == template_id) return e.end;
  return 0;
}

void FirstFitMemo::record(const k8s::Pod& pod, std::uint32_t template_id, std::size_t end) {
  // A placed pod with required anti-affinity makes labels matter for every later pod.
  if (!pod.spec.affinity.pod_anti_affinity_required.empty()) off_ = true;
  if (off_ || !applies(pod)) return;
  for (auto& e : entries_)
    if (e.template_id == template_id) {
      e.end = end;
      return;
    }
  if (entries_.size() < 64) entries_.push_back({template_id, end});
}

// --- PodFitter --------------------------------------------------------------------------------

bool has_room(const k8s::PodSchedulingInfo& pod, const k8s::NodeInfo& node) {
  if (node.pod_count() + 1 > node.node.allocatable.get(k8s::kPods)) return false;
  for (const auto& [name, amount] : pod.requests.items())
    if (amount > 0 && amount > node.node.allocatable.get(name) - node.requested.get(name)) return false;
  return true;
}

PodFitter::PodFitter(const k8s::Pod& pod, k8s::NodeInfoView all, const k8s::SchedulerOptions& options,
                     std::optional<bool> any_existing_anti_affinity)
    : pod_(pod),
      info_(k8s::pod_scheduling_info(pod)),
      state_(k8s::pre_filter(pod, info_, all, any_existing_anti_affinity)),
      options_(options) {}

bool PodFitter::fits(const k8s::NodeInfo& node) const {
  return has_room(info_, node) && k8s::run_filters(pod_, info_, state_, node, options_).ok();
}

k8s::FilterResult PodFitter::check(const k8s::NodeInfo& node) const {
  return k8s::run_filters(pod_, info_, state_, node, options_);
}

}  // namespace eksim::autoscaling::cas
