#include "models/autoscaling/karpenter/instance_types.hpp"

#include <algorithm>

#include "models/k8s/kubelet/allocatable.hpp"

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
  // computeRequirements (karpenter-provider-aws pkg/providers/instancetype/types.go): every
  // well-known label the type has is In [value]; the optional ones (GPU, accelerator, local
  // NVMe, bandwidths) start as DoesNotExist, so `Gt 0` or `In` requirements on them exclude the
  // types without them.
  Requirements r;
  auto in = [&](const std::string& key, const std::string& v) { r.add(Requirement(key, "In", {v})); };
  auto optional = [&](const char* name, bool present, const std::string& v) {
    if (present) in(instance_key(d, name), v);
    else r.add(Requirement(instance_key(d, name), "DoesNotExist"));
  };
  in(k8s::kLabelInstanceType, t.name);
  in(k8s::kLabelArch, t.arch);
  in(k8s::kLabelOs, "linux");
  in(instance_key(d, "instance-category"), t.category);
  in(instance_key(d, "instance-family"), t.family);
  in(instance_key(d, "instance-generation"), std::to_string(t.generation));
  in(instance_key(d, "instance-size"), t.size);
  in(instance_key(d, "instance-cpu"), std::to_string(t.vcpu));
  in(instance_key(d, "instance-cpu-manufacturer"), t.cpu_manufacturer);
  in(instance_key(d, "instance-memory"), std::to_string(t.memory_mib));
  // Bare metal has no hypervisor: the label's value is "" (EC2 reports none).
  in(instance_key(d, "instance-hypervisor"), t.hypervisor);
  in(instance_key(d, "instance-capability-flex"), t.capability_flex() ? "true" : "false");
  // Fractional-GPU types (g6f) carry the GPU's name and memory slice with a count of 0.
  const bool gpu = t.gpu.count > 0 || !t.gpu.name.empty();
  optional("instance-gpu-name", gpu, t.gpu.name);
  optional("instance-gpu-manufacturer", gpu, t.gpu.manufacturer);
  optional("instance-gpu-count", gpu, std::to_string(t.gpu.count));
  optional("instance-gpu-memory", gpu, std::to_string(t.gpu.memory_mib));
  const bool acc = t.accelerator.count > 0;
  optional("instance-accelerator-name", acc, t.accelerator.name);
  optional("instance-accelerator-manufacturer", acc, t.accelerator.manufacturer);
  optional("instance-accelerator-count", acc, std::to_string(t.accelerator.count));
  optional("instance-local-nvme", t.local_nvme_gb > 0, std::to_string(t.local_nvme_gb));
  optional("instance-ebs-bandwidth", t.ebs_bandwidth_mbps > 0, std::to_string(t.ebs_bandwidth_mbps));
  const auto mbps = static_cast<std::int64_t>(t.network_baseline_gbps * 1000 + 0.5);
  optional("instance-network-bandwidth", mbps > 0, std::to_string(mbps));
  return r;
}

InstanceTypeInfo build_instance_type(const aws::InstanceType& t, const InstanceTypeOptions& opts, const NodeClass& nc) {
  InstanceTypeInfo info;
  info.type = &t;
  info.requirements = instance_type_requirements(t, opts.domain);
  std::vector<std::string> cts;
  // No On-Demand price in the region: no offerings at all (the pricing provider has nothing to
  // offer), so the type never launches there.
  const aws::PriceBook fallback = opts.prices ? aws::PriceBook() : aws::PriceBook(opts.region, {});
  const aws::PriceBook& prices = opts.prices ? *opts.prices : fallback;
  const auto od = prices.on_demand(t);
  const auto spot = prices.spot(t);
  if (od) {
    for (const auto& z : opts.zones) {
      if (spot) info.offerings.push_back(Offering{z, "spot", prices.spot(t, z)->usd_per_hour, true});
      info.offerings.push_back(Offering{z, "on-demand", prices.on_demand(t, z)->usd_per_hour, true});
    }
    if (spot) cts.push_back("spot");
    cts.push_back("on-demand");
  }
  info.requirements.add(Requirement(kLabelCapacityType, "In", cts));
  info.requirements.add(Requirement(k8s::kLabelZone, "In", opts.zones));
  // Capacity as Karpenter predicts it before launch: EC2 memory minus the VM overhead, ENI-limited
  // pods (or the NodeClass's kubelet maxPods), the NodeClass's root volume. ENIs kept for other
  // uses (RESERVED_ENIS) carry no pods: (ENIs - reserved) * (IPv4 per ENI - 1) + 2, and no pods
  // at all when none is left (ENILimitedPods, karpenter-provider-aws pkg/providers/instancetype).
  // Gravitons keep 64 MiB of CMA reserved memory the kubelet cannot use; Karpenter takes it off
  // before the VM overhead (pkg/providers/instancetype/types.go memory()).
  const std::int64_t memory_mib = t.memory_mib - (t.arch == "arm64" ? kGravitonCmaReservedMiB : 0);
  k8s::NodeShape shape{t.vcpu, k8s::karpenter_memory_capacity_bytes(memory_mib, opts.vm_memory_overhead_percent) / 1024,
                       t.default_card_enis - opts.reserved_enis, t.ipv4_per_eni, t.gpu.count, nc.root_volume_gib};
  k8s::KubeletOptions ko = nc.kubelet;
  ko.max_pods = nc.max_pods;
  ko.advertise_gpus = true;
  ko.root_filesystem_size = false;  // Karpenter predicts from the volume size (20Gi -> 17Gi allocatable)
  auto res = k8s::node_resources(shape, ko);
  info.capacity = res.capacity;
  info.allocatable = res.allocatable;
  return info;
}

void UnavailableOfferings::mark(const std::string& type, const std::string& zone, const std::string& ct, engine::SimTime now) {
  auto& marks = until_[type];
  auto it = std::find_if(marks.begin(), marks.end(), [&](const Mark& m) { return m.zone == zone && m.capacity_type == ct; });
  if (it == marks.end()) marks.push_back(Mark{zone, ct, now + kTtl});
  else it->until = now + kTtl;
  ++marks_;
}

bool UnavailableOfferings::unavailable(std::string_view type, const std::string& zone, const std::string& ct,
                                       engine::SimTime now) const {
  auto it = until_.find(type);
  if (it == until_.end()) return false;
  for (const Mark& m : it->second)
    if (m.zone == zone && m.capacity_type == ct) return now < m.until;
  return false;
}

void UnavailableOfferings::apply(std::vector<InstanceTypeInfo>& types, engine::SimTime now) {
  // Expired marks go first: the cache is mostly empty, and then no type needs a lookup.
  for (auto it = until_.begin(); it != until_.end();) {
    std::erase_if(it->second, [now](const Mark& m) { return now >= m.until; });
    it = it->second.empty() ? until_.erase(it) : std::next(it);
  }
  for (auto& t : types) {
    const bool marked = !until_.empty() && until_.count(t.name());
    for (auto& o : t.offerings) o.available = !marked || !unavailable(t.name(), o.zone, o.capacity_type, now);
  }
}

std::size_t UnavailableOfferings::size(engine::SimTime now) const {
  std::size_t n = 0;
  for (const auto& [type, marks] : until_)
    for (const Mark& m : marks)
      if (now < m.until) ++n;
  return n;
}

bool is_insufficient_capacity_error(const std::string& code) {
  return code == "InsufficientInstanceCapacity" || code == "VcpuLimitExceeded" ||
         code == "MaxSpotInstanceCountExceeded" || code == "UnfulfillableCapacity" ||
         code == "InsufficientFreeAddressesInSubnet";
}

}  // namespace eksim::autoscaling::karpenter
