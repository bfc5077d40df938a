#pragma once
// Standard 5-field cron schedules for NodePool disruption budgets (`schedule` + `duration`).
// Karpenter parses them with robfig/cron's ParseStandard in UTC (pkg/apis/v1 Budget.IsActive):
// minute hour day-of-month month day-of-week; `*`, lists, ranges, `/step`, month and weekday
// names, and the @yearly/@annually/@monthly/@weekly/@daily/@midnight/@hourly descriptors. As in
// robfig/cron (and Vixie cron), when both day fields are restricted a day matching either one
// matches; when one of them starts with `*` both must match.
#include <bitset>
#include <cstdint>
#include <optional>
#include <string>

namespace eksim::autoscaling::karpenter {

struct CronSchedule {
  std::bitset<60> minute;
  std::bitset<24> hour;
  std::bitset<32> dom;    // 1..31
  std::bitset<13> month;  // 1..12
  std::bitset<7> dow;     // 0 = Sunday
  bool dom_star = false, dow_star = false;
};

// nullopt (and *error set) when the expression is not a valid standard cron spec.
std::optional<CronSchedule> parse_cron(const std::string& spec, std::string* error = nullptr);

// Whether the minute containing unix_seconds (UTC) is a hit.
bool cron_matches(const CronSchedule& s, std::int64_t unix_seconds);

// Budget.IsActive: a hit h with now - duration < h <= now (schedule.Next(now - duration) is not
// after now).
bool cron_window_active(const CronSchedule& s, std::int64_t now_unix_seconds, std::int64_t duration_seconds);

}  // namespace eksim::autoscaling::karpenter
