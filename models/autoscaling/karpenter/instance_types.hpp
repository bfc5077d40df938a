#pragma once
// Karpenter's view of EC2 instance types (karpenter-provider-aws pkg/providers/instancetype):
// requirements from the type's well-known labels, capacity with the VM memory overhead,
// allocatable as the kubelet will compute it, and offerings (zone x capacity type with a price)
// minus the ones in the unavailable-offerings (ICE) cache.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "models/autoscaling/karpenter/nodepool.hpp"
#include "models/autoscaling/karpenter/requirements.hpp"
#include "models/aws/instance_catalog.hpp"
#include "models/aws/pricing.hpp"
#include "models/k8s/api/resources.hpp"
#include "sim/engine/time.hpp"

namespace eksim::autoscaling::karpenter {

struct Offering {
  std::string zone;
  std::string capacity_type;  // spot | on-demand
  double price = 0;           // $/h
  bool available = true;
};

struct InstanceTypeInfo {
  const aws::InstanceType* type = nullptr;
  Requirements requirements;
  k8s::ResourceList capacity;     // cpu, memory (after VM overhead), pods, ephemeral-storage, nvidia.com/gpu
  k8s::ResourceList allocatable;  // capacity - kube-reserved - eviction threshold
  std::vector<Offering> offerings;
  const std::string& name() const { return type->name; }
  // Cheapest available offering allowed by reqs (zone and capacity type); -1 when none.
  double cheapest(const Requirements& reqs) const;
  bool has_offering(const Requirements& reqs) const { return cheapest(reqs) >= 0; }
};

// "Gravitons have an extra 64 MiB of cma reserved memory that we can't use" (karpenter-provider-aws
// pkg/providers/instancetype/types.go memory()).
inline constexpr std::int64_t kGravitonCmaReservedMiB = 64;

struct InstanceTypeOptions {
  std::string region;
  // Prices of the region; a type without an On-Demand price there gets no offerings (Karpenter's
  // pricing provider has none to offer). nullptr: the catalog's prices for `region`.
  const aws::PriceBook* prices = nullptr;
  std::vector<std::string> zones;
  LabelDomain domain = LabelDomain::Oss;
  double vm_memory_overhead_percent = 0.075;  // VM_MEMORY_OVERHEAD_PERCENT default
  int reserved_enis = 0;                      // RESERVED_ENIS default
};

// The well-known-label requirements of one type (no offerings: capacity type and zone are added
// by build_instance_type from the offerings).
Requirements instance_type_requirements(const aws::InstanceType& t, LabelDomain domain);
InstanceTypeInfo build_instance_type(const aws::InstanceType& t, const InstanceTypeOptions& opts, const NodeClass& nc);

// The unavailable-offerings cache: offerings that failed with an insufficient-capacity error stay
// out of scheduling for 3 minutes (karpenter-provider-aws UnavailableOfferingsTTL).
class UnavailableOfferings {
 public:
  static constexpr engine::Duration kTtl = engine::Duration::minutes(3);
  void mark(const std::string& type, const std::string& zone, const std::string& capacity_type, engine::SimTime now);
  bool unavailable(std::string_view type, const std::string& zone, const std::string& capacity_type,
                   engine::SimTime now) const;
  // Sets Offering::available on every offering of the types (and forgets expired marks).
  void apply(std::vector<InstanceTypeInfo>& types, engine::SimTime now);
  std::size_t size(engine::SimTime now) const;
  // Number of mark() calls so far: with size(now), tells whether availability changed.
  std::uint64_t marks() const { return marks_; }

 private:
  std::uint64_t marks_ = 0;
  struct Mark {
    std::string zone;
    std::string capacity_type;
    engine::SimTime until;
  };
  std::map<std::string, std::vector<Mark>, std::less<>> until_;  // by instance type
};

// EC2 error codes Karpenter treats as insufficient capacity (pkg/errors: ICE codes, vCPU limits,
// spot count limits).
bool is_insufficient_capacity_error(const std::string& code);

}  // namespace eksim::autoscaling::karpenter
