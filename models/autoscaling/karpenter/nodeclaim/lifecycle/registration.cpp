// NodeClaim registration (pkg/controllers/nodeclaim/lifecycle/registration.go): the instance
// joins as a Node with the NodeClaim's labels and taints; karpenter.sh/registered.
#include "models/autoscaling/karpenter/nodeclaim/lifecycle/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"
#include "models/k8s/addons/addons.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

void Lifecycle::on_instance_running(aws::Instance& inst) {
  NodeClaimState* c = ctx_.state.claim_by_instance(inst.id);
  if (!c || c->phase == NodeClaimPhase::Deleting || c->phase == NodeClaimPhase::Deleted) return;
  eksim::Cluster::NodeClassSettings settings;
  if (auto nc = ctx_.state.node_classes.find(c->node_class); nc != ctx_.state.node_classes.end()) {
    settings.kubelet = nc->second.kubelet;
    settings.kubelet.max_pods = nc->second.max_pods;
    settings.root_volume_gib = nc->second.root_volume_gib;
  }
  k8s::MachineSpec m = ctx_.world.machine_for(inst, nullptr, &settings);
  for (const auto& [k, v] : c->labels) m.labels[k] = v;
  m.register_with_taints = c->taints;
  for (const auto& t : c->startup_taints) m.register_with_taints.push_back(t);
  m.node_pool = c->node_pool;
  m.capacity_type = c->capacity_type;
  // The al2023@latest alias (and Auto Mode) resolves to the accelerated AMI for GPU types.
  m.nvidia_ami = inst.type->gpu.count > 0;
  // Auto Mode creates the access entry for its node role itself, and boots its own
  // Bottlerocket-based image (docs.aws.amazon.com/eks/latest/best-practices/automode.html).
  if (ctx_.settings.auto_mode) {
    m.role_mapped = true;
    m.bootstrap = k8s::BootstrapFlavor::Bottlerocket;
    m.eks_auto_mode_image = true;
  }
  c->node_name = m.node_name;
  ctx_.world.join_instance(inst, std::move(m));
}

void Lifecycle::on_node(k8s::NodeId id, k8s::NodeChange change) {
  if (ctx_.state.in_node_update) return;
  k8s::NodeRecord& rec = ctx_.world.api.node(id);
  NodeClaimState* c = ctx_.state.claim_by_instance(rec.instance_id);
  if (change == k8s::NodeChange::Deleted) {
    if (c && c->phase != NodeClaimPhase::Deleted && c->phase != NodeClaimPhase::Deleting) termination_.delete_claim(*c, "", true);
    ctx_.batcher.trigger();
    return;
  }
  // provisioner.trigger.node: a node with the disrupted taint has pods to provision for.
  if (has_taint(rec.node.taints, kTaintDisrupted)) ctx_.batcher.trigger();
  if (!c || c->phase == NodeClaimPhase::Deleted) return;
  if (change == k8s::NodeChange::Ready && ctx_.settings.auto_mode) {
    // The node image's own device plugin (no DaemonSet); a no-op on a node without GPUs.
    std::string node = rec.node.meta.name;
    ctx_.world.sim.schedule(ctx_.settings.auto_mode_device_plugin_delay, [this, node] {
      if (auto n = ctx_.world.api.find_node(node)) k8s::advertise_gpus(ctx_.world.api, *n);
    });
  }
  if (!c->registered_at) register_node(*c, rec, id);
  check_initialized(*c, rec);
}

void Lifecycle::register_node(NodeClaimState& c, k8s::NodeRecord& rec, k8s::NodeId id) {
  c.registered_at = ctx_.world.sim.now();
  ctx_.state.touch();
  c.node_name = rec.node.meta.name;
  c.node_id = id;
  if (c.phase == NodeClaimPhase::Launched) c.phase = NodeClaimPhase::Registered;
  ctx_.log.registered(c);
  rec.node.meta.labels[kLabelRegistered] = "true";
  ctx_.state.update_node(id);
}

}  // namespace eksim::autoscaling::karpenter
