#include "models/aws/capacity.hpp"

#include <gtest/gtest.h>

namespace eksim::aws {
namespace {

const std::vector<std::string> kAzs{"ap-northeast-2a", "ap-northeast-2b", "ap-northeast-2c", "ap-northeast-2d"};

TEST(AwsCapacity, UnlimitedByDefault) {
  CapacityPools p;
  for (int i = 0; i < 1000; ++i) ASSERT_FALSE(p.try_acquire("g5.xlarge", "ap-northeast-2a", false, kAzs));
  EXPECT_EQ(p.in_use("g5.xlarge", "ap-northeast-2a", false), 1000);
}

TEST(AwsCapacity, ExhaustedPoolGivesAwsMessageNamingZonesWithCapacity) {
  CapacityPools p;
  p.set_capacity("g5.xlarge", "ap-northeast-2a", false, 1);
  p.set_capacity("g5.xlarge", "ap-northeast-2d", false, 0);
  ASSERT_FALSE(p.try_acquire("g5.xlarge", "ap-northeast-2a", false, kAzs));
  auto err = p.try_acquire("g5.xlarge", "ap-northeast-2a", false, kAzs);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->code, "InsufficientInstanceCapacity");
  EXPECT_EQ(err->message,
            "We currently do not have sufficient g5.xlarge capacity in the Availability Zone you requested "
            "(ap-northeast-2a). Our system will be working on provisioning additional capacity. You can currently get "
            "g5.xlarge capacity by not specifying an Availability Zone in your request or choosing ap-northeast-2b, "
            "ap-northeast-2c.");
  p.release("g5.xlarge", "ap-northeast-2a", false);
  EXPECT_FALSE(p.try_acquire("g5.xlarge", "ap-northeast-2a", false, kAzs));
}

TEST(AwsCapacity, UncheckedAcquireOverfillsPool) {
  CapacityPools p;
  p.set_capacity("g5.xlarge", "ap-northeast-2a", false, 1);
  p.acquire_unchecked("g5.xlarge", "ap-northeast-2a", false);
  p.acquire_unchecked("g5.xlarge", "ap-northeast-2a", false);
  EXPECT_EQ(p.in_use("g5.xlarge", "ap-northeast-2a", false), 2);
  EXPECT_TRUE(p.try_acquire("g5.xlarge", "ap-northeast-2a", false, kAzs));
  p.release("g5.xlarge", "ap-northeast-2a", false);
  EXPECT_TRUE(p.try_acquire("g5.xlarge", "ap-northeast-2a", false, kAzs));  // 1 in use of 1
  p.release("g5.xlarge", "ap-northeast-2a", false);
  EXPECT_FALSE(p.try_acquire("g5.xlarge", "ap-northeast-2a", false, kAzs));
}

TEST(AwsCapacity, NoOtherZone) {
  CapacityPools p;
  for (const auto& az : kAzs) p.set_capacity("p5.48xlarge", az, false, 0);
  auto err = p.try_acquire("p5.48xlarge", "ap-northeast-2b", false, kAzs);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->message,
            "We currently do not have sufficient p5.48xlarge capacity in the Availability Zone you requested "
            "(ap-northeast-2b). Our system will be working on provisioning additional capacity.");
}

TEST(AwsCapacity, SpotPoolIsSeparateAndHasItsOwnText) {
  CapacityPools p;
  p.set_capacity("g5.xlarge", "ap-northeast-2a", true, 0);
  EXPECT_FALSE(p.try_acquire("g5.xlarge", "ap-northeast-2a", false, kAzs));  // on-demand unaffected
  auto err = p.try_acquire("g5.xlarge", "ap-northeast-2a", true, kAzs);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->code, "InsufficientInstanceCapacity");
  EXPECT_EQ(err->message, "There is no Spot capacity available that matches your request.");
  EXPECT_EQ(p.capacity("g5.xlarge", "ap-northeast-2a", true), 0);
  EXPECT_FALSE(p.capacity("g5.xlarge", "ap-northeast-2b", true));
}

}  // namespace
}  // namespace eksim::aws
