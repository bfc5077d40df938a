#include "models/k8s/controllers/daemonset_controller.hpp"

#include <algorithm>

#include "models/k8s/controllers/garbage_collector.hpp"
#include "models/k8s/kubelet/kubelet.hpp"
#include "models/k8s/kubelet/node_lifecycle.hpp"
#include "models/k8s/api/pod_factory.hpp"
#include "models/k8s/scheduling/predicates.hpp"

namespace eksim::k8s {

namespace {
using k8s::EventType;
constexpr const char* kDaemonSetController = "daemonset-controller";

void add_toleration(PodSpec& spec, const std::string& key, const std::string& effect) {
  for (const auto& t : spec.tolerations)
    if (t.key == key && t.op == "Exists" && t.effect == effect) return;
  spec.tolerations.push_back(Toleration{key, "Exists", "", effect, std::nullopt});
}
}  // namespace

void add_daemon_pod_tolerations(PodSpec& spec) {
  add_toleration(spec, kTaintNotReady, kNoExecute);
  add_toleration(spec, kTaintUnreachable, kNoExecute);
  add_toleration(spec, "node.kubernetes.io/disk-pressure", kNoSchedule);
  add_toleration(spec, "node.kubernetes.io/memory-pressure", kNoSchedule);
  add_toleration(spec, "node.kubernetes.io/pid-pressure", kNoSchedule);
  add_toleration(spec, kTaintUnschedulable, kNoSchedule);
  if (spec.host_network) add_toleration(spec, "node.kubernetes.io/network-unavailable", kNoSchedule);
}

DaemonPlacement node_should_run_daemon_pod(const DaemonSet& ds, const Node& node) {
  PodSpec spec = ds.tmpl.spec;
  add_daemon_pod_tolerations(spec);
  return node_should_run_daemon_pod(spec, node);
}

DaemonPlacement node_should_run_daemon_pod(const PodSpec& spec, const Node& node) {
  if (!spec.node_name.empty() && spec.node_name != node.meta.name) return {};
  if (!pod_matches_node_selector_and_affinity(spec, node)) return {};
  if (!find_untolerated_taint(node.taints, spec.tolerations)) return {true, true};
  // Untolerated NoSchedule taints keep a running daemon pod; NoExecute ones evict it.
  for (const auto& t : node.taints) {
    if (t.effect != kNoExecute) continue;
    if (!tolerations_tolerate_taint(spec.tolerations, t)) return {false, false};
  }
  return {false, true};
}

DaemonSetController::DaemonSetController(ApiServer& api, Kubelet* kubelet) : api_(api), kubelet_(kubelet) {
  api_.on_node.push_back([this](NodeId id, NodeChange) {
    dirty_nodes_.insert(id);
    enqueue();
  });
  auto ours = [this](PodId id) {
    const Pod& p = api_.pod(id).pod;
    for (const auto& o : p.meta.owner_references)
      if (o.kind == "DaemonSet") return true;
    return false;
  };
  // The node a daemon pod was made for (its metadata.name node affinity).
  auto target = [this](PodId id) {
    const auto& req = api_.pod(id).pod.spec.affinity.node_required;
    if (req)
      for (const auto& term : *req)
        for (const auto& f : term.match_fields)
          if (f.key == kFieldMetadataName && !f.values.empty()) dirty_names_.insert(f.values[0]);
  };
  api_.on_pod_deleted.push_back([this, ours, target](PodId id) {
    if (!ours(id)) return;
    target(id);
    enqueue();
  });
  api_.on_pod_phase.push_back([this, ours, target](PodId id) {
    if (!ours(id) || api_.pod(id).pod.status.phase != PodPhase::Failed) return;
    target(id);
    enqueue();
  });
}

std::size_t DaemonSetController::apply(DaemonSet ds) {
  if (ds.meta.ns.empty()) ds.meta.ns = "default";
  if (ds.meta.uid.empty()) ds.meta.uid = api_.new_uid();
  ds.meta.creation_timestamp = api_.now();
  api_.daemon_sets().push_back(std::move(ds));
  std::size_t idx = api_.daemon_sets().size() - 1;
  pods_[idx];
  reconcile(idx);
  return idx;
}

bool DaemonSetController::remove(const std::string& ns, const std::string& name) {
  auto& sets = api_.daemon_sets();
  for (std::size_t i = 0; i < sets.size(); ++i) {
    if (sets[i].deleted || sets[i].meta.ns != ns || sets[i].meta.name != name) continue;
    sets[i].deleted = true;
    std::vector<PodId> pods;
    for (const auto& [node, p] : pods_[i]) pods.push_back(p);
    delete_dependents(api_, kubelet_, pods);
    return true;
  }
  return false;
}

const PodSpec& DaemonSetController::daemon_spec(std::size_t index) const {
  while (daemon_specs_.size() <= index) {
    daemon_specs_.push_back(api_.daemon_sets()[daemon_specs_.size()].tmpl.spec);
    add_daemon_pod_tolerations(daemon_specs_.back());
  }
  return daemon_specs_[index];
}

int DaemonSetController::desired_number_scheduled(std::size_t index) const {
  const DaemonSet& ds = api_.daemon_sets()[index];
  if (ds.deleted) return 0;
  int n = 0;
  for (std::size_t i = 0; i < api_.node_slots(); ++i) {
    const NodeRecord& r = api_.node(NodeId{static_cast<std::uint32_t>(i)});
    if (!r.deleted && node_should_run_daemon_pod(daemon_spec(index), r.node).should_run) ++n;
  }
  return n;
}

std::optional<PodId> DaemonSetController::pod_on(std::size_t index, const std::string& node) const {
  auto it = pods_.find(index);
  if (it == pods_.end()) return std::nullopt;
  auto p = it->second.find(node);
  if (p == it->second.end()) return std::nullopt;
  return p->second;
}

void DaemonSetController::enqueue() {
  if (queued_) return;
  queued_ = true;
  api_.sim().schedule(engine::Duration{}, [this] {
    queued_ = false;
    reconcile_all();
  });
}

void DaemonSetController::reconcile_all() {
  std::set<std::string> names = std::move(dirty_names_);
  dirty_names_.clear();
  std::set<NodeId> ids = std::move(dirty_nodes_);
  dirty_nodes_.clear();
  for (const auto& n : names)
    if (auto id = api_.find_node(n)) ids.insert(*id);
  std::vector<NodeId> nodes(ids.begin(), ids.end());  // slot order, as a full pass walks them
  for (std::size_t i = 0; i < api_.daemon_sets().size(); ++i) reconcile(i, names, nodes);
}

void DaemonSetController::reconcile(std::size_t index) {
  const DaemonSet& ds = api_.daemon_sets()[index];
  if (ds.deleted) return;
  auto& mine = pods_[index];
  // Drop pods that are gone; delete failed ones (they are recreated on the next pass).
  for (auto it = mine.begin(); it != mine.end();) {
    const PodRecord& r = api_.pod(it->second);
    if (r.deleted) {
      it = mine.erase(it);
      continue;
    }
    if (r.pod.status.phase == PodPhase::Failed && !r.terminating) kill_failed_pod(index, it->first, it->second);
    ++it;
  }
  for (std::size_t i = 0; i < api_.node_slots(); ++i) sync_node(index, NodeId{static_cast<std::uint32_t>(i)});
}

void DaemonSetController::reconcile(std::size_t index, const std::set<std::string>& names, const std::vector<NodeId>& nodes) {
  const DaemonSet& ds = api_.daemon_sets()[index];
  if (ds.deleted) return;
  auto& mine = pods_[index];
  // Drop pods that are gone; delete failed ones (they are recreated on the next pass).
  for (const auto& n : names) {
    auto it = mine.find(n);
    if (it == mine.end()) continue;
    const PodRecord& r = api_.pod(it->second);
    if (r.deleted) {
      mine.erase(it);
      continue;
    }
    if (r.pod.status.phase == PodPhase::Failed && !r.terminating) kill_failed_pod(index, n, it->second);
  }
  for (NodeId nid : nodes) sync_node(index, nid);
}

void DaemonSetController::delete_daemon_pod(std::size_t index, PodId p) {
  const DaemonSet& ds = api_.daemon_sets()[index];
  api_.emit(EventType::Normal, "SuccessfulDelete", {"DaemonSet", ds.meta.ns, ds.meta.name},
            "Deleted pod: " + api_.pod(p).pod.meta.name, kDaemonSetController);
  if (kubelet_) kubelet_->delete_pod(p);
  else api_.remove_pod(p);
}

void DaemonSetController::kill_failed_pod(std::size_t index, const std::string& node, PodId p) {
  static constexpr engine::Duration kInitial = engine::Duration::seconds(1), kMax = engine::Duration::minutes(15);
  const engine::SimTime now = api_.now();
  auto [it, fresh] = failed_backoff_.try_emplace({index, node});
  FailedPodsBackoff& b = it->second;
  const bool expired = !fresh && now - b.last_update > kMax * 2;
  if (!fresh && !expired && now - b.last_update < b.backoff) {
    // enqueueDaemonSetAfter(ds, failedPodsBackoff.Get(key)): the whole back-off again, from now.
    api_.sim().schedule(b.backoff, [this, node] {
      dirty_names_.insert(node);
      enqueue();
    });
    return;
  }
  b.backoff = fresh || expired ? kInitial : std::min(b.backoff * 2, kMax);
  b.last_update = now;
  const DaemonSet& ds = api_.daemon_sets()[index];
  const Pod& pod = api_.pod(p).pod;
  api_.emit(EventType::Warning, "FailedDaemonPod", {"DaemonSet", ds.meta.ns, ds.meta.name},
            "Found failed daemon pod " + pod.meta.ns + "/" + pod.meta.name + " on node " + node + ", will try to kill it",
            kDaemonSetController);
  delete_daemon_pod(index, p);
}

// One node of one DaemonSet: delete the daemon pod that must not keep running there, or create
// the one that should run and does not.
void DaemonSetController::sync_node(std::size_t index, NodeId nid) {
  const NodeRecord& nr = api_.node(nid);
  if (nr.deleted) return;
  const DaemonSet& ds = api_.daemon_sets()[index];
  auto& mine = pods_[index];
  const std::string& node = nr.node.meta.name;
  DaemonPlacement place = node_should_run_daemon_pod(daemon_spec(index), nr.node);
  auto have = mine.find(node);
  if (have != mine.end()) {
    const PodRecord& r = api_.pod(have->second);
    if (!place.should_continue_running && !r.terminating) delete_daemon_pod(index, have->second);
    return;
  }
  if (!place.should_run) return;
  Pod p = pod_from_template(api_, ds.tmpl, ds.meta.ns, ds.meta.name + "-", {"DaemonSet", ds.meta.name, true});
  p.spec.tolerations = daemon_spec(index).tolerations;  // shared with every pod of the DaemonSet
  NodeSelectorTerm term;
  term.match_fields.push_back(NodeSelectorRequirement{kFieldMetadataName, "In", {node}});
  p.spec.affinity.node_required = std::vector<NodeSelectorTerm>{term};
  std::string name = p.meta.name;
  PodId id = api_.create_pod(std::move(p));
  mine[node] = id;
  api_.emit(EventType::Normal, "SuccessfulCreate", {"DaemonSet", ds.meta.ns, ds.meta.name}, "Created pod: " + name, kDaemonSetController);
}

}  // namespace eksim::k8s
