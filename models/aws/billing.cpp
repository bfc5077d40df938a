#include "models/aws/billing.hpp"

namespace eksim::aws {

std::int64_t billed_seconds(engine::Duration runtime) {
  std::int64_t s = runtime.us <= 0 ? 0 : (runtime.us + 999999) / 1000000;
  return s < kMinimumBilledSeconds ? kMinimumBilledSeconds : s;
}

double instance_cost_usd(double hourly_usd, engine::Duration runtime) {
  return hourly_usd * static_cast<double>(billed_seconds(runtime)) / 3600.0;
}

void BillingLedger::add_instance(std::string_view owner, double hourly_usd, engine::SimTime launch,
                                 engine::SimTime end) {
  const double usd = instance_cost_usd(hourly_usd, end - launch);
  instances_usd_ += usd;
  auto it = by_owner_.find(owner);
  if (it == by_owner_.end()) it = by_owner_.emplace(std::string(owner), 0.0).first;
  it->second += usd;
}

void BillingLedger::add_transfer(std::string_view src_owner, std::string_view src_az, std::string_view dst_owner,
                                 std::string_view dst_az, double bytes) {
  if (src_az == dst_az || bytes <= 0) return;
  const double each = bytes / kBytesPerBilledGb * kCrossAzUsdPerGbEachDirection;
  cross_az_usd_ += 2 * each;
  for (auto owner : {src_owner, dst_owner}) {
    auto it = by_owner_.find(owner);
    if (it == by_owner_.end()) it = by_owner_.emplace(std::string(owner), 0.0).first;
    it->second += each;
  }
}

}  // namespace eksim::aws
