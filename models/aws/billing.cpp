#include "models/aws/billing.hpp"

namespace eksim::aws {

std::int64_t billed_seconds(engine::Duration runtime) {
  std::int64_t s = runtime.us <= 0 ? 0 : (runtime.us + 999999) / 1000000;
  return s < kMinimumBilledSeconds ? kMinimumBilledSeconds : s;
}

double instance_cost_usd(double hourly_usd, engine::Duration runtime) {
  return hourly_usd * static_cast<double>(billed_seconds(runtime)) / 3600.0;
}

namespace {
void add_to(BillingLedger::Totals& totals, std::string_view key, double usd) {
  if (key.empty()) return;
  auto it = totals.find(key);
  if (it == totals.end()) it = totals.emplace(std::string(key), 0.0).first;
  it->second += usd;
}
}  // namespace

void BillingLedger::add_instance(std::string_view owner, double hourly_usd, engine::SimTime launch,
                                 engine::SimTime end, const BilledInstance& where) {
  const double usd = instance_cost_usd(hourly_usd, end - launch);
  instances_usd_ += usd;
  add_to(by_owner_, owner, usd);
  add_to(by_instance_, where.instance_id, usd);
  add_to(by_zone_, where.zone, usd);
  add_to(by_capacity_type_, where.capacity_type, usd);
}

void BillingLedger::add_transfer(std::string_view src_owner, std::string_view src_az, std::string_view dst_owner,
                                 std::string_view dst_az, double bytes) {
  if (src_az == dst_az || bytes <= 0) return;
  const double each = bytes / kBytesPerBilledGb * kCrossAzUsdPerGbEachDirection;
  cross_az_usd_ += 2 * each;
  for (auto owner : {src_owner, dst_owner}) add_to(by_owner_, owner, each);
}

}  // namespace eksim::aws
