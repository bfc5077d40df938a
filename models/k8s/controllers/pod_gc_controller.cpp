#include "models/k8s/controllers/pod_gc_controller.hpp"

namespace eksim::k8s {

namespace {
bool terminal(PodPhase p) { return p == PodPhase::Succeeded || p == PodPhase::Failed; }
}  // namespace

PodGcController::PodGcController(ApiServer& api, PodGcOptions options) : api_(api), options_(options) {
  api_.on_pod_phase.push_back([this](PodId id) {
    const PodRecord& r = api_.pod(id);
    if (r.deleted || !terminal(r.pod.status.phase) || key_by_slot_.count(id.v)) return;
    Key k = key_of(id);
    terminated_.insert(k);
    key_by_slot_.emplace(id.v, k);
  });
  api_.on_pod_deleted.push_back([this](PodId id) {
    auto it = key_by_slot_.find(id.v);
    if (it == key_by_slot_.end()) return;
    terminated_.erase(it->second);
    key_by_slot_.erase(it);
  });
  api_.on_node.push_back([this](NodeId id, NodeChange change) {
    if (change != NodeChange::Deleted || api_.node(id).pods.empty()) return;
    // The pass that finds the node quarantined long enough: passes run every gc_check_period
    // from the start.
    const std::int64_t period = options_.gc_check_period.us;
    const std::int64_t due = (api_.now() + options_.quarantine_time).us;
    const engine::SimTime pass{(due + period - 1) / period * period};
    api_.sim().schedule(pass - api_.now(), [this, id] { gc_orphaned(id); });
  });
  if (options_.terminated_pod_gc_threshold > 0)
    api_.sim().every(options_.gc_check_period, [this] { gc_terminated(); });
}

PodGcController::Key PodGcController::key_of(PodId id) const {
  const Pod& p = api_.pod(id).pod;
  // Eviction is recorded by the kubelet as reason "Evicted" on a Failed pod.
  bool evicted = p.status.phase == PodPhase::Failed && p.status.reason == "Evicted";
  return {!evicted, p.meta.creation_timestamp.us, id.v};
}

void PodGcController::gc_terminated() {
  if (options_.terminated_pod_gc_threshold <= 0) return;  // 0 disables it, as upstream
  auto limit = static_cast<std::size_t>(options_.terminated_pod_gc_threshold);
  while (terminated_.size() > limit) {
    PodId id{std::get<2>(*terminated_.begin())};
    api_.remove_pod(id);  // the deletion notification drops it from the set
    api_.compact_removed_pod(id);
  }
}

void PodGcController::gc_orphaned(NodeId node) {
  if (!api_.node(node).deleted) return;  // upstream checks the Node is still gone
  std::vector<PodId> orphans = api_.node(node).pods;  // copy: removal edits the list
  for (PodId p : orphans) api_.remove_pod(p);
}

}  // namespace eksim::k8s
