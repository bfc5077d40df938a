// Cluster state (pkg/controllers/state/cluster.go): the snapshot of StateNodes the scheduling
// simulations see, kept current from the node and pod notifications, what disruption reads from
// a node's pods, and the nodes marked for deletion.
#include <algorithm>

#include "models/autoscaling/karpenter/internal.hpp"
#include "models/autoscaling/karpenter/state/cluster.hpp"

namespace eksim::autoscaling::karpenter::state {

using namespace detail;

void Cluster::rebuild_state_node(StateNode& s, const k8s::NodeRecord& rec, const NodeClaimState* claim) {
  auto& api = world.api;
  std::vector<const k8s::Pod*> pods;
  for (k8s::PodId p : rec.pods)
    if (k8s::pod_active(api.pod(p))) pods.push_back(&api.pod(p).pod);
  ExistingNode e;
  e.node_name = rec.node.meta.name;
  e.info = k8s::make_node_info(rec.node, pods);
  if (claim) {
    e.nodeclaim = claim->name;
    e.initialized = claim->phase == NodeClaimPhase::Initialized;
    if (!e.initialized) {
      // Uninitialized Karpenter nodes count with the NodeClaim's expected resources, and the
      // taints that go away during startup are ignored (KnownEphemeralTaints, startupTaints).
      std::erase_if(e.info.node.taints, [&](const k8s::Taint& t) {
        return t.key == k8s::kTaintNotReady || t.key == k8s::kTaintUnreachable || t.key == kTaintUnregistered ||
               has_taint(claim->startup_taints, t.key);
      });
      for (const auto& [r, v] : claim->allocatable.items())
        if (e.info.node.allocatable.get(r) < v) e.info.node.allocatable.set(r, v);
    }
  }
  s.node = std::move(e);
  s.fits.clear();
  s.dirty = false;
}

std::vector<std::uint32_t> Cluster::positions_of(const std::vector<k8s::NodeId>& ids) {
  std::vector<std::uint32_t> out;
  for (k8s::NodeId id : ids) {
    auto it = nodes.find(id.v);
    if (it == nodes.end()) continue;
    if (auto pos = position(it->second)) out.push_back(*pos);
  }
  return out;
}

ExistingNode Cluster::launched_claim_node(const NodeClaimState& c) {
  // A NodeClaim launched but not registered has no Node yet: it counts with what it will offer,
  // less its DaemonSet pods.
  k8s::Node n;
  n.meta.name = c.name;
  n.meta.labels = c.labels;
  n.taints = c.taints;
  n.allocatable = c.allocatable;
  n.capacity = c.capacity;
  n.ready = true;
  ExistingNode e;
  e.nodeclaim = c.name;
  e.initialized = false;
  e.info = k8s::make_node_info(n);
  e.info.requested += c.daemon_overhead;
  return e;
}

Snapshot& Cluster::snapshot() {
  if (snapshot_ && snapshot_->version == version) return *snapshot_;
  revisit_changed_nodes();
  track_launched_claims();
  auto snap = std::make_unique<Snapshot>();
  snap->version = version;
  snap->any_required_anti_affinity = anti_affinity_nodes > 0;
  snap->nodes.reserve(ordered[0].size() + ordered[1].size());
  snap->nodes.insert(snap->nodes.end(), ordered[0].begin(), ordered[0].end());
  snap->nodes.insert(snap->nodes.end(), ordered[1].begin(), ordered[1].end());
  if (snap->any_required_anti_affinity)
    for (std::uint32_t pos = 0; pos < snap->nodes.size(); ++pos)
      if (snap->nodes[pos]->node.info.pods_with_required_anti_affinity > 0)
        for (const k8s::Pod* p : snap->nodes[pos]->node.info.pods)
          if (!p->spec.affinity.pod_anti_affinity_required.empty()) snap->anti_affinity_pods.emplace_back(pos, p);
  snapshot_ = std::move(snap);
  return *snapshot_;
}

void Cluster::revisit_changed_nodes() {
  auto& api = world.api;
  // StateNodes for the nodes a notification touched (and new ones): rebuilt where something
  // changed. A node marked for deletion (the karpenter.sh/disrupted taint, or its NodeClaim
  // deleting) is not capacity. Deleted nodes leave first, then the rest in NodeId order, as a
  // scan of every node would meet them.
  for (; seen_node_slots_ < api.node_slots(); ++seen_node_slots_) mark_changed(seen_node_slots_);
  std::vector<std::uint32_t> touched = std::move(changed);
  changed.clear();
  std::sort(touched.begin(), touched.end());
  for (std::uint32_t id : touched) {
    changed_flag[id] = false;
    if (!api.node(k8s::NodeId{id}).deleted) continue;
    auto it = nodes.find(id);
    if (it != nodes.end()) {
      reorder(it->second, false);
      nodes.erase(it);
    }
  }
  for (std::uint32_t id : touched) {
    const k8s::NodeRecord& rec = api.node(k8s::NodeId{id});
    if (rec.deleted) continue;
    const NodeClaimState* claim = claim_of_node(id);
    StateNode& s = nodes[id];
    const std::uint64_t stamp = node_stamp(id) + 1;
    const int phase = claim ? static_cast<int>(claim->phase) : -1;
    if (!s.dirty && s.seen_stamp == stamp && s.seen_phase == phase) continue;  // as the last snapshot left it
    s.seen_stamp = stamp;
    s.seen_phase = phase;
    bool usable = !has_taint(rec.node.taints, kTaintDisrupted) && !(claim && claim->deleting_or_deleted());
    if (usable && (s.dirty || s.node.initialized != (claim && claim->phase == NodeClaimPhase::Initialized) ||
                   s.node.nodeclaim != (claim ? claim->name : std::string())))
      rebuild_state_node(s, rec, claim);
    reorder(s, usable);
  }
}

void Cluster::track_launched_claims() {
  // Launched but not registered: no Node object yet, so it counts by its NodeClaim.
  for (auto it = launched.begin(); it != launched.end();) {
    const NodeClaimState& c = node_claims[it->first];
    if (c.phase != NodeClaimPhase::Launched || c.registered_at) {
      reorder(it->second, false);
      it = launched.erase(it);
    } else {
      ++it;
    }
  }
  for (std::size_t idx : live_claims()) {
    const NodeClaimState& c = node_claims[idx];
    if (c.phase != NodeClaimPhase::Launched || c.registered_at) continue;
    auto [it, inserted] = launched.try_emplace(idx);
    if (!inserted) continue;
    it->second.identity = (std::uint64_t{1} << 32) | idx;
    it->second.node = launched_claim_node(c);
    it->second.dirty = false;
    reorder(it->second, true);
  }
}

std::vector<ExistingNode> Cluster::cached_simulation_nodes() {
  std::vector<ExistingNode> out;
  for (const StateNode* s : snapshot().nodes) out.push_back(s->node);
  return out;
}

std::vector<ExistingNode> Cluster::rebuilt_simulation_nodes() {
  // What every pass computed before the cache: each live node with its active pods, then the
  // NodeClaims launched but not registered, sorted as the scheduler tries them.
  std::vector<ExistingNode> out;
  auto& api = world.api;
  for (std::size_t i = 0; i < api.node_slots(); ++i) {
    const k8s::NodeRecord& rec = api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
    if (rec.deleted || has_taint(rec.node.taints, kTaintDisrupted)) continue;
    const NodeClaimState* claim = nullptr;
    for (const auto& c : node_claims)
      if (!rec.instance_id.empty() && c.instance_id == rec.instance_id) {
        claim = &c;
        break;
      }
    if (claim && (claim->phase == NodeClaimPhase::Deleting || claim->phase == NodeClaimPhase::Deleted)) continue;
    StateNode s;
    rebuild_state_node(s, rec, claim);
    out.push_back(std::move(s.node));
  }
  for (const auto& c : node_claims)
    if (c.phase == NodeClaimPhase::Launched && !c.registered_at) out.push_back(launched_claim_node(c));
  ExistingNodeVector order(out);
  std::vector<ExistingNode> sorted;
  for (std::size_t i = 0; i < order.size(); ++i) sorted.push_back(order.get(i));
  return sorted;
}

void Cluster::state_changed(k8s::NodeId node) {
  touch();
  if (!node.valid()) return;
  dirty(node.v);
  mark_changed(node.v);
  ++node_stamp(node.v);
}

NodePods& Cluster::node_pods(k8s::NodeId node) {
  const std::uint64_t stamp = node_stamp(node.v) + 1;  // 0 = never computed
  if (node.v >= node_pods_.size()) node_pods_.resize(node.v + 1);
  NodePods& m = node_pods_[node.v];
  if (m.stamp == stamp) return m;
  auto dnd = [](const k8s::Labels& a) {
    auto it = a.find(kAnnotationDoNotDisrupt);
    return it != a.end() && it->second == "true";
  };
  const k8s::NodeRecord& rec = world.api.node(node);
  m = NodePods{};
  m.stamp = stamp;
  m.blocks = dnd(rec.node.meta.annotations);
  for (k8s::PodId p : rec.pods) {
    const auto& r = world.api.pod(p);
    if (!reschedulable(r)) continue;
    ++m.reschedulable;
    m.reschedulable_ids.push_back(p);
    m.blocks |= dnd(r.pod.meta.annotations);
  }
  return m;
}

const std::optional<std::vector<std::uint32_t>>& Cluster::pod_classes_of(k8s::NodeId node) {
  NodePods& m = node_pods(node);
  if (m.classes_known) return m.classes;
  m.classes_known = true;
  std::vector<std::uint32_t> out;
  for (k8s::PodId p : m.reschedulable_ids) {
    const k8s::PodRecord& r = world.api.pod(p);
    const auto k = classes.of(r.pod, r.template_id);
    if (!k) {
      m.classes.reset();
      return m.classes;
    }
    if (std::find(out.begin(), out.end(), *k) == out.end()) out.push_back(*k);
  }
  m.classes = std::move(out);
  return m.classes;
}

void Cluster::pod_moved(k8s::NodeId node) {
  if (!node.valid()) return;
  if (NodeClaimState* c = claim_by_instance(world.api.node(node).instance_id)) c->last_pod_event = world.sim.now();
}

void Cluster::update_node(k8s::NodeId node) {
  in_node_update = true;
  world.api.node_changed(node, k8s::NodeChange::Updated);
  in_node_update = false;
}

bool Cluster::marked_for_deletion(std::uint32_t node_id) {
  const k8s::NodeRecord& rec = world.api.node(k8s::NodeId{node_id});
  if (rec.deleted) return false;
  if (has_taint(rec.node.taints, kTaintDisrupted)) return true;
  const NodeClaimState* c = claim_of_node(node_id);
  return c && c->phase == NodeClaimPhase::Deleting;
}

const std::set<std::uint32_t>& Cluster::marked_nodes() {
  // maybe_marked holds every node that could be marked (see its writers); the ones that are not
  // now are dropped, as only a taint or a NodeClaim deleting puts them back.
  for (auto it = maybe_marked.begin(); it != maybe_marked.end();)
    it = marked_for_deletion(*it) ? std::next(it) : maybe_marked.erase(it);
  return maybe_marked;
}

std::vector<k8s::Pod> Cluster::deleting_node_pods(std::vector<k8s::PodId>* ids) {
  // pod.IsReschedulable: active (not terminal, not terminating) and not a DaemonSet's. (Terminating
  // StatefulSet pods count too upstream; eksim has no StatefulSets.)
  std::vector<k8s::Pod> out;
  auto& api = world.api;
  for (std::uint32_t i : marked_nodes())
    for (k8s::PodId p : api.node(k8s::NodeId{i}).pods)
      if (reschedulable(api.pod(p))) {
        out.push_back(unbound(api.pod(p).pod));
        if (ids) ids->push_back(p);
      }
  return out;
}

bool Cluster::any_deleting_node_pods() {
  auto& api = world.api;
  for (std::uint32_t i : marked_nodes())
    for (k8s::PodId p : api.node(k8s::NodeId{i}).pods)
      if (reschedulable(api.pod(p))) return true;
  return false;
}

}  // namespace eksim::autoscaling::karpenter::state
