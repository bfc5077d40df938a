#include "sim/serve/clock.hpp"

#include <gtest/gtest.h>

#include "sim/serve/time_base.hpp"

namespace eksim::serve {
namespace {

TEST(Clock, Speeds) {
  EXPECT_TRUE(parse_speed("paused", nullptr)->paused);
  EXPECT_TRUE(parse_speed("max", nullptr)->max);
  EXPECT_DOUBLE_EQ(parse_speed("600", nullptr)->factor, 600);
  EXPECT_EQ(speed_text(*parse_speed("0.5", nullptr)), "0.5");
  std::string error;
  EXPECT_FALSE(parse_speed("fast", &error));
  EXPECT_EQ(error, "--speed: expected a factor such as 1, 60 or 600, or max or paused, got \"fast\"");
  EXPECT_FALSE(parse_speed("-1", &error));
  EXPECT_FALSE(parse_speed("0", &error));
}

TEST(Clock, UntilConditions) {
  auto c = parse_until("pod/gpu-pod Running", nullptr);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->type, "pods");
  EXPECT_EQ(c->ns, "default");
  EXPECT_EQ(c->name, "gpu-pod");
  EXPECT_EQ(c->state, "Running");
  c = parse_until("po/nvidia/plugin-x  Ready", nullptr);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->ns, "nvidia");
  EXPECT_EQ(c->name, "plugin-x");
  EXPECT_EQ(c->state, "Ready");
  EXPECT_EQ(parse_until("nodeclaim/gpu-pool-abcde Initialized", nullptr)->type, "karpenter.sh/nodeclaims");
  std::string error;
  EXPECT_FALSE(parse_until("gpu-pod Running", &error));
  EXPECT_EQ(error, "expected KIND/NAME before the state, got \"gpu-pod\"");
  EXPECT_FALSE(parse_until("pod/gpu-pod", &error));
  EXPECT_FALSE(parse_until("svc/web Ready", &error));
  EXPECT_EQ(error, "eksim ctl until knows pod/, node/, nodeclaim/ and nodepool/, got \"svc/\"");
}

TEST(Clock, TimestampsRoundTripAndRebase) {
  std::int64_t us = 0;
  ASSERT_TRUE(parse_rfc3339("2026-01-01T00:05:12Z", us));
  EXPECT_EQ(rfc3339(us), "2026-01-01T00:05:12Z");
  ASSERT_TRUE(parse_rfc3339("2026-01-01T00:05:12.250000Z", us));
  EXPECT_EQ(rfc3339(us, true), "2026-01-01T00:05:12.250000Z");
  EXPECT_FALSE(parse_rfc3339("5m12s", us));
  nlohmann::json doc = {{"t", "2026-01-01T00:00:00Z"}, {"list", {"2026-01-01T00:00:01.000000Z", "text"}}, {"n", 3}};
  rebase_timestamps(doc, 3600LL * 1000000);
  EXPECT_EQ(doc["t"], "2026-01-01T01:00:00Z");
  EXPECT_EQ(doc["list"][0], "2026-01-01T01:00:01.000000Z");
  EXPECT_EQ(doc["list"][1], "text");
}

}  // namespace
}  // namespace eksim::serve
