// The NodeClass controller's reconcile (karpenter-provider-aws pkg/controllers/nodeclass) and the
// nodepool readiness controller.
#include "models/autoscaling/karpenter/nodeclass/controller.hpp"

#include "models/autoscaling/karpenter/nodeclass/discovery.hpp"

namespace eksim::autoscaling::karpenter {

NodeClassController::NodeClassController(Context& ctx) : ctx_(ctx) {
  // The termination finalizer watches NodeClaims: the last one gone releases the NodeClass.
  ctx_.state.on_claim_deleted.push_back([this](const NodeClaimState& c) {
    auto nc = ctx_.state.node_classes.find(c.node_class);
    if (nc != ctx_.state.node_classes.end() && nc->second.deletion_timestamp)
      ctx_.world.sim.schedule(engine::Duration{}, [this, name = c.node_class] { finalize(name); });
  });
}

void NodeClassController::apply(NodeClass node_class) {
  auto& classes = ctx_.state.node_classes;
  ctx_.cloud.forget_instance_types(node_class.name);
  auto old = classes.find(node_class.name);
  const bool created = old == classes.end();
  const engine::SimTime now = ctx_.world.sim.now();
  node_class.created = now;
  if (!created) {
    node_class.conditions = old->second.conditions;
    node_class.created = old->second.created;
  }
  std::string name = node_class.name;
  classes[name] = std::move(node_class);
  if (created) {
    // A new NodeClass has no status until the controller's first reconcile has made its AWS
    // calls: every condition Unknown (AwaitingReconciliation), so its NodePools are
    // NodeClassReady=False (NodeClassReadinessUnknown) and Ready=False meanwhile.
    NodeClass& nc = classes[name];
    nc.conditions = new_condition_set(node_class_condition_types(), now, true);
    refresh_pool_readiness(name);
    ctx_.world.sim.schedule(ctx_.settings.node_class_resolve_time, [this, name] {
      auto it = ctx_.state.node_classes.find(name);
      if (it != ctx_.state.node_classes.end() && !it->second.deletion_timestamp) reconcile(name);
    });
  } else {
    reconcile(name);  // the providers' caches answer at once for a class already resolved
  }
  ++ctx_.state.config_version;
  ctx_.batcher.trigger();
}

void NodeClassController::refresh_pool_readiness(const std::string& node_class) {
  for (auto& [name, p] : ctx_.state.node_pools)
    if (p.node_class_name == node_class) reconcile_node_pool_readiness(p, ctx_.state.node_class_of(p), ctx_.world.sim.now());
}

// One reconcile of the NodeClass, then the readiness of the NodePools that use it. Not found
// subnets or groups requeue after a minute (subnet.go, securitygroup.go), so tags added later
// are picked up.
void NodeClassController::reconcile(const std::string& name) {
  auto it = ctx_.state.node_classes.find(name);
  if (it == ctx_.state.node_classes.end()) return;
  NodeClass& nc = it->second;
  const std::vector<std::string> subnets_before = nc.subnet_ids;
  if (reconcile_node_class(nc, ctx_.world.ec2, ctx_.world.security_groups, ctx_.world.sim.now())) {
    if (nc.subnet_ids != subnets_before) ctx_.cloud.forget_instance_types(name);  // offerings follow the zones
    ++ctx_.state.config_version;
    refresh_pool_readiness(name);
    ctx_.batcher.trigger();
  }
  if (!nc.ready() && !requeued_.count(name)) {
    requeued_.insert(name);
    ctx_.world.sim.schedule(engine::Duration::minutes(1), [this, name] {
      requeued_.erase(name);
      reconcile(name);
    });
  }
}

}  // namespace eksim::autoscaling::karpenter
