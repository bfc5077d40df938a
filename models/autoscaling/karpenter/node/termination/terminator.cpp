// Termination (pkg/controllers/node/termination): taint karpenter.sh/disrupted, drain what a
// drain moves, then terminate the instance.
#include "models/autoscaling/karpenter/node/termination/terminator.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

void Terminator::delete_claim(NodeClaimState& c, const std::string& reason, bool /*forceful*/) {
  if (c.phase == NodeClaimPhase::Deleting || c.phase == NodeClaimPhase::Deleted) return;
  c.phase = NodeClaimPhase::Deleting;
  ctx_.state.claim_phase_changed(c);
  if (!reason.empty()) c.disruption_reason = reason;
  auto node = c.node_name.empty() ? std::nullopt : ctx_.world.api.find_node(c.node_name);
  if (!node) {
    if (!c.instance_id.empty()) ctx_.cloud.delete_instance(c.instance_id);
    else {
      c.phase = NodeClaimPhase::Deleted;
      ctx_.state.claim_phase_changed(c);
      ++ctx_.state.claims_version;
    }
    return;
  }
  ctx_.state.maybe_marked.insert(node->v);
  // Termination: taint karpenter.sh/disrupted:NoSchedule, evict what a drain moves, then
  // terminate the instance (its Node goes with it).
  set_disrupted_taint(c.node_name, true);
  ctx_.log.tainted(c);
  k8s::NodeRecord& rec = ctx_.world.api.node(*node);
  std::vector<k8s::PodId> evict;
  for (k8s::PodId p : rec.pods)
    if (reschedulable(ctx_.world.api.pod(p))) evict.push_back(p);
  for (k8s::PodId p : evict) ctx_.world.kubelet->delete_pod(p);
  finish_drain(c.name);
}

bool Terminator::delete_node_claim(const std::string& name) {
  NodeClaimState* c = ctx_.state.claim_by_name(name);
  if (!c || c->phase == NodeClaimPhase::Deleted) return false;
  delete_claim(*c, "", false);
  return true;
}

bool Terminator::delete_node(k8s::NodeId node) {
  // The Node carries karpenter.sh/termination: deleting it runs the same termination as
  // deleting its NodeClaim, and the NodeClaim goes with it.
  const std::string& instance = ctx_.world.api.node(node).instance_id;
  NodeClaimState* c = instance.empty() ? nullptr : ctx_.state.claim_by_instance(instance);
  if (!c || c->phase == NodeClaimPhase::Deleted) return false;
  delete_claim(*c, "", false);
  return true;
}

void Terminator::set_disrupted_taint(const std::string& node_name, bool on) {
  auto node = node_name.empty() ? std::nullopt : ctx_.world.api.find_node(node_name);
  if (!node) return;
  k8s::NodeRecord& rec = ctx_.world.api.node(*node);
  if (rec.deleted || has_taint(rec.node.taints, kTaintDisrupted) == on) return;
  if (on) rec.node.taints.push_back(k8s::Taint{kTaintDisrupted, "", k8s::kNoSchedule});
  else std::erase_if(rec.node.taints, [](const k8s::Taint& t) { return t.key == kTaintDisrupted; });
  ctx_.state.update_node(*node);
  if (on) ctx_.batcher.trigger();  // provisioner.trigger.node
}

void Terminator::finish_drain(const std::string& name) {
  NodeClaimState* c = ctx_.state.claim_by_name(name);
  if (!c || c->phase != NodeClaimPhase::Deleting) return;
  auto node = c->node_name.empty() ? std::nullopt : ctx_.world.api.find_node(c->node_name);
  if (node) {
    for (k8s::PodId p : ctx_.world.api.node(*node).pods) {
      const auto& r = ctx_.world.api.pod(p);
      if (!r.deleted && !k8s::is_daemonset_pod(r.pod) && r.pod.status.phase != k8s::PodPhase::Succeeded &&
          r.pod.status.phase != k8s::PodPhase::Failed) {
        ctx_.world.sim.schedule(Duration::seconds(1), [this, name] { finish_drain(name); });
        return;
      }
    }
  }
  if (ctx_.cloud.instance_alive(c->instance_id)) ctx_.cloud.delete_instance(c->instance_id);
}

}  // namespace eksim::autoscaling::karpenter
