#pragma once
// Finite EC2 capacity pools. A pool is (instance type, Availability Zone, capacity type); a
// scenario can give a pool a number of instances EC2 can still hand out, and every pool it does
// not name is unlimited (the normal case for small types). A launch takes one slot, termination
// gives it back. A launch into an exhausted pool fails with InsufficientInstanceCapacity and
// AWS's own message, which names the zones where that type still has capacity.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "models/aws/aws_error.hpp"

namespace eksim::aws {

// On-Demand text (RunInstances and the ASG StatusMessage), e.g.
// "We currently do not have sufficient g5.xlarge capacity in the Availability Zone you requested
// (ap-northeast-2a). Our system will be working on provisioning additional capacity. You can
// currently get g5.xlarge capacity by not specifying an Availability Zone in your request or
// choosing ap-northeast-2b, ap-northeast-2c."
// With no other zone to offer, the text stops after "additional capacity." (doubtful: that
// variant is remembered, not found in a stored source).
AwsError insufficient_capacity_on_demand(std::string_view instance_type, std::string_view az,
                                         const std::vector<std::string>& other_azs);
// Spot text as the ASG reports it: "There is no Spot capacity available that matches your request."
AwsError insufficient_capacity_spot();

class CapacityPools {
 public:
  // nullopt = unlimited (the default for every pool).
  void set_capacity(std::string_view instance_type, std::string_view az, bool spot,
                    std::optional<std::int64_t> instances);
  std::optional<std::int64_t> capacity(std::string_view instance_type, std::string_view az, bool spot) const;
  std::int64_t in_use(std::string_view instance_type, std::string_view az, bool spot) const;
  bool has_capacity(std::string_view instance_type, std::string_view az, bool spot) const;

  // Takes one instance from the pool or returns InsufficientInstanceCapacity. region_azs lists
  // the region's zones in order; the On-Demand message names those (other than az) where the
  // type still has capacity.
  std::optional<AwsError> try_acquire(std::string_view instance_type, std::string_view az, bool spot,
                                      const std::vector<std::string>& region_azs);
  // Takes a slot for an instance that exists regardless of the pool (a scenario's starting
  // instances); never refuses.
  void acquire_unchecked(std::string_view instance_type, std::string_view az, bool spot);
  void release(std::string_view instance_type, std::string_view az, bool spot);

 private:
  struct Pool {
    std::optional<std::int64_t> capacity;
    std::int64_t in_use = 0;
  };
  using Key = std::tuple<std::string, std::string, bool>;
  std::map<Key, Pool> pools_;
};

}  // namespace eksim::aws
