// NodeClaim launch (pkg/controllers/nodeclaim/lifecycle/launch.go): the NodeClaim from a planned
// claim, the cloud provider's Create, then the labels of what was launched. A failed Create
// deletes the NodeClaim and its pods go back to the next batch without those offerings.
#include "models/autoscaling/karpenter/nodeclaim/lifecycle/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

int Lifecycle::launch(const PlannedNodeClaim& planned, bool replacement) {
  const NodePool& pool = *planned.tmpl->pool;
  const NodeClass& nc = ctx_.state.node_classes.at(pool.node_class_name);
  const SimTime now = ctx_.world.sim.now();
  NodeClaimState c;
  // generateName: the API server refuses a name already taken and the client asks again, so a
  // name stays one NodeClaim's for the whole run (indexes key on it).
  do c.name = pool.name + "-" + ctx_.world.api.random_suffix();
  while (ctx_.state.claim_by_name(c.name));
  c.node_pool = pool.name;
  c.node_class = nc.name;
  c.requirements = planned.requirements;
  c.taints = pool.taints;
  c.startup_taints = pool.startup_taints;
  c.requests = planned.requests;
  c.daemon_overhead = planned.tmpl->daemon_overhead;
  c.created = now;
  c.last_pod_event = now;
  c.pool_hash = pool_hash(pool);
  c.class_hash = class_hash(nc);
  c.replacement = replacement;
  for (const auto* p : planned.pods) c.pods.push_back(p->meta.ns + "/" + p->meta.name);

  const CreateResult created = ctx_.cloud.create(c, planned, nc);
  if (!created.instance) {
    launch_failed(c, created);
    return -1;
  }
  const CreatedInstance& inst = *created.instance;
  c.instance_id = inst.instance_id;
  c.instance_type = inst.type->name();
  c.zone = inst.zone;
  c.capacity_type = inst.capacity_type;
  c.price_per_hour = inst.price;
  c.capacity = inst.type->capacity;
  c.allocatable = inst.type->allocatable;
  set_labels(c, pool, nc, inst.type_requirements);
  aws::Activity a;
  a.start = a.end = now;
  a.service = "ec2";
  a.resource = c.name;
  a.status = "Successful";
  a.description = "launched nodeclaim " + c.name + " instance-type=" + c.instance_type + " zone=" + c.zone +
                  " capacity-type=" + c.capacity_type + " provider-id=aws:///" + c.zone + "/" + c.instance_id;
  ctx_.world.activities.push_back(std::move(a));
  ctx_.log.created(c, planned, replacement);
  ctx_.log.launched(c);
  const std::size_t idx = ctx_.state.add_claim(c);
  start_liveness(c.name);
  return static_cast<int>(idx);
}

void Lifecycle::launch_failed(NodeClaimState& c, const CreateResult& created) {
  const SimTime now = ctx_.world.sim.now();
  c.phase = NodeClaimPhase::Deleted;
  c.deleted_at = now;
  ctx_.state.add_claim(c);
  const std::string msg = created.error.value_or("no instance type offerings available");
  if (created.insufficient_capacity) {
    ctx_.recorder.publish(EventType::Warning, "InsufficientCapacityError", claim_ref(c.name),
                          "NodeClaim " + c.name + " event: creating instance, insufficient capacity, with fleet error(s), " + msg);
  } else {
    aws::Activity a;
    a.start = a.end = now;
    a.service = "ec2";
    a.resource = c.name;
    a.status = "Failed";
    a.description = "CreateFleet for NodeClaim " + c.name;
    a.status_message = msg;
    ctx_.world.activities.push_back(std::move(a));
  }
  ctx_.batcher.trigger();
}

void Lifecycle::set_labels(NodeClaimState& c, const NodePool& pool, const NodeClass& nc, const Requirements& type_requirements) {
  // Template labels, requirement labels (custom keys get one of their values), the launched
  // type's well-known labels, pool and class.
  const LabelDomain domain = ctx_.settings.domain();
  c.labels = pool.labels;
  for (const auto& [k, v] : c.requirements.labels())
    if (!restricted_label(domain, k) || well_known_labels(domain).count(k)) c.labels[k] = v;
  for (const auto& [k, r] : type_requirements.all())
    if (r.op() == "In") c.labels[k] = r.any();
  c.labels[k8s::kLabelZone] = c.zone;
  c.labels[kLabelCapacityType] = c.capacity_type;
  c.labels[kLabelNodePool] = pool.name;
  if (!ctx_.settings.auto_mode) c.labels[kLabelNodeClassOss] = nc.name;
  else c.labels["eks.amazonaws.com/compute-type"] = "auto";
}

}  // namespace eksim::autoscaling::karpenter
