// Cluster state (pkg/controllers/state/cluster.go): NodeClaims by name, instance and node, and
// the StateNodes in scheduling order (state/snapshot.cpp builds the snapshots of them).
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

NodeClaimState* Cluster::claim_by_instance(const std::string& id) {
  if (id.empty()) return nullptr;
  auto it = claim_index_by_instance_.find(id);
  return it == claim_index_by_instance_.end() ? nullptr : &node_claims[it->second];
}

NodeClaimState* Cluster::claim_of_node(std::uint32_t node_id) {
  StateNode& s = nodes[node_id];
  if (!s.claim_resolved) {
    s.identity = node_id;
    const NodeClaimState* found = claim_by_instance(world.api.node(k8s::NodeId{node_id}).instance_id);
    s.claim_index = found ? static_cast<std::size_t>(found - node_claims.data()) : SIZE_MAX;
    s.claim_resolved = true;
  }
  return s.claim_index == SIZE_MAX ? nullptr : &node_claims[s.claim_index];
}

NodeClaimState* Cluster::claim_by_name(const std::string& name) {
  auto it = claim_index_by_name_.find(name);
  return it == claim_index_by_name_.end() ? nullptr : &node_claims[it->second];
}

std::size_t Cluster::add_claim(NodeClaimState c) {
  const std::size_t idx = node_claims.size();
  // The first NodeClaim of a name (or instance) wins, as a scan from the front found it.
  claim_index_by_name_.emplace(c.name, idx);
  if (!c.instance_id.empty()) claim_index_by_instance_.emplace(c.instance_id, idx);
  node_claims.push_back(std::move(c));
  if (node_claims.back().phase != NodeClaimPhase::Deleted) live_claims_.push_back(idx);
  touch();
  ++claims_version;
  return idx;
}

const std::vector<std::size_t>& Cluster::live_claims() {
  std::erase_if(live_claims_, [&](std::size_t i) { return node_claims[i].phase == NodeClaimPhase::Deleted; });
  return live_claims_;
}

const NodeClass* Cluster::node_class_of(const NodePool& p) const {
  auto it = node_classes.find(p.node_class_name);
  if (it == node_classes.end() || it->second.kind != p.node_class_kind) return nullptr;
  return &it->second;
}

const NodePool* Cluster::pool_of(const NodeClaimState& c) {
  // NodePools change only with config_version (std::map keeps their addresses until erased).
  const std::size_t idx = static_cast<std::size_t>(&c - node_claims.data());
  if (pool_cache_.size() <= idx) pool_cache_.resize(node_claims.size());
  auto& slot = pool_cache_[idx];
  if (slot.first != config_version + 1) {
    auto it = node_pools.find(c.node_pool);
    slot = {config_version + 1, it == node_pools.end() ? nullptr : &it->second};
  }
  return slot.second;
}

std::optional<k8s::NodeId> Cluster::node_of(const NodeClaimState& c) const {
  if (c.node_name.empty()) return std::nullopt;
  // node_name is the registered Node's name from registration on, so a live cached id is it.
  if (c.node_id.valid() && !world.api.node_deleted(c.node_id)) return c.node_id;
  return world.api.find_node(c.node_name);
}

void Cluster::claim_phase_changed(const NodeClaimState& c) {
  touch();
  if (c.phase == NodeClaimPhase::Deleted)
    for (const auto& watcher : on_claim_deleted) watcher(c);
  if (auto n = node_of(c)) mark_changed(n->v);
  if (!c.instance_id.empty())
    if (auto n = world.node_of_instance(c.instance_id)) mark_changed(n->v);
}

}  // namespace state
}  // namespace eksim::autoscaling::karpenter
