#pragma once
// What the simulated cluster costs. EC2 Linux instances are billed per second with a 60-second
// minimum (EC2 pricing page, "Per Second Billing"); partial seconds are rounded up here. Spot is
// the On-Demand price times a factor the scenario sets. Data crossing Availability Zones costs
// $0.01/GB in each direction: the sender pays for data out and the receiver for data in, so one
// GB sent from zone a to zone b costs $0.02 in total (EC2 pricing, "Data Transfer within the
// same AWS Region"). Amounts accumulate per node group (or NodePool) name.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "sim/engine/time.hpp"

namespace eksim::aws {

// Source: EC2 On-Demand pricing, per-second billing for Linux with a one-minute minimum.
inline constexpr std::int64_t kMinimumBilledSeconds = 60;
// Source: EC2 pricing, data transfer between Availability Zones in the same region.
inline constexpr double kCrossAzUsdPerGbEachDirection = 0.01;
// AWS bills data transfer per GB of 2^30 bytes.
inline constexpr double kBytesPerBilledGb = 1073741824.0;

// Seconds billed for an instance that ran for runtime: whole seconds rounded up, at least 60.
std::int64_t billed_seconds(engine::Duration runtime);
// Cost of one instance run at hourly_usd.
double instance_cost_usd(double hourly_usd, engine::Duration runtime);
// Spot price as a fraction of On-Demand (the scenario's spot factor, e.g. 0.35).
inline double spot_hourly_usd(double on_demand_hourly_usd, double spot_factor) {
  return on_demand_hourly_usd * spot_factor;
}

// Where an instance ran, for the per-instance, per-zone and per-capacity-type totals. Empty fields
// are left out of those totals.
struct BilledInstance {
  std::string_view instance_id;
  std::string_view zone;
  std::string_view capacity_type;  // "on-demand" or "spot", as the report's nodes[].capacityType
};

class BillingLedger {
 public:
  using Totals = std::map<std::string, double, std::less<>>;

  // An instance of owner (node group or NodePool name) ran from launch to end (termination, or
  // the end of the simulation for instances still running).
  void add_instance(std::string_view owner, double hourly_usd, engine::SimTime launch, engine::SimTime end,
                    const BilledInstance& where = {});
  // bytes sent from an instance of src_owner in one AZ to an instance of dst_owner in another;
  // no charge when the zones are the same.
  void add_transfer(std::string_view src_owner, std::string_view src_az, std::string_view dst_owner,
                    std::string_view dst_az, double bytes);

  double total_usd() const { return instances_usd_ + cross_az_usd_; }
  double instances_usd() const { return instances_usd_; }
  double cross_az_transfer_usd() const { return cross_az_usd_; }
  // Instance and transfer charges per owner, sorted by name (the report's cost.byNodeGroup).
  const Totals& by_owner() const { return by_owner_; }
  // Instance charges only: a cross-AZ transfer belongs to no single zone or instance.
  const Totals& by_instance() const { return by_instance_; }
  const Totals& by_zone() const { return by_zone_; }
  const Totals& by_capacity_type() const { return by_capacity_type_; }

 private:
  double instances_usd_ = 0;
  double cross_az_usd_ = 0;
  Totals by_owner_, by_instance_, by_zone_, by_capacity_type_;
};

}  // namespace eksim::aws
