#include "models/aws/billing.hpp"

#include <gtest/gtest.h>

namespace eksim::aws {
namespace {

using engine::Duration;
using engine::SimTime;

TEST(AwsBilling, PerSecondWithSixtySecondMinimum) {
  EXPECT_EQ(billed_seconds(Duration{}), 60);
  EXPECT_EQ(billed_seconds(Duration::seconds(1)), 60);
  EXPECT_EQ(billed_seconds(Duration::seconds(60)), 60);
  EXPECT_EQ(billed_seconds(Duration::seconds(61)), 61);
  EXPECT_EQ(billed_seconds(Duration::millis(61001)), 62);  // partial second rounds up
  EXPECT_EQ(billed_seconds(Duration::hours(2)), 7200);
  EXPECT_DOUBLE_EQ(instance_cost_usd(1.237, Duration::seconds(10)), 1.237 * 60 / 3600);
  EXPECT_DOUBLE_EQ(instance_cost_usd(1.237, Duration::hours(1)), 1.237);
  EXPECT_DOUBLE_EQ(spot_hourly_usd(1.0, 0.35), 0.35);
}

TEST(AwsBilling, AccumulatesPerNodeGroup) {
  BillingLedger b;
  const SimTime t0{};
  b.add_instance("gpu", 1.237, t0, t0 + Duration::minutes(30));           // 0.6185
  b.add_instance("gpu", 1.237, t0, t0 + Duration::seconds(5));            // minimum: 60 s
  b.add_instance("system", 0.118, t0, t0 + Duration::hours(2));           // 0.236
  EXPECT_NEAR(b.by_owner().at("gpu"), 0.6185 + 1.237 / 60, 1e-12);
  EXPECT_NEAR(b.by_owner().at("system"), 0.236, 1e-12);
  EXPECT_NEAR(b.instances_usd(), 0.6185 + 1.237 / 60 + 0.236, 1e-12);
  EXPECT_EQ(b.cross_az_transfer_usd(), 0.0);
}

TEST(AwsBilling, TotalsPerInstanceZoneAndCapacityType) {
  BillingLedger b;
  const SimTime t0{};
  b.add_instance("gpu", 1.0, t0, t0 + Duration::hours(1), {"i-1", "ap-northeast-2a", "spot"});
  b.add_instance("gpu", 2.0, t0, t0 + Duration::hours(1), {"i-2", "ap-northeast-2b", "on-demand"});
  b.add_instance("system", 0.5, t0, t0 + Duration::hours(2), {"i-3", "ap-northeast-2a", "on-demand"});
  b.add_transfer("gpu", "ap-northeast-2a", "gpu", "ap-northeast-2b", 1073741824.0);
  EXPECT_NEAR(b.by_instance().at("i-2"), 2.0, 1e-12);
  EXPECT_NEAR(b.by_zone().at("ap-northeast-2a"), 2.0, 1e-12);
  EXPECT_NEAR(b.by_zone().at("ap-northeast-2b"), 2.0, 1e-12);
  EXPECT_NEAR(b.by_capacity_type().at("spot"), 1.0, 1e-12);
  EXPECT_NEAR(b.by_capacity_type().at("on-demand"), 3.0, 1e-12);
  EXPECT_NEAR(b.by_owner().at("gpu"), 3.02, 1e-12) << "the node group carries its transfer";
  EXPECT_EQ(b.by_instance().size(), 3u) << "transfer is no instance's";
}

TEST(AwsBilling, CrossAzTransferBothDirections) {
  BillingLedger b;
  const double gib = 1073741824.0;
  b.add_transfer("gpu", "ap-northeast-2a", "gpu", "ap-northeast-2a", 100 * gib);  // same AZ: free
  EXPECT_EQ(b.total_usd(), 0.0);
  b.add_transfer("gpu", "ap-northeast-2a", "cpu", "ap-northeast-2c", 10 * gib);
  EXPECT_NEAR(b.cross_az_transfer_usd(), 0.20, 1e-12);  // $0.01 out + $0.01 in per GB
  EXPECT_NEAR(b.by_owner().at("gpu"), 0.10, 1e-12);
  EXPECT_NEAR(b.by_owner().at("cpu"), 0.10, 1e-12);
  EXPECT_NEAR(b.total_usd(), 0.20, 1e-12);
}

}  // namespace
}  // namespace eksim::aws
