#pragma once
// The EC2 instance types the simulator knows: shape, GPUs, network, ENI limits, vCPU quota bucket
// and prices. The data lives in models/data/instances.json (embedded in the binary); this file
// only gives it types and looks it up.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace eksim::aws {

struct GpuInfo {
  int count = 0;
  std::string manufacturer;  // "nvidia"
  std::string name;          // as Karpenter's karpenter.k8s.aws/instance-gpu-name label: "a10g", "t4"
  std::int64_t memory_mib = 0;  // per GPU (karpenter.k8s.aws/instance-gpu-memory)
  std::string interconnect;     // "pcie" | "nvlink"; empty without GPUs
  double nvlink_gbytes_per_s = 0;
};

struct InstanceType {
  std::string name;      // "g5.xlarge"
  std::string family;    // "g5"
  std::string category;  // "g" (letters before the generation digit, as Karpenter's instance-category)
  std::string size;      // "xlarge"
  int generation = 0;    // 5
  int vcpu = 0;
  std::int64_t memory_mib = 0;         // advertised by EC2
  std::int64_t kubelet_memory_ki = 0;  // Node status.capacity.memory the kubelet reports
  bool memory_estimated = false;       // kubelet_memory_ki derived, not measured
  std::string arch;                    // "amd64" | "arm64" (kubernetes.io/arch)
  GpuInfo gpu;
  double network_burst_gbps = 0;
  double network_baseline_gbps = 0;
  bool network_up_to = false;  // "Up to N Gigabit": burst above baseline on a credit basis
  int max_enis = 0;            // all network cards together (EC2 MaximumNetworkInterfaces)
  int default_card_enis = 0;   // ENIs on network card 0, the only card the VPC CNI uses for pods
  int ipv4_per_eni = 0;
  int network_cards = 1;
  bool efa = false;
  std::string quota_bucket;  // "Standard", "G", "P", ...
  std::map<std::string, double> on_demand_usd_per_hour;  // region -> $/h
  double spot_price_factor = 0;  // typical spot price / on-demand price

  // On-demand $/h in region; regions the catalog has no price for fall back to us-east-1.
  double on_demand_price(std::string_view region) const;
  double spot_price(std::string_view region) const { return on_demand_price(region) * spot_price_factor; }
  bool has_gpus() const { return gpu.count > 0; }
};

struct QuotaBucket {
  std::string name;                   // "G"
  std::vector<std::string> families;  // instance-family prefixes: "G", "VT"
  std::string on_demand_quota_code;   // Service Quotas code, "L-DB2E81BA"
  std::string spot_quota_code;        // empty where not known
  std::string on_demand_quota_name;
};

class InstanceCatalog {
 public:
  // The embedded models/data/instances.json, parsed once.
  static const InstanceCatalog& builtin();
  // Throws std::runtime_error naming the key path ("instanceTypes[3].network.burst_gbps") of
  // anything missing or mistyped.
  static InstanceCatalog from_json(std::string_view json_text);

  const InstanceType* find(std::string_view name) const;
  const std::vector<InstanceType>& all() const { return types_; }  // in file order
  std::vector<std::string> names() const;                          // sorted
  const std::map<std::string, QuotaBucket>& quota_buckets() const { return buckets_; }
  // Service Quotas code of a bucket ("G", spot=false -> "L-DB2E81BA"); "" when unknown.
  std::string quota_code(std::string_view bucket, bool spot) const;
  // Bucket of an instance type name by its family prefix (longest match: "vt1" -> "G",
  // "inf2" -> "Inf"); "" when no bucket matches.
  std::string bucket_for(std::string_view instance_type) const;

 private:
  std::vector<InstanceType> types_;
  std::map<std::string, QuotaBucket> buckets_;
};

// "g5.xlarge" -> family "g5", category "g", generation 5, size "xlarge" (fills those fields).
void split_instance_type_name(std::string_view name, InstanceType& out);

}  // namespace eksim::aws
