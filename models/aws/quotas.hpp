#pragma once
// Regional EC2 vCPU quotas ("Running On-Demand G and VT instances", "All G and VT Spot Instance
// Requests", ...). A quota is per region, per instance bucket, and On-Demand and Spot are counted
// separately. Usage is the vCPUs of running AND pending instances (EC2 counts an instance against
// the quota from the moment RunInstances accepts it), so the ledger reserves at launch request
// and releases at termination. A bucket without a quota is unlimited (the scenario's `quotas:`
// lists only what it wants to constrain).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/aws/aws_error.hpp"

namespace eksim::aws {

// Bucket names as the instance catalog's quota_bucket spells them.
// Source: Service Quotas, EC2 "Running On-Demand ... instances" / "All ... Spot Instance Requests".
inline constexpr std::string_view kQuotaBuckets[] = {"Standard", "G", "P", "F", "X", "Inf", "DL", "Trn", "HPC", "HighMemory"};

bool is_quota_bucket(std::string_view bucket);

// Service Quotas code of a bucket (L-1216C47A for On-Demand Standard, L-3819A6DF for G and VT
// Spot, ...); empty for Spot HPC and High Memory, which EC2 does not offer as Spot.
std::string_view quota_code(std::string_view bucket, bool spot);

// EC2's text for a launch that would exceed the On-Demand vCPU quota; limit is the quota value.
// "You have requested more vCPU capacity than your current vCPU limit of 8 allows for the
// instance bucket that the specified instance type belongs to. Please visit
// http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit."
AwsError vcpu_limit_exceeded(std::int64_t limit);

// EC2's error for a Spot launch beyond the Spot vCPU quota. EC2 does not print the limit here:
// code MaxSpotInstanceCountExceeded, message "Max spot instance count exceeded" (EC2 User Guide,
// "Spot Instance quotas"; the same text appears in RunInstances/RequestSpotInstances errors).
AwsError max_spot_instance_count_exceeded();

class VcpuQuotaLedger {
 public:
  // Sets (or with nullopt removes) the quota of a bucket; used at start and by ec2.set-quota.
  // Lowering a quota below current usage does not touch running instances (as in EC2); it only
  // refuses new launches until usage falls below it.
  void set_quota(std::string_view bucket, bool spot, std::optional<std::int64_t> vcpus);
  // nullopt = unlimited.
  std::optional<std::int64_t> quota(std::string_view bucket, bool spot) const;
  // vCPUs of running and pending instances.
  std::int64_t usage(std::string_view bucket, bool spot) const;

  // Reserves vcpus in the bucket if usage + vcpus stays within the quota; otherwise changes
  // nothing and returns EC2's error (VcpuLimitExceeded for On-Demand,
  // MaxSpotInstanceCountExceeded for Spot).
  std::optional<AwsError> try_reserve(std::string_view bucket, bool spot, std::int64_t vcpus);
  // Counts vcpus of an instance that exists regardless of the quota (instances a scenario starts
  // with: an account may already run above a lowered quota). Never refuses.
  void reserve_unchecked(std::string_view bucket, bool spot, std::int64_t vcpus);
  // Returns vcpus to the bucket when an instance terminates (or its launch is rolled back).
  void release(std::string_view bucket, bool spot, std::int64_t vcpus);

  // Every (bucket, spot) with a quota or usage, in a stable order, for reports.
  struct Line {
    std::string bucket;
    bool spot = false;
    std::optional<std::int64_t> quota;
    std::int64_t usage = 0;
  };
  std::vector<Line> lines() const;

 private:
  struct Entry {
    std::optional<std::int64_t> quota;
    std::int64_t usage = 0;
  };
  using Key = std::pair<std::string, bool>;
  std::map<Key, Entry, std::less<>> entries_;
};

}  // namespace eksim::aws
