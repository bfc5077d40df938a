// NodeClaim launch (pkg/controllers/nodeclaim/lifecycle/launch.go and karpenter-provider-aws
// CreateFleet): offerings cheapest first, insufficient-capacity errors into the ICE cache.
#include "models/autoscaling/karpenter/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

int Controller::launch(const PlannedNodeClaim& planned, bool replacement) {
  const NodePool& pool = *planned.tmpl->pool;
  const NodeClass& nc = classes_.at(pool.node_class_name);
  const SimTime now = c_.sim.now();
  const Requirements& reqs = planned.requirements;
  // Capacity type: spot when the requirements allow it and a spot offering is available.
  std::size_t n_types = std::min(planned.options.size(), kMaxInstanceTypes);
  auto offered = [&](const Offering& o, const std::string& ct) {
    const Requirement* z = reqs.find(k8s::kLabelZone);
    return o.available && o.capacity_type == ct && (!z || z->has(o.zone));
  };
  std::string ct = "on-demand";
  if (reqs.get(kLabelCapacityType).has("spot"))
    for (std::size_t i = 0; i < n_types && ct != "spot"; ++i)
      for (const auto& o : planned.options[i]->offerings)
        if (offered(o, "spot")) ct = "spot";
  struct Override {
    double price;
    const InstanceTypeInfo* type;
    std::string zone;
  };
  std::vector<Override> overrides;
  for (std::size_t i = 0; i < n_types; ++i)
    for (const auto& o : planned.options[i]->offerings)
      if (offered(o, ct)) overrides.push_back(Override{o.price, planned.options[i], o.zone});
  // lowest-price (on-demand) and price-capacity-optimized (spot) both start from the cheapest.
  std::stable_sort(overrides.begin(), overrides.end(), [](const Override& a, const Override& b) {
    if (a.price != b.price) return a.price < b.price;
    if (a.type->name() != b.type->name()) return a.type->name() < b.type->name();
    return a.zone < b.zone;
  });

  NodeClaimState c;
  // generateName: the API server refuses a name already taken and the client asks again, so a
  // name stays one NodeClaim's for the whole run (indexes below key on it).
  do c.name = pool.name + "-" + c_.api.random_suffix();
  while (claim_index_by_name_.count(c.name));
  c.node_pool = pool.name;
  c.node_class = nc.name;
  c.requirements = reqs;
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

  std::optional<aws::AwsError> last_error;
  const aws::InstanceType* chosen = nullptr;
  const std::uint64_t marks_before = ice_.marks();
  for (const auto& o : overrides) {
    aws::LaunchRequest lr;
    lr.type = o.type->type;
    // ZonalSubnetsForLaunch: per zone the selected subnet with the most available addresses.
    std::int64_t best = -1;
    for (const auto& id : nc.subnet_ids) {
      const aws::Subnet* s = c_.ec2.subnet(id);
      if (!s || s->az != o.zone) continue;
      const std::int64_t free = c_.ec2.available_addresses(id);
      if (free > best) {
        best = free;
        lr.subnet_id = id;
      }
    }
    lr.security_groups = nc.security_groups;
    lr.spot = ct == "spot";
    lr.iam_role = nc.role;
    lr.owner = c.name;
    lr.tags = nc.tags;
    lr.tags["karpenter.sh/nodepool"] = pool.name;
    lr.tags["karpenter.sh/nodeclaim"] = c.name;
    lr.tags["eks:eks-cluster-name"] = c_.spec().name;
    auto r = c_.ec2.run_instance(lr);
    if (auto* err = std::get_if<aws::AwsError>(&r)) {
      last_error = *err;
      if (is_insufficient_capacity_error(err->code)) {
        ice_.mark(o.type->name(), o.zone, ct, now);
        continue;
      }
      break;
    }
    c.instance_id = std::get<std::string>(r);
    c.instance_type = o.type->name();
    chosen = o.type->type;
    c.zone = o.zone;
    c.capacity_type = ct;
    c.price_per_hour = o.price;
    c.capacity = o.type->capacity;
    c.allocatable = o.type->allocatable;
    break;
  }
  // Offerings that just failed are out for the rest of the batch.
  if (ice_.marks() != marks_before) ice_.apply(types_by_class_[nc.name], now);
  if (c.instance_id.empty()) {
    // The NodeClaim is deleted and the pods go back to the next batch without those offerings.
    c.phase = NodeClaimPhase::Deleted;
    c.deleted_at = now;
    add_claim(c);
    std::string msg = last_error ? last_error->str() : "no instance type offerings available";
    if (last_error && is_insufficient_capacity_error(last_error->code)) {
      event(EventType::Warning, "InsufficientCapacityError", claim_ref(c.name),
            "NodeClaim " + c.name + " event: creating instance, insufficient capacity, with fleet error(s), " + msg);
    } else {
      engine::Activity a;
      a.start = a.end = now;
      a.service = "ec2";
      a.resource = c.name;
      a.status = "Failed";
      a.description = "CreateFleet for NodeClaim " + c.name;
      a.status_message = msg;
      c_.log.record_activity(std::move(a));
    }
    trigger();
    return -1;
  }
  // Labels: template labels, requirement labels (custom keys get one of their values), the
  // launched type's well-known labels, pool and class.
  c.labels = pool.labels;
  for (const auto& [k, v] : reqs.labels())
    if (!restricted_label(domain(), k) || well_known_labels(domain()).count(k)) c.labels[k] = v;
  const Requirements type_reqs = instance_type_requirements(*chosen, domain());
  for (const auto& [k, r] : type_reqs.all())
    if (r.op() == "In") c.labels[k] = r.any();
  c.labels[k8s::kLabelZone] = c.zone;
  c.labels[kLabelCapacityType] = ct;
  c.labels[kLabelNodePool] = pool.name;
  if (!settings_.auto_mode) c.labels[kLabelNodeClassOss] = nc.name;
  else c.labels["eks.amazonaws.com/compute-type"] = "auto";
  engine::Activity a;
  a.start = a.end = now;
  a.service = "ec2";
  a.resource = c.name;
  a.status = "Successful";
  a.description = "launched nodeclaim " + c.name + " instance-type=" + c.instance_type + " zone=" + c.zone +
                  " capacity-type=" + ct + " provider-id=aws:///" + c.zone + "/" + c.instance_id;
  c_.log.record_activity(std::move(a));
  log_created(c, planned, replacement);
  log_launched(c);
  const std::size_t idx = add_claim(c);
  start_liveness(c.name);
  return static_cast<int>(idx);
}

}  // namespace eksim::autoscaling::karpenter
