#include "models/autoscaling/karpenter/cron.hpp"

#include <gtest/gtest.h>

namespace eksim::autoscaling::karpenter {
namespace {

// 2024-01-01T00:00:00Z, a Monday.
constexpr std::int64_t kMon = 1704067200;
constexpr std::int64_t kMin = 60, kHour = 3600, kDay = 86400;

TEST(KarpenterCron, ParsesStandardFieldsAndDescriptors) {
  struct Row {
    const char* spec;
    bool valid;
  };
  const Row rows[] = {{"0 9 * * 1-5", true},   {"*/15 * * * *", true}, {"0 0 1 jan,jul *", true},
                      {"30 2 * * SUN", true},  {"@daily", true},       {"@hourly", true},
                      {"0 9 * *", false},      {"60 * * * *", false},  {"0 24 * * *", false},
                      {"0 0 0 * *", false},    {"0 0 * 13 *", false},  {"*/0 * * * *", false},
                      {"0 0 * * funday", false}, {"5-1 * * * *", false}};
  for (const auto& r : rows) {
    std::string err;
    EXPECT_EQ(parse_cron(r.spec, &err).has_value(), r.valid) << r.spec << " " << err;
  }
  std::string err;
  EXPECT_FALSE(parse_cron("0 9 * *", &err));
  EXPECT_EQ(err, "expected exactly 5 fields, found 4: 0 9 * *");
}

TEST(KarpenterCron, MatchesCalendarFields) {
  auto weekdays9 = *parse_cron("0 9 * * 1-5");
  EXPECT_TRUE(cron_matches(weekdays9, kMon + 9 * kHour));
  EXPECT_TRUE(cron_matches(weekdays9, kMon + 9 * kHour + 59));  // same minute
  EXPECT_FALSE(cron_matches(weekdays9, kMon + 9 * kHour + kMin));
  EXPECT_FALSE(cron_matches(weekdays9, kMon + 5 * kDay + 9 * kHour));  // Saturday
  EXPECT_TRUE(cron_matches(weekdays9, kMon + 4 * kDay + 9 * kHour));   // Friday
  // Both day fields restricted: either matches (the 15th, or any Sunday).
  auto either = *parse_cron("0 0 15 * 0");
  EXPECT_TRUE(cron_matches(either, kMon + 14 * kDay));  // 2024-01-15, a Monday
  EXPECT_TRUE(cron_matches(either, kMon + 6 * kDay));   // 2024-01-07, a Sunday
  EXPECT_FALSE(cron_matches(either, kMon + 2 * kDay));
  // One restricted, one starred: both must match.
  auto only15 = *parse_cron("0 0 15 * *");
  EXPECT_FALSE(cron_matches(only15, kMon + 6 * kDay));
  auto feb29 = *parse_cron("0 0 29 feb *");
  EXPECT_TRUE(cron_matches(feb29, kMon + 59 * kDay));  // 2024 is a leap year
  EXPECT_TRUE(cron_matches(*parse_cron("@weekly"), kMon + 6 * kDay));
  EXPECT_TRUE(cron_matches(*parse_cron("*/15 * * * *"), kMon + 45 * kMin));
  EXPECT_FALSE(cron_matches(*parse_cron("*/15 * * * *"), kMon + 50 * kMin));
}

TEST(KarpenterCron, BudgetWindowIsHitWithinDuration) {
  // A budget "0 9 * * 1-5" for 8h is active Mon-Fri 09:00 (inclusive) to 17:00 (exclusive).
  auto s = *parse_cron("0 9 * * 1-5");
  const std::int64_t d = 8 * kHour;
  struct Row {
    std::int64_t at;
    bool active;
  };
  const Row rows[] = {
      {kMon + 8 * kHour + 59 * kMin, false},
      {kMon + 9 * kHour, true},
      {kMon + 12 * kHour, true},
      {kMon + 17 * kHour - 1, true},
      {kMon + 17 * kHour, false},
      {kMon + 5 * kDay + 10 * kHour, false},  // Saturday
      {kMon + 4 * kDay + 16 * kHour, true},   // Friday afternoon
  };
  for (const auto& r : rows) EXPECT_EQ(cron_window_active(s, r.at, d), r.active) << r.at - kMon;
  // A window crossing midnight: 22:00 for 4h is active at 01:00 the next day.
  auto night = *parse_cron("0 22 * * *");
  EXPECT_TRUE(cron_window_active(night, kMon + kDay + kHour, 4 * kHour));
  EXPECT_FALSE(cron_window_active(night, kMon + kDay + 2 * kHour, 4 * kHour));
  // Zero duration is never active.
  EXPECT_FALSE(cron_window_active(s, kMon + 9 * kHour, 0));
}

}  // namespace
}  // namespace eksim::autoscaling::karpenter
