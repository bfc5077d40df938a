// Cluster state (pkg/controllers/state/cluster.go): NodeClaims by name, instance and node, and
// the nodes the scheduler simulations place pods on.
#include "models/autoscaling/karpenter/controller.hpp"

#include <algorithm>

#include "models/autoscaling/karpenter/internal.hpp"
#include "models/autoscaling/karpenter/state/cluster.hpp"
#include "models/k8s/scheduling/predicates.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

namespace state {

bool StateNode::fits_class(std::uint32_t c, const PodClasses& classes, const k8s::SchedulerOptions& options) {
  if (fits.size() <= c) fits.resize(classes.size(), -1);
  if (fits[c] < 0) fits[c] = k8s::fits(classes.representative(c), node.info, k8s::NodeInfoView{}, options).ok() ? 1 : 0;
  return fits[c] == 1;
}

const std::vector<std::uint32_t>& Snapshot::fits_of(std::uint32_t c, const PodClasses& classes,
                                                    const k8s::SchedulerOptions& options) {
  auto [it, inserted] = fit_positions.try_emplace(c);
  if (inserted)
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i]->fits_class(c, classes, options)) it->second.push_back(static_cast<std::uint32_t>(i));
  return it->second;
}

SimulationNodes::SimulationNodes(Snapshot& snapshot, PodClasses& classes, std::vector<std::uint32_t> excluded)
    : snap_(snapshot), classes_(classes), excluded_(std::move(excluded)) {
  std::sort(excluded_.begin(), excluded_.end());
}

const ExistingNode& SimulationNodes::get(std::size_t i) const {
  auto d = delta_.find(i);
  if (d == delta_.end()) return snap_.nodes[i]->node;
  auto it = overlay_.find(i);
  if (it == overlay_.end()) {
    it = overlay_.emplace(i, snap_.nodes[i]->node).first;
    for (const k8s::Pod* p : d->second.pods) k8s::add_pod(it->second.info, *p);
  }
  return it->second;
}

void SimulationNodes::add_pod(std::size_t i, const k8s::Pod& pod) {
  Delta& d = delta_[i];
  d.pods.push_back(&pod);
  // As k8s::add_pod counts it: terminal pods hold nothing.
  if (pod.status.phase != k8s::PodPhase::Succeeded && pod.status.phase != k8s::PodPhase::Failed)
    d.requested += k8s::pod_requests(pod.spec);
  overlay_.erase(i);
}

bool SimulationNodes::fits_with_delta(const k8s::Pod& rep, const k8s::NodeInfo& base, const Delta& d) const {
  // The class fit this node before the simulation (taints, affinity, unschedulable, no host
  // ports): only NodeResourcesFit can change, as fitsRequest computes it.
  std::int64_t pods = base.pod_count();
  for (const k8s::Pod* p : d.pods)
    if (p->status.phase != k8s::PodPhase::Succeeded && p->status.phase != k8s::PodPhase::Failed) ++pods;
  const k8s::Node& node = base.node;
  if (pods + 1 > node.allocatable.get(k8s::kPods)) return false;
  const k8s::ResourceList requests = k8s::pod_requests(rep.spec);
  for (const auto& [name, amount] : requests.items()) {
    if (amount <= 0) continue;
    if (amount > node.allocatable.get(name) - base.requested.get(name) - d.requested.get(name)) return false;
  }
  return true;
}

bool SimulationNodes::excluded(std::size_t i) const {
  return std::binary_search(excluded_.begin(), excluded_.end(), static_cast<std::uint32_t>(i));
}

bool Snapshot::anti_affinity_selects(const k8s::Pod& pod) const {
  for (const auto& [pos, owner] : anti_affinity_pods)
    for (const auto& term : owner->spec.affinity.pod_anti_affinity_required) {
      const bool in_ns = term.namespaces.empty()
                             ? pod.meta.ns == owner->meta.ns
                             : std::find(term.namespaces.begin(), term.namespaces.end(), pod.meta.ns) != term.namespaces.end();
      if (in_ns && k8s::label_selector_matches(term.label_selector, pod.meta.labels)) return true;
    }
  return false;
}

bool Snapshot::anti_affinity_selects_any(const std::vector<const k8s::Pod*>& pods) const {
  if (anti_affinity_pods.empty()) return false;
  return std::any_of(pods.begin(), pods.end(), [&](const k8s::Pod* p) { return anti_affinity_selects(*p); });
}

std::optional<std::vector<std::uint32_t>> SimulationNodes::classes_of(const std::vector<const k8s::Pod*>& pods) const {
  if (snap_.anti_affinity_selects_any(pods)) return std::nullopt;
  std::vector<std::uint32_t> out;
  for (const k8s::Pod* p : pods) {
    const auto k = classes_.of(*p);
    if (!k) return std::nullopt;
    if (std::find(out.begin(), out.end(), *k) == out.end()) out.push_back(*k);
  }
  return out;
}

bool SimulationNodes::only_uninitialized_fit(const std::vector<std::uint32_t>& classes) const {
  const k8s::SchedulerOptions options;
  bool uninitialized = false;
  for (std::uint32_t k : classes) {
    // Positions run initialized nodes first, so the first one outside the excluded decides.
    for (std::uint32_t pos : snap_.fits_of(k, classes_, options)) {
      if (excluded(pos)) continue;
      if (snap_.nodes[pos]->node.initialized) return false;
      uninitialized = true;
      break;
    }
  }
  return uninitialized;
}

bool SimulationNodes::some_class_fits_no_node(const std::vector<std::uint32_t>& classes) const {
  const k8s::SchedulerOptions options;
  for (std::uint32_t k : classes) {
    const auto& positions = snap_.fits_of(k, classes_, options);
    if (std::all_of(positions.begin(), positions.end(), [&](std::uint32_t pos) { return excluded(pos); })) return true;
  }
  return false;
}

bool SimulationNodes::first_fit(const k8s::Pod& pod, const k8s::SchedulerOptions& options, std::optional<std::size_t>& out) {
  auto c = classes_.of(pod);
  if (!c) return false;
  // The class fits these positions before this simulation placed anything. Placing pods only
  // takes room, so a position the class no longer fits never fits again in this simulation:
  // the cursor only moves forward.
  const std::vector<std::uint32_t>& positions = snap_.fits_of(*c, classes_, options);
  std::size_t& k = cursor_[*c];
  const k8s::Pod& rep = classes_.representative(*c);
  for (; k < positions.size(); ++k) {
    std::size_t pos = positions[k];
    if (excluded(pos)) continue;
    auto d = delta_.find(pos);
    if (d != delta_.end() && !fits_with_delta(rep, snap_.nodes[pos]->node.info, d->second)) continue;
    out = pos;
    return true;
  }
  out.reset();
  return true;
}

void Cluster::dirty(std::uint32_t node_id) {
  auto it = nodes.find(node_id);
  if (it != nodes.end()) it->second.dirty = true;
}

namespace {
template <typename Order>
auto by_name(Order& order, const std::string& name) {
  return std::lower_bound(order.begin(), order.end(), name,
                          [](const StateNode* s, const std::string& n) { return s->ordered_name < n; });
}
}  // namespace

void Cluster::reorder(StateNode& s, bool keep) {
  const bool init = s.node.initialized;
  const std::string& name = s.node.info.name();
  if (s.in_order && (!keep || s.ordered_initialized != init || s.ordered_name != name)) {
    auto& order = ordered[s.ordered_initialized ? 0 : 1];
    auto it = by_name(order, s.ordered_name);
    if (it != order.end() && *it == &s) order.erase(it);
    s.in_order = false;
    ++order_version;
  }
  if (keep && !s.in_order) {
    auto& order = ordered[init ? 0 : 1];
    auto it = by_name(order, name);
    if (it != order.end() && (*it)->ordered_name == name) {
      // A node of the same name listed before (a new node on a reused address) leaves the order.
      StateNode* old = *it;
      old->in_order = false;
      if (old->counts_anti_affinity) --anti_affinity_nodes;
      old->counts_anti_affinity = false;
      *it = &s;
    } else {
      order.insert(it, &s);
    }
    s.in_order = true;
    s.ordered_initialized = init;
    s.ordered_name = name;
    ++order_version;
  }
  const bool anti = s.in_order && s.node.info.pods_with_required_anti_affinity > 0;
  if (anti != s.counts_anti_affinity) {
    s.counts_anti_affinity = anti;
    if (anti) ++anti_affinity_nodes;
    else --anti_affinity_nodes;
  }
}

std::optional<std::uint32_t> Cluster::position(const StateNode& s) const {
  if (s.position_version == order_version) return s.cached_position;
  s.position_version = order_version;
  s.cached_position.reset();
  if (!s.in_order) return std::nullopt;
  const std::size_t group = s.ordered_initialized ? 0 : 1;
  const auto& order = ordered[group];
  auto it = by_name(order, s.ordered_name);
  if (it == order.end() || *it != &s) return std::nullopt;
  s.cached_position =
      static_cast<std::uint32_t>((group == 0 ? 0 : ordered[0].size()) + static_cast<std::size_t>(it - order.begin()));
  return s.cached_position;
}

}  // namespace state

NodeClaimState* Controller::claim_by_instance(const std::string& id) {
  if (id.empty()) return nullptr;
  auto it = claim_index_by_instance_.find(id);
  return it == claim_index_by_instance_.end() ? nullptr : &claims_[it->second];
}

NodeClaimState* Controller::claim_of_node(std::uint32_t node_id) {
  state::StateNode& s = state_.nodes[node_id];
  if (!s.claim_resolved) {
    s.identity = node_id;
    const NodeClaimState* found = claim_by_instance(c_.api.node(k8s::NodeId{node_id}).instance_id);
    s.claim_index = found ? static_cast<std::size_t>(found - claims_.data()) : SIZE_MAX;
    s.claim_resolved = true;
  }
  return s.claim_index == SIZE_MAX ? nullptr : &claims_[s.claim_index];
}

NodeClaimState* Controller::claim_by_name(const std::string& name) {
  auto it = claim_index_by_name_.find(name);
  return it == claim_index_by_name_.end() ? nullptr : &claims_[it->second];
}

std::size_t Controller::add_claim(NodeClaimState c) {
  const std::size_t idx = claims_.size();
  // The first NodeClaim of a name (or instance) wins, as a scan from the front found it.
  claim_index_by_name_.emplace(c.name, idx);
  if (!c.instance_id.empty()) claim_index_by_instance_.emplace(c.instance_id, idx);
  claims_.push_back(std::move(c));
  if (claims_.back().phase != NodeClaimPhase::Deleted) live_claims_.push_back(idx);
  state_.touch();
  ++claims_version_;
  return idx;
}

const std::vector<std::size_t>& Controller::live_claims() {
  std::erase_if(live_claims_, [&](std::size_t i) { return claims_[i].phase == NodeClaimPhase::Deleted; });
  return live_claims_;
}

void Controller::rebuild_state_node(state::StateNode& s, const k8s::NodeRecord& rec, const NodeClaimState* claim) {
  auto& api = c_.api;
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

std::vector<std::uint32_t> Controller::positions_of(const std::vector<k8s::NodeId>& nodes) {
  std::vector<std::uint32_t> out;
  for (k8s::NodeId id : nodes) {
    auto it = state_.nodes.find(id.v);
    if (it == state_.nodes.end()) continue;
    if (auto pos = state_.position(it->second)) out.push_back(*pos);
  }
  return out;
}

ExistingNode Controller::launched_claim_node(const NodeClaimState& c) {
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

state::Snapshot& Controller::snapshot() {
  auto& st = state_;
  if (st.snapshot && st.snapshot->version == st.version) return *st.snapshot;
  auto& api = c_.api;
  // StateNodes for the nodes a notification touched (and new ones): rebuilt where something
  // changed. A node marked for deletion (the karpenter.sh/disrupted taint, or its NodeClaim
  // deleting) is not capacity. Deleted nodes leave first, then the rest in NodeId order, as a
  // scan of every node would meet them.
  for (; seen_node_slots_ < api.node_slots(); ++seen_node_slots_) st.mark_changed(seen_node_slots_);
  std::vector<std::uint32_t> changed = std::move(st.changed);
  st.changed.clear();
  std::sort(changed.begin(), changed.end());
  for (std::uint32_t id : changed) {
    st.changed_flag[id] = false;
    if (!api.node(k8s::NodeId{id}).deleted) continue;
    auto it = st.nodes.find(id);
    if (it != st.nodes.end()) {
      st.reorder(it->second, false);
      st.nodes.erase(it);
    }
  }
  for (std::uint32_t id : changed) {
    const k8s::NodeRecord& rec = api.node(k8s::NodeId{id});
    if (rec.deleted) continue;
    const NodeClaimState* claim = claim_of_node(id);
    state::StateNode& s = st.nodes[id];
    const std::uint64_t stamp = st.node_stamp(id) + 1;
    const int phase = claim ? static_cast<int>(claim->phase) : -1;
    if (!s.dirty && s.seen_stamp == stamp && s.seen_phase == phase) continue;  // as the last snapshot left it
    s.seen_stamp = stamp;
    s.seen_phase = phase;
    bool usable = !has_taint(rec.node.taints, kTaintDisrupted) &&
                  !(claim && (claim->phase == NodeClaimPhase::Deleting || claim->phase == NodeClaimPhase::Deleted));
    if (usable && (s.dirty || s.node.initialized != (claim && claim->phase == NodeClaimPhase::Initialized) ||
                   s.node.nodeclaim != (claim ? claim->name : std::string())))
      rebuild_state_node(s, rec, claim);
    st.reorder(s, usable);
  }
  // Launched but not registered: no Node object yet, so it counts by its NodeClaim.
  for (auto it = st.launched.begin(); it != st.launched.end();) {
    const NodeClaimState& c = claims_[it->first];
    if (c.phase != NodeClaimPhase::Launched || c.registered_at) {
      st.reorder(it->second, false);
      it = st.launched.erase(it);
    } else {
      ++it;
    }
  }
  for (std::size_t idx : live_claims()) {
    const NodeClaimState& c = claims_[idx];
    if (c.phase != NodeClaimPhase::Launched || c.registered_at) continue;
    auto [it, inserted] = st.launched.try_emplace(idx);
    if (!inserted) continue;
    it->second.identity = (std::uint64_t{1} << 32) | idx;
    it->second.node = launched_claim_node(c);
    it->second.dirty = false;
    st.reorder(it->second, true);
  }
  auto snap = std::make_unique<state::Snapshot>();
  snap->version = st.version;
  snap->any_required_anti_affinity = st.anti_affinity_nodes > 0;
  snap->nodes.reserve(st.ordered[0].size() + st.ordered[1].size());
  snap->nodes.insert(snap->nodes.end(), st.ordered[0].begin(), st.ordered[0].end());
  snap->nodes.insert(snap->nodes.end(), st.ordered[1].begin(), st.ordered[1].end());
  if (snap->any_required_anti_affinity)
    for (std::uint32_t pos = 0; pos < snap->nodes.size(); ++pos)
      if (snap->nodes[pos]->node.info.pods_with_required_anti_affinity > 0)
        for (const k8s::Pod* p : snap->nodes[pos]->node.info.pods)
          if (!p->spec.affinity.pod_anti_affinity_required.empty()) snap->anti_affinity_pods.emplace_back(pos, p);
  st.snapshot = std::move(snap);
  return *st.snapshot;
}

std::vector<ExistingNode> Controller::cached_simulation_nodes() {
  std::vector<ExistingNode> out;
  for (const state::StateNode* s : snapshot().nodes) out.push_back(s->node);
  return out;
}

std::vector<ExistingNode> Controller::rebuilt_simulation_nodes() {
  // What every pass computed before the cache: each live node with its active pods, then the
  // NodeClaims launched but not registered, sorted as the scheduler tries them.
  std::vector<ExistingNode> out;
  auto& api = c_.api;
  for (std::size_t i = 0; i < api.node_slots(); ++i) {
    const k8s::NodeRecord& rec = api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
    if (rec.deleted || has_taint(rec.node.taints, kTaintDisrupted)) continue;
    const NodeClaimState* claim = nullptr;
    for (const auto& c : claims_)
      if (!rec.instance_id.empty() && c.instance_id == rec.instance_id) {
        claim = &c;
        break;
      }
    if (claim && (claim->phase == NodeClaimPhase::Deleting || claim->phase == NodeClaimPhase::Deleted)) continue;
    state::StateNode s;
    rebuild_state_node(s, rec, claim);
    out.push_back(std::move(s.node));
  }
  for (const auto& c : claims_)
    if (c.phase == NodeClaimPhase::Launched && !c.registered_at) out.push_back(launched_claim_node(c));
  ExistingNodeVector order(out);
  std::vector<ExistingNode> sorted;
  for (std::size_t i = 0; i < order.size(); ++i) sorted.push_back(order.get(i));
  return sorted;
}

void Controller::claim_phase_changed(const NodeClaimState& c) {
  state_.touch();
  // The NodeClass termination controller watches NodeClaims: the last one gone releases it.
  if (c.phase == NodeClaimPhase::Deleted)
    if (auto nc = classes_.find(c.node_class); nc != classes_.end() && nc->second.deletion_timestamp)
      c_.sim.schedule(engine::Duration{}, [this, name = c.node_class] { finalize_node_class(name); });
  if (auto n = node_of(c)) state_.mark_changed(n->v);
  if (!c.instance_id.empty())
    if (auto n = c_.node_of_instance(c.instance_id)) state_.mark_changed(n->v);
}

void Controller::state_changed(k8s::NodeId node) {
  state_.touch();
  if (!node.valid()) return;
  state_.dirty(node.v);
  state_.mark_changed(node.v);
  ++state_.node_stamp(node.v);
}

std::optional<k8s::NodeId> Controller::node_of(const NodeClaimState& c) const {
  if (c.node_name.empty()) return std::nullopt;
  // node_name is the registered Node's name from registration on, so a live cached id is it.
  if (c.node_id.valid() && !c_.api.node_deleted(c.node_id)) return c.node_id;
  return c_.api.find_node(c.node_name);
}

Controller::NodePods& Controller::node_pods(k8s::NodeId node) {
  const std::uint64_t stamp = state_.node_stamp(node.v) + 1;  // 0 = never computed
  if (node.v >= node_pods_.size()) node_pods_.resize(node.v + 1);
  NodePods& m = node_pods_[node.v];
  if (m.stamp == stamp) return m;
  auto dnd = [](const k8s::Labels& a) {
    auto it = a.find(kAnnotationDoNotDisrupt);
    return it != a.end() && it->second == "true";
  };
  const k8s::NodeRecord& rec = c_.api.node(node);
  m = NodePods{};
  m.stamp = stamp;
  m.blocks = dnd(rec.node.meta.annotations);
  for (k8s::PodId p : rec.pods) {
    const auto& r = c_.api.pod(p);
    if (!reschedulable(r)) continue;
    ++m.reschedulable;
    m.reschedulable_ids.push_back(p);
    m.blocks |= dnd(r.pod.meta.annotations);
  }
  return m;
}

const std::optional<std::vector<std::uint32_t>>& Controller::node_classes(k8s::NodeId node) {
  NodePods& m = node_pods(node);
  if (m.classes_known) return m.classes;
  m.classes_known = true;
  std::vector<std::uint32_t> out;
  for (k8s::PodId p : m.reschedulable_ids) {
    const k8s::PodRecord& r = c_.api.pod(p);
    const auto k = state_.classes.of(r.pod, r.template_id);
    if (!k) {
      m.classes.reset();
      return m.classes;
    }
    if (std::find(out.begin(), out.end(), *k) == out.end()) out.push_back(*k);
  }
  m.classes = std::move(out);
  return m.classes;
}

void Controller::on_pod_moved(k8s::NodeId node) {
  if (!node.valid()) return;
  if (NodeClaimState* c = claim_by_instance(c_.api.node(node).instance_id)) c->last_pod_event = c_.sim.now();
}

}  // namespace eksim::autoscaling::karpenter
