#include "sim/engine/time.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace eksim::engine {
namespace {

struct ParseCase {
  const char* text;
  std::int64_t us;
};

class ParseDurationTest : public ::testing::TestWithParam<ParseCase> {};

TEST_P(ParseDurationTest, ParsesGoDurations) {
  auto d = parse_duration(GetParam().text);
  ASSERT_TRUE(d.has_value()) << GetParam().text;
  EXPECT_EQ(d->us, GetParam().us) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(Table, ParseDurationTest,
                         ::testing::Values(ParseCase{"500ms", 500000}, ParseCase{"90s", 90000000},
                                           ParseCase{"15m", 900000000}, ParseCase{"1h30m", 5400000000},
                                           ParseCase{"720h", 2592000000000}, ParseCase{"0", 0},
                                           ParseCase{"1.5h", 5400000000}, ParseCase{"2h45m30.5s", 9930500000},
                                           ParseCase{"-1m", -60000000}, ParseCase{"100us", 100},
                                           ParseCase{"100\xc2\xb5s", 100}, ParseCase{"1500ns", 1},
                                           ParseCase{"+5s", 5000000}, ParseCase{".5s", 500000}));

TEST(ParseDuration, RejectsWhatGoRejects) {
  for (const char* bad : {"", "5", "1d", "h", "1.s.", "abc", "1 h", "s5", "--1s", "1e3s"})
    EXPECT_FALSE(parse_duration(bad).has_value()) << bad;
}

struct FormatCase {
  std::int64_t us;
  const char* text;
};

class FormatDurationTest : public ::testing::TestWithParam<FormatCase> {};

TEST_P(FormatDurationTest, PrintsLikeGo) { EXPECT_EQ(format_duration(Duration{GetParam().us}), GetParam().text); }

INSTANTIATE_TEST_SUITE_P(Table, FormatDurationTest,
                         ::testing::Values(FormatCase{0, "0s"}, FormatCase{900000000, "15m0s"},
                                           FormatCase{5400000000, "1h30m0s"}, FormatCase{1500000, "1.5s"},
                                           FormatCase{500000, "500ms"}, FormatCase{1500, "1.5ms"},
                                           FormatCase{7, "7\xc2\xb5s"}, FormatCase{58965000, "58.965s"},
                                           FormatCase{-90000000, "-1m30s"}, FormatCase{2592000000000, "720h0m0s"},
                                           FormatCase{201000000, "3m21s"}));

TEST(FormatDuration, RoundTripsThroughParse) {
  for (std::int64_t us : {1LL, 999LL, 1000LL, 123456789LL, 3600000000LL, 86400000001LL}) {
    auto back = parse_duration(format_duration(Duration{us}));
    ASSERT_TRUE(back) << us;
    EXPECT_EQ(back->us, us);
  }
}

TEST(FormatClock, FixedWidthHoursMinutesSecondsMillis) {
  EXPECT_EQ(format_clock(SimTime{0}), "00:00:00.000");
  EXPECT_EQ(format_clock(SimTime{3723500000}), "01:02:03.500");
  EXPECT_EQ(format_clock(SimTime{100LL * 3600 * 1000000}), "100:00:00.000");
}

TEST(Duration, FromSecondsRoundsToMicroseconds) {
  EXPECT_EQ(Duration::from_seconds(58.965).us, 58965000);
  EXPECT_EQ(Duration::from_seconds(0.0000004).us, 0);
  EXPECT_EQ(Duration::from_seconds(0.0000006).us, 1);
}

// Issue 42 item 3: `sleep 1e300` and a grace period of 2^63-1 seconds wrapped to negative
// durations (done at once); they saturate at the rails and so last past the end of any run.
TEST(Duration, SaturatesInsteadOfWrapping) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(Duration::from_seconds(1e300), Duration::max());
  EXPECT_EQ(Duration::from_seconds(std::numeric_limits<double>::infinity()), Duration::max());
  EXPECT_EQ(Duration::from_seconds(9223372036854.775807), Duration::max());  // 2^63 us, rounded to a double
  EXPECT_EQ(Duration::from_seconds(-1e300).us, kMin);
  EXPECT_EQ(Duration::from_seconds(std::nan("")).us, 0);
  EXPECT_EQ(Duration::seconds(kMax), Duration::max());
  EXPECT_EQ(Duration::seconds(kMin).us, kMin);
  EXPECT_EQ(Duration::hours(kMax / 1000), Duration::max());
  EXPECT_EQ(Duration::millis(-kMax).us, kMin);
  EXPECT_EQ(Duration::max() + Duration::seconds(1), Duration::max());
  EXPECT_EQ(Duration{kMin} - Duration::seconds(1), Duration{kMin});
  EXPECT_EQ(Duration::seconds(3) * kMax, Duration::max());
  EXPECT_EQ(Duration::seconds(-3) * kMax, Duration{kMin});
  Duration d = Duration::max();
  d += Duration::seconds(1);
  EXPECT_EQ(d, Duration::max());
  static_assert(Duration::seconds(kMax) == Duration::max(), "constexpr and saturating");
}

TEST(SimTime, SaturatesInsteadOfWrapping) {
  const SimTime now = SimTime{} + Duration::hours(1);
  EXPECT_EQ(now + Duration::max(), SimTime::max());
  EXPECT_EQ(now + Duration::from_seconds(1e300), SimTime::max());
  SimTime t = SimTime::max();
  t += Duration::seconds(1);
  EXPECT_EQ(t, SimTime::max());
  EXPECT_EQ(SimTime::max() - SimTime{-1}, Duration::max());
  EXPECT_LT(now, now + Duration::seconds(std::numeric_limits<std::int64_t>::max()));
}

TEST(ParseRfc3339, ReadsWhatGoReads) {
  EXPECT_EQ(parse_rfc3339("2026-01-01T00:00:00Z"), 1767225600LL * 1000000);  // the default start
  EXPECT_EQ(parse_rfc3339("2026-01-01T09:00:00+09:00"), 1767225600LL * 1000000);
  EXPECT_EQ(parse_rfc3339("2026-01-01T00:00:00.25Z"), 1767225600LL * 1000000 + 250000);
  EXPECT_EQ(parse_rfc3339("2024-02-29T12:00:00Z"), 1709208000LL * 1000000);  // a leap day
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:00:00Z"), 0);
}

TEST(ParseRfc3339, RefusesWhatIsNoTime) {
  for (const char* bad : {"yesterday", "", "2026-01-01", "2026-01-01T00:00:00", "2026-1-1T0:0:0Z", "2026-02-30T00:00:00Z",
                          "2025-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:00:60Z",
                          "2026-01-01T00:00:00Zjunk", "2026-01-01T00:00:00.Z", "1969-12-31T23:59:59Z",
                          "1970-01-01T00:30:00+01:00"})
    EXPECT_FALSE(parse_rfc3339(bad).has_value()) << bad;
}

}  // namespace
}  // namespace eksim::engine
