#include "models/aws/capacity.hpp"

namespace eksim::aws {

AwsError insufficient_capacity_on_demand(std::string_view instance_type, std::string_view az,
                                         const std::vector<std::string>& other_azs) {
  std::string t(instance_type);
  std::string msg = "We currently do not have sufficient " + t + " capacity in the Availability Zone you requested (" +
                    std::string(az) + "). Our system will be working on provisioning additional capacity.";
  if (!other_azs.empty()) {
    msg += " You can currently get " + t +
           " capacity by not specifying an Availability Zone in your request or choosing ";
    for (std::size_t i = 0; i < other_azs.size(); ++i) {
      if (i) msg += ", ";
      msg += other_azs[i];
    }
    msg += ".";
  }
  return {"InsufficientInstanceCapacity", msg};
}

AwsError insufficient_capacity_spot() {
  return {"InsufficientInstanceCapacity", "There is no Spot capacity available that matches your request."};
}

void CapacityPools::set_capacity(std::string_view instance_type, std::string_view az, bool spot,
                                 std::optional<std::int64_t> instances) {
  pools_[Key{std::string(instance_type), std::string(az), spot}].capacity = instances;
}

std::optional<std::int64_t> CapacityPools::capacity(std::string_view instance_type, std::string_view az,
                                                    bool spot) const {
  auto it = pools_.find(Key{std::string(instance_type), std::string(az), spot});
  return it == pools_.end() ? std::nullopt : it->second.capacity;
}

std::int64_t CapacityPools::in_use(std::string_view instance_type, std::string_view az, bool spot) const {
  auto it = pools_.find(Key{std::string(instance_type), std::string(az), spot});
  return it == pools_.end() ? 0 : it->second.in_use;
}

bool CapacityPools::has_capacity(std::string_view instance_type, std::string_view az, bool spot) const {
  auto it = pools_.find(Key{std::string(instance_type), std::string(az), spot});
  if (it == pools_.end() || !it->second.capacity) return true;
  return it->second.in_use < *it->second.capacity;
}

std::optional<AwsError> CapacityPools::try_acquire(std::string_view instance_type, std::string_view az, bool spot,
                                                   const std::vector<std::string>& region_azs) {
  if (!has_capacity(instance_type, az, spot)) {
    if (spot) return insufficient_capacity_spot();
    std::vector<std::string> others;
    for (const auto& z : region_azs)
      if (z != az && has_capacity(instance_type, z, spot)) others.push_back(z);
    return insufficient_capacity_on_demand(instance_type, az, others);
  }
  pools_[Key{std::string(instance_type), std::string(az), spot}].in_use += 1;
  return std::nullopt;
}

void CapacityPools::acquire_unchecked(std::string_view instance_type, std::string_view az, bool spot) {
  pools_[Key{std::string(instance_type), std::string(az), spot}].in_use += 1;
}

void CapacityPools::release(std::string_view instance_type, std::string_view az, bool spot) {
  auto it = pools_.find(Key{std::string(instance_type), std::string(az), spot});
  if (it != pools_.end() && it->second.in_use > 0) it->second.in_use -= 1;
}

}  // namespace eksim::aws
