#include "models/autoscaling/karpenter/instance_types.hpp"

#include "models/k8s/allocatable.hpp"

namespace eksim::autoscaling::karpenter {

double InstanceTypeInfo::cheapest(const Requirements& reqs) const {
  const Requirement* zone = reqs.find(k8s::kLabelZone);
  const Requirement* ct = reqs.find(kLabelCapacityType);
  double best = -1;
  for (const auto& o : offerings) {
    if (!o.available) continue;
    if (zone && !zone->has(o.zone)) continue;
    if (ct && !ct->has(o.capacity_type)) continue;
    if (best < 0 || o.price < best) best = o.price;
  }
  return best;
}

Requirements instance_type_requirements(const aws::InstanceType& t, LabelDomain d) {
  Requirements r;
  auto in = [&](const std::string& key, const std::string& v) { r.add(Requirement(key, "In", {v})); };
  in(k8s::kLabelInstanceType, t.name);
  in(k8s::kLabelArch, t.arch);
  in(k8s::kLabelOs, "linux");
  in(instance_key(d, "instance-category"), t.category);
  in(instance_key(d, "instance-family"), t.family);
  in(instance_key(d, "instance-generation"), std::to_string(t.generation));
  in(instance_key(d, "instance-size"), t.size);
  in(instance_key(d, "instance-cpu"), std::to_string(t.vcpu));
  in(instance_key(d, "instance-memory"), std::to_string(t.memory_mib));
  in(instance_key(d, "instance-hypervisor"), "nitro");
  // GPU keys are DoesNotExist on types without GPUs (computeRequirements), so `Gt 0` or `In`
  // requirements on them exclude CPU-only types.
  if (t.gpu.count > 0) {
    in(instance_key(d, "instance-gpu-name"), t.gpu.name);
    in(instance_key(d, "instance-gpu-manufacturer"), t.gpu.manufacturer);
    in(instance_key(d, "instance-gpu-count"), std::to_string(t.gpu.count));
    in(instance_key(d, "instance-gpu-memory"), std::to_string(t.gpu.memory_mib));
  } else {
    for (const char* k : {"instance-gpu-name", "instance-gpu-manufacturer", "instance-gpu-count", "instance-gpu-memory"})
      r.add(Requirement(instance_key(d, k), "DoesNotExist"));
  }
  return r;
}

InstanceTypeInfo build_instance_type(const aws::InstanceType& t, const InstanceTypeOptions& opts, const NodeClass& nc) {
  InstanceTypeInfo info;
  info.type = &t;
  info.requirements = instance_type_requirements(t, opts.domain);
  std::vector<std::string> cts;
  const double od = t.on_demand_price(opts.region);
  for (const auto& z : opts.zones) {
    if (t.spot_price_factor > 0) info.offerings.push_back(Offering{z, "spot", od * t.spot_price_factor, true});
    info.offerings.push_back(Offering{z, "on-demand", od, true});
  }
  if (t.spot_price_factor > 0) cts.push_back("spot");
  cts.push_back("on-demand");
  info.requirements.add(Requirement(kLabelCapacityType, "In", cts));
  info.requirements.add(Requirement(k8s::kLabelZone, "In", opts.zones));
  // Capacity as Karpenter predicts it before launch: EC2 memory minus the VM overhead, ENI-limited
  // pods (or the NodeClass's kubelet maxPods), the NodeClass's root volume. ENIs kept for other
  // uses (RESERVED_ENIS) carry no pods: (ENIs - reserved) * (IPv4 per ENI - 1) + 2, and no pods
  // at all when none is left (ENILimitedPods, karpenter-provider-aws pkg/providers/instancetype).
  k8s::NodeShape shape{t.vcpu, k8s::karpenter_memory_capacity_bytes(t.memory_mib, opts.vm_memory_overhead_percent) / 1024,
                       t.default_card_enis - opts.reserved_enis, t.ipv4_per_eni, t.gpu.count, nc.root_volume_gib};
  k8s::KubeletOptions ko;
  ko.max_pods = nc.max_pods;
  ko.advertise_gpus = true;
  auto res = k8s::node_resources(shape, ko);
  info.capacity = res.capacity;
  info.allocatable = res.allocatable;
  return info;
}

void UnavailableOfferings::mark(const std::string& type, const std::string& zone, const std::string& ct, engine::SimTime now) {
  until_[{type, zone, ct}] = now + kTtl;
  ++marks_;
}

bool UnavailableOfferings::unavailable(const std::string& type, const std::string& zone, const std::string& ct,
                                       engine::SimTime now) const {
  auto it = until_.find({type, zone, ct});
  return it != until_.end() && now < it->second;
}

void UnavailableOfferings::apply(std::vector<InstanceTypeInfo>& types, engine::SimTime now) const {
  for (auto& t : types)
    for (auto& o : t.offerings) o.available = !unavailable(t.name(), o.zone, o.capacity_type, now);
}

std::size_t UnavailableOfferings::size(engine::SimTime now) const {
  std::size_t n = 0;
  for (const auto& [k, t] : until_)
    if (now < t) ++n;
  return n;
}

bool is_insufficient_capacity_error(const std::string& code) {
  return code == "InsufficientInstanceCapacity" || code == "VcpuLimitExceeded" ||
         code == "MaxSpotInstanceCountExceeded" || code == "UnfulfillableCapacity" ||
         code == "InsufficientFreeAddressesInSubnet";
}

}  // namespace eksim::autoscaling::karpenter
