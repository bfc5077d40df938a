// The AWS cloud provider: GetInstanceTypes (pkg/providers/instancetype) and Create
// (pkg/providers/instance: CreateFleet over the cheapest offerings, insufficient-capacity errors
// into the unavailable-offerings cache).
#include "models/autoscaling/karpenter/aws/cloudprovider.hpp"

#include <algorithm>

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

std::vector<InstanceTypeInfo>& AwsCloudProvider::instance_types(const NodeClass& nc) {
  auto it = types_by_class_.find(nc.name);
  if (it == types_by_class_.end()) {
    InstanceTypeOptions opts;
    opts.region = world_.spec().region;
    opts.prices = &world_.prices();
    opts.domain = settings_.domain();
    opts.vm_memory_overhead_percent = settings_.vm_memory_overhead_percent;
    opts.reserved_enis = settings_.reserved_enis;
    std::vector<std::string> zones;
    for (const auto& id : nc.subnet_ids)
      if (const aws::Subnet* s = world_.ec2.subnet(id))
        if (std::find(zones.begin(), zones.end(), s->az) == zones.end()) zones.push_back(s->az);
    std::sort(zones.begin(), zones.end());
    opts.zones = zones;
    std::vector<InstanceTypeInfo> types;
    // Types without an On-Demand price in the region have no offerings and can never launch
    // there (the pricing provider has nothing to offer): leave them out of every pass rather
    // than filter them again for each pod.
    std::vector<std::string> user_priced;
    for (const auto& p : world_.spec().pricing.prices)
      if (p.region == opts.region && !p.spot) user_priced.push_back(p.instance_type);
    for (const aws::InstanceType* t : world_.catalog().priced_in(opts.region, user_priced))
      types.push_back(build_instance_type(*t, opts, nc));
    it = types_by_class_.emplace(nc.name, std::move(types)).first;
  }
  ice_.apply(it->second, world_.sim.now());
  return it->second;
}

bool AwsCloudProvider::instance_alive(const std::string& instance_id) const {
  const aws::Instance* inst = world_.ec2.find(instance_id);
  return inst && inst->alive();
}

namespace {

struct Override {
  double price;
  const InstanceTypeInfo* type;
  std::string zone;
};

// CreateFleet's overrides: the first kMaxInstanceTypes options' offerings of one capacity type
// (spot when the requirements allow it and a spot offering is available), cheapest first:
// lowest-price (on-demand) and price-capacity-optimized (spot) both start from the cheapest.
std::vector<Override> fleet_overrides(const PlannedNodeClaim& planned, std::string& ct) {
  const Requirements& reqs = planned.requirements;
  const std::size_t n_types = std::min(planned.options.size(), kMaxInstanceTypes);
  auto offered = [&](const Offering& o, const std::string& capacity_type) {
    const Requirement* z = reqs.find(k8s::kLabelZone);
    return o.available && o.capacity_type == capacity_type && (!z || z->has(o.zone));
  };
  ct = "on-demand";
  if (reqs.get(kLabelCapacityType).has("spot"))
    for (std::size_t i = 0; i < n_types && ct != "spot"; ++i)
      for (const auto& o : planned.options[i]->offerings)
        if (offered(o, "spot")) ct = "spot";
  std::vector<Override> overrides;
  for (std::size_t i = 0; i < n_types; ++i)
    for (const auto& o : planned.options[i]->offerings)
      if (offered(o, ct)) overrides.push_back(Override{o.price, planned.options[i], o.zone});
  std::stable_sort(overrides.begin(), overrides.end(), [](const Override& a, const Override& b) {
    if (a.price != b.price) return a.price < b.price;
    if (a.type->name() != b.type->name()) return a.type->name() < b.type->name();
    return a.zone < b.zone;
  });
  return overrides;
}

}  // namespace

CreateResult AwsCloudProvider::create(const NodeClaimState& claim, const PlannedNodeClaim& planned, const NodeClass& nc) {
  const SimTime now = world_.sim.now();
  std::string ct;
  const std::vector<Override> overrides = fleet_overrides(planned, ct);
  CreateResult out;
  std::optional<aws::AwsError> last_error;
  const std::uint64_t marks_before = ice_.marks();
  for (const auto& o : overrides) {
    aws::LaunchRequest lr;
    lr.type = o.type->type;
    // ZonalSubnetsForLaunch: per zone the selected subnet with the most available addresses.
    std::int64_t best = -1;
    for (const auto& id : nc.subnet_ids) {
      const aws::Subnet* s = world_.ec2.subnet(id);
      if (!s || s->az != o.zone) continue;
      const std::int64_t free = world_.ec2.available_addresses(id);
      if (free > best) {
        best = free;
        lr.subnet_id = id;
      }
    }
    lr.security_groups = nc.security_groups;
    lr.spot = ct == "spot";
    lr.iam_role = nc.role;
    lr.owner = claim.name;
    lr.tags = nc.tags;
    lr.tags["karpenter.sh/nodepool"] = claim.node_pool;
    lr.tags["karpenter.sh/nodeclaim"] = claim.name;
    lr.tags["eks:eks-cluster-name"] = world_.spec().name;
    auto r = world_.ec2.run_instance(lr);
    if (auto* err = std::get_if<aws::AwsError>(&r)) {
      last_error = *err;
      if (is_insufficient_capacity_error(err->code)) {
        ice_.mark(o.type->name(), o.zone, ct, now);
        continue;
      }
      break;
    }
    out.instance = CreatedInstance{std::get<std::string>(r), o.type, o.zone, ct, o.price,
                                   instance_type_requirements(*o.type->type, settings_.domain())};
    break;
  }
  // Offerings that just failed are out for the rest of the batch.
  if (ice_.marks() != marks_before) ice_.apply(types_by_class_[nc.name], now);
  if (!out.instance && last_error) {
    out.error = last_error->str();
    out.insufficient_capacity = is_insufficient_capacity_error(last_error->code);
  }
  return out;
}

}  // namespace eksim::autoscaling::karpenter
