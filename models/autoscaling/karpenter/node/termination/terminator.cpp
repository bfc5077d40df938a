// Termination (pkg/controllers/node/termination): taint karpenter.sh/disrupted, drain what a
// drain moves, then terminate the instance.
#include "models/autoscaling/karpenter/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

void Controller::delete_claim(NodeClaimState& c, const std::string& reason, bool /*forceful*/) {
  if (c.phase == NodeClaimPhase::Deleting || c.phase == NodeClaimPhase::Deleted) return;
  c.phase = NodeClaimPhase::Deleting;
  claim_phase_changed(c);
  if (!reason.empty()) c.disruption_reason = reason;
  auto node = c.node_name.empty() ? std::nullopt : c_.api.find_node(c.node_name);
  if (!node) {
    if (!c.instance_id.empty()) c_.ec2.terminate(c.instance_id);
    else {
      c.phase = NodeClaimPhase::Deleted;
      claim_phase_changed(c);
      ++claims_version_;
    }
    return;
  }
  maybe_marked_.insert(node->v);
  // Termination: taint karpenter.sh/disrupted:NoSchedule, evict what a drain moves, then
  // terminate the instance (its Node goes with it).
  set_disrupted_taint(c.node_name, true);
  log_tainted(c);
  k8s::NodeRecord& rec = c_.api.node(*node);
  std::vector<k8s::PodId> evict;
  for (k8s::PodId p : rec.pods)
    if (reschedulable(c_.api.pod(p))) evict.push_back(p);
  for (k8s::PodId p : evict) c_.kubelet->delete_pod(p);
  finish_drain(c.name);
}

bool Controller::delete_node_claim(const std::string& name) {
  NodeClaimState* c = claim_by_name(name);
  if (!c || c->phase == NodeClaimPhase::Deleted) return false;
  delete_claim(*c, "", false);
  return true;
}

bool Controller::delete_node(k8s::NodeId node) {
  // The Node carries karpenter.sh/termination: deleting it runs the same termination as
  // deleting its NodeClaim, and the NodeClaim goes with it.
  const std::string& instance = c_.api.node(node).instance_id;
  NodeClaimState* c = instance.empty() ? nullptr : claim_by_instance(instance);
  if (!c || c->phase == NodeClaimPhase::Deleted) return false;
  delete_claim(*c, "", false);
  return true;
}

void Controller::set_disrupted_taint(const std::string& node_name, bool on) {
  auto node = node_name.empty() ? std::nullopt : c_.api.find_node(node_name);
  if (!node) return;
  k8s::NodeRecord& rec = c_.api.node(*node);
  if (rec.deleted || has_taint(rec.node.taints, kTaintDisrupted) == on) return;
  if (on) rec.node.taints.push_back(k8s::Taint{kTaintDisrupted, "", k8s::kNoSchedule});
  else std::erase_if(rec.node.taints, [](const k8s::Taint& t) { return t.key == kTaintDisrupted; });
  in_node_update_ = true;
  c_.api.node_changed(*node, k8s::NodeChange::Updated);
  in_node_update_ = false;
  if (on) trigger();  // provisioner.trigger.node
}

void Controller::finish_drain(const std::string& name) {
  NodeClaimState* c = claim_by_name(name);
  if (!c || c->phase != NodeClaimPhase::Deleting) return;
  auto node = c->node_name.empty() ? std::nullopt : c_.api.find_node(c->node_name);
  if (node) {
    for (k8s::PodId p : c_.api.node(*node).pods) {
      const auto& r = c_.api.pod(p);
      if (!r.deleted && !k8s::is_daemonset_pod(r.pod) && r.pod.status.phase != k8s::PodPhase::Succeeded &&
          r.pod.status.phase != k8s::PodPhase::Failed) {
        c_.sim.schedule(Duration::seconds(1), [this, name] { finish_drain(name); });
        return;
      }
    }
  }
  aws::Instance* inst = c_.ec2.find(c->instance_id);
  if (inst && inst->alive())
    c_.ec2.terminate(c->instance_id);
}

}  // namespace eksim::autoscaling::karpenter
