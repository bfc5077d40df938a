// Cluster state (pkg/controllers/state/cluster.go): NodeClaims by name, instance and node, and
// the nodes the scheduler simulations place pods on.
#include "models/autoscaling/karpenter/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

NodeClaimState* Controller::claim_by_instance(const std::string& id) {
  if (id.empty()) return nullptr;
  for (auto& c : claims_)
    if (c.instance_id == id) return &c;
  return nullptr;
}
NodeClaimState* Controller::claim_by_name(const std::string& name) {
  for (auto& c : claims_)
    if (c.name == name) return &c;
  return nullptr;
}
NodeClaimState* Controller::claim_by_node(const std::string& node) {
  if (node.empty()) return nullptr;
  for (auto& c : claims_)
    if (c.node_name == node && c.phase != NodeClaimPhase::Deleted) return &c;
  return nullptr;
}


std::vector<ExistingNode> Controller::existing_nodes(const std::string& skip_node) {
  std::vector<ExistingNode> out;
  auto& api = c_.api;
  for (std::size_t i = 0; i < api.node_slots(); ++i) {
    const k8s::NodeRecord& rec = api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
    if (rec.deleted || rec.node.meta.name == skip_node) continue;
    if (has_taint(rec.node.taints, kTaintDisrupted)) continue;  // marked for deletion
    NodeClaimState* claim = claim_by_instance(rec.instance_id);
    if (claim && (claim->phase == NodeClaimPhase::Deleting || claim->phase == NodeClaimPhase::Deleted)) continue;
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
    out.push_back(std::move(e));
  }
  for (const auto& c : claims_) {
    // Launched but not registered: no Node object yet, so it counts by its NodeClaim.
    if (c.phase != NodeClaimPhase::Launched || c.registered_at) continue;
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
    out.push_back(std::move(e));
  }
  return out;
}


void Controller::on_pod_moved(k8s::NodeId node) {
  if (!node.valid()) return;
  if (NodeClaimState* c = claim_by_instance(c_.api.node(node).instance_id)) c->last_pod_event = c_.sim.now();
}

}  // namespace eksim::autoscaling::karpenter
