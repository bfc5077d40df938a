#include "models/k8s/daemonset_controller.hpp"

#include <algorithm>

#include "models/k8s/kubelet.hpp"
#include "models/k8s/node_lifecycle.hpp"
#include "models/k8s/pod_factory.hpp"
#include "models/k8s/scheduling/predicates.hpp"

namespace eksim::k8s {

namespace {
using engine::EventType;
constexpr const char* kSource = "daemonset-controller";

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

namespace {

// nodeShouldRunDaemonPod for the DaemonSet's pod spec with the daemon tolerations already added.
DaemonPlacement placement(const PodSpec& spec, const Node& node) {
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

PodSpec daemon_pod_spec(const DaemonSet& ds) {
  PodSpec spec = ds.tmpl.spec;
  add_daemon_pod_tolerations(spec);
  return spec;
}

}  // namespace

DaemonPlacement node_should_run_daemon_pod(const DaemonSet& ds, const Node& node) {
  return placement(daemon_pod_spec(ds), node);
}

DaemonSetController::DaemonSetController(ApiServer& api, Kubelet* kubelet) : api_(api), kubelet_(kubelet) {
  api_.on_node.push_back([this](NodeId id, NodeChange) {
    dirty_.insert(id);
    enqueue();
  });
  auto ours = [this](PodId id) {
    const Pod& p = api_.pod(id).pod;
    for (const auto& o : p.meta.owner_references)
      if (o.kind == "DaemonSet") return true;
    return false;
  };
  auto pod_changed = [this](PodId id) {
    const PodRecord& r = api_.pod(id);
    if (r.node.valid()) dirty_.insert(r.node);
    else all_dirty_ = true;
    enqueue();
  };
  api_.on_pod_deleted.push_back([ours, pod_changed](PodId id) {
    if (ours(id)) pod_changed(id);
  });
  api_.on_pod_phase.push_back([this, ours, pod_changed](PodId id) {
    if (ours(id) && api_.pod(id).pod.status.phase == PodPhase::Failed) pod_changed(id);
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

void DaemonSetController::remove(std::size_t index) {
  api_.daemon_sets()[index].deleted = true;
  auto pods = pods_[index];
  for (const auto& [node, p] : pods) {
    if (kubelet_) kubelet_->delete_pod(p);
    else api_.remove_pod(p);
  }
}

int DaemonSetController::desired_number_scheduled(std::size_t index) const {
  const DaemonSet& ds = api_.daemon_sets()[index];
  if (ds.deleted) return 0;
  int n = 0;
  const PodSpec spec = daemon_pod_spec(ds);
  for (std::size_t i = 0; i < api_.node_slots(); ++i) {
    const NodeRecord& r = api_.node(NodeId{static_cast<std::uint32_t>(i)});
    if (!r.deleted && placement(spec, r.node).should_run) ++n;
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
  std::set<NodeId> nodes = std::move(dirty_);
  dirty_.clear();
  bool all = all_dirty_;
  all_dirty_ = false;
  for (std::size_t i = 0; i < api_.daemon_sets().size(); ++i) reconcile(i, all ? nullptr : &nodes);
}

void DaemonSetController::reconcile(std::size_t index, const std::set<NodeId>* nodes) {
  DaemonSet& ds = api_.daemon_sets()[index];
  if (ds.deleted) return;
  const PodSpec spec = daemon_pod_spec(ds);
  auto& mine = pods_[index];
  engine::ObjectRef ref{"DaemonSet", ds.meta.ns, ds.meta.name};
  auto delete_pod = [&](PodId p) {
    api_.emit(EventType::Normal, "SuccessfulDelete", ref, "Deleted pod: " + api_.pod(p).pod.meta.name, kSource);
    if (kubelet_) kubelet_->delete_pod(p);
    else api_.remove_pod(p);
  };
  // Drop pods that are gone; delete failed ones (they are recreated on the next pass).
  for (auto it = mine.begin(); it != mine.end();) {
    const PodRecord& r = api_.pod(it->second);
    if (r.deleted) {
      it = mine.erase(it);
      continue;
    }
    if (r.pod.status.phase == PodPhase::Failed && !r.terminating) delete_pod(it->second);
    ++it;
  }
  std::vector<NodeId> ids;
  if (nodes) ids.assign(nodes->begin(), nodes->end());
  else
    for (std::size_t i = 0; i < api_.node_slots(); ++i) ids.push_back(NodeId{static_cast<std::uint32_t>(i)});
  for (NodeId node_id : ids) {
    const NodeRecord& nr = api_.node(node_id);
    if (nr.deleted) continue;
    const std::string& node = nr.node.meta.name;
    DaemonPlacement place = placement(spec, nr.node);
    auto have = mine.find(node);
    if (have != mine.end()) {
      const PodRecord& r = api_.pod(have->second);
      if (!place.should_continue_running && !r.terminating) delete_pod(have->second);
      continue;
    }
    if (!place.should_run) continue;
    Pod p = pod_from_template(api_, ds.tmpl, ds.meta.ns, ds.meta.name + "-", {"DaemonSet", ds.meta.name, true});
    add_daemon_pod_tolerations(p.spec);
    NodeSelectorTerm term;
    term.match_fields.push_back(NodeSelectorRequirement{"metadata.name", "In", {node}});
    p.spec.affinity.node_required = std::vector<NodeSelectorTerm>{term};
    std::string name = p.meta.name;
    PodId id = api_.create_pod(std::move(p));
    mine[node] = id;
    api_.emit(EventType::Normal, "SuccessfulCreate", ref, "Created pod: " + name, kSource);
  }
}

}  // namespace eksim::k8s
