#include "models/aws/quotas.hpp"

#include <cassert>

namespace eksim::aws {

bool is_quota_bucket(std::string_view bucket) {
  for (auto b : kQuotaBuckets)
    if (b == bucket) return true;
  return false;
}

std::string_view quota_code(std::string_view bucket, bool spot) {
  // Source: FACTS.md "EC2, Auto Scaling, EKS managed node groups" (Service Quotas codes), and
  // Service Quotas' EC2 list for Trn, HPC, High Memory and the F/X/Inf/DL/Trn Spot codes (the
  // same codes as models/data/sources/eksim-additions.json quotaBuckets).
  struct Row {
    std::string_view bucket, on_demand, spot;
  };
  static constexpr Row kRows[] = {
      {"Standard", "L-1216C47A", "L-34B43A08"}, {"G", "L-DB2E81BA", "L-3819A6DF"},
      {"P", "L-417A185B", "L-7212CCBC"},        {"F", "L-74FC7D96", "L-88CF9481"},
      {"X", "L-7295265B", "L-E3A00192"},        {"Inf", "L-1945791B", "L-B5D1601B"},
      {"DL", "L-6E869C2A", "L-85EED4F7"},       {"Trn", "L-2C3B7624", "L-6B0D517C"},
      {"HPC", "L-F7808C92", ""},                {"HighMemory", "L-43DA4232", ""},
  };
  for (const auto& r : kRows)
    if (r.bucket == bucket) return spot ? r.spot : r.on_demand;
  return {};
}

AwsError vcpu_limit_exceeded(std::int64_t limit) {
  return {"VcpuLimitExceeded",
          "You have requested more vCPU capacity than your current vCPU limit of " + std::to_string(limit) +
              " allows for the instance bucket that the specified instance type belongs to. Please visit "
              "http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit."};
}

AwsError max_spot_instance_count_exceeded() {
  return {"MaxSpotInstanceCountExceeded", "Max spot instance count exceeded"};
}

void VcpuQuotaLedger::set_quota(std::string_view bucket, bool spot, std::optional<std::int64_t> vcpus) {
  entries_[Key{std::string(bucket), spot}].quota = vcpus;
}

std::optional<std::int64_t> VcpuQuotaLedger::quota(std::string_view bucket, bool spot) const {
  auto it = entries_.find(Key{std::string(bucket), spot});
  return it == entries_.end() ? std::nullopt : it->second.quota;
}

std::int64_t VcpuQuotaLedger::usage(std::string_view bucket, bool spot) const {
  auto it = entries_.find(Key{std::string(bucket), spot});
  return it == entries_.end() ? 0 : it->second.usage;
}

std::optional<AwsError> VcpuQuotaLedger::try_reserve(std::string_view bucket, bool spot, std::int64_t vcpus) {
  Entry& e = entries_[Key{std::string(bucket), spot}];
  if (e.quota && e.usage + vcpus > *e.quota)
    return spot ? max_spot_instance_count_exceeded() : vcpu_limit_exceeded(*e.quota);
  e.usage += vcpus;
  return std::nullopt;
}

void VcpuQuotaLedger::reserve_unchecked(std::string_view bucket, bool spot, std::int64_t vcpus) {
  entries_[Key{std::string(bucket), spot}].usage += vcpus;
}

void VcpuQuotaLedger::release(std::string_view bucket, bool spot, std::int64_t vcpus) {
  auto it = entries_.find(Key{std::string(bucket), spot});
  assert(it != entries_.end() && it->second.usage >= vcpus && "releasing vCPUs that were never reserved");
  if (it == entries_.end()) return;
  it->second.usage -= vcpus;
  if (it->second.usage < 0) it->second.usage = 0;
}

std::vector<VcpuQuotaLedger::Line> VcpuQuotaLedger::lines() const {
  std::vector<Line> out;
  for (const auto& [key, e] : entries_) {
    if (!e.quota && e.usage == 0) continue;
    out.push_back({key.first, key.second, e.quota, e.usage});
  }
  return out;
}

}  // namespace eksim::aws
