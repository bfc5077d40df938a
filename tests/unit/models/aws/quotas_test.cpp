#include "models/aws/quotas.hpp"

#include <gtest/gtest.h>

namespace eksim::aws {
namespace {

const char* kVcpu8 =
    "You have requested more vCPU capacity than your current vCPU limit of 8 allows for the instance bucket that the "
    "specified instance type belongs to. Please visit http://aws.amazon.com/contact-us/ec2-request to request an "
    "adjustment to this limit.";

TEST(AwsQuotas, UnlimitedWhenNotSet) {
  VcpuQuotaLedger q;
  EXPECT_FALSE(q.quota("G", false));
  EXPECT_FALSE(q.try_reserve("G", false, 100000));
  EXPECT_EQ(q.usage("G", false), 100000);
}

TEST(AwsQuotas, ExactMessageWithTheRealLimit) {
  VcpuQuotaLedger q;
  q.set_quota("G", false, 8);
  EXPECT_FALSE(q.try_reserve("G", false, 4));  // g5.xlarge pending
  EXPECT_FALSE(q.try_reserve("G", false, 4));  // second one: exactly at the limit
  auto err = q.try_reserve("G", false, 4);     // third: 12 > 8
  ASSERT_TRUE(err);
  EXPECT_EQ(err->code, "VcpuLimitExceeded");
  EXPECT_EQ(err->message, kVcpu8);
  EXPECT_EQ(err->str(), std::string("VcpuLimitExceeded: ") + kVcpu8);
  EXPECT_EQ(q.usage("G", false), 8);  // a refused launch reserves nothing
}

TEST(AwsQuotas, ZeroQuotaRefusesFirstLaunch) {
  VcpuQuotaLedger q;
  q.set_quota("P", false, 0);
  auto err = q.try_reserve("P", false, 8);
  ASSERT_TRUE(err);
  EXPECT_NE(err->message.find("current vCPU limit of 0 allows"), std::string::npos);
}

TEST(AwsQuotas, BucketsAndCapacityTypesAreSeparate) {
  VcpuQuotaLedger q;
  q.set_quota("G", false, 8);
  q.set_quota("G", true, 4);
  q.set_quota("Standard", false, 4);
  EXPECT_FALSE(q.try_reserve("G", false, 8));
  EXPECT_FALSE(q.try_reserve("G", true, 4));          // spot has its own quota
  EXPECT_FALSE(q.try_reserve("Standard", false, 4));  // as has another bucket
  EXPECT_FALSE(q.try_reserve("P", false, 96));        // unset bucket: unlimited
  EXPECT_TRUE(q.try_reserve("G", false, 4));
  EXPECT_TRUE(q.try_reserve("Standard", false, 2));
  EXPECT_EQ(q.usage("G", false), 8);
  EXPECT_EQ(q.usage("G", true), 4);
  EXPECT_EQ(q.usage("Standard", true), 0);
}

TEST(AwsQuotas, SpotUsesMaxSpotInstanceCountExceeded) {
  VcpuQuotaLedger q;
  q.set_quota("G", true, 4);
  EXPECT_FALSE(q.try_reserve("G", true, 4));
  auto err = q.try_reserve("G", true, 4);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->code, "MaxSpotInstanceCountExceeded");
  EXPECT_EQ(err->message, "Max spot instance count exceeded");
}

TEST(AwsQuotas, ReleaseOnTerminationFreesTheQuota) {
  VcpuQuotaLedger q;
  q.set_quota("G", false, 8);
  ASSERT_FALSE(q.try_reserve("G", false, 8));
  ASSERT_TRUE(q.try_reserve("G", false, 4));
  q.release("G", false, 4);
  EXPECT_EQ(q.usage("G", false), 4);
  EXPECT_FALSE(q.try_reserve("G", false, 4));
}

TEST(AwsQuotas, SetQuotaAtRuntime) {
  VcpuQuotaLedger q;
  q.set_quota("G", false, 4);
  ASSERT_FALSE(q.try_reserve("G", false, 4));
  auto err = q.try_reserve("G", false, 4);
  ASSERT_TRUE(err);
  EXPECT_NE(err->message.find("limit of 4 allows"), std::string::npos);
  q.set_quota("G", false, 16);  // ec2.set-quota: the increase is approved
  EXPECT_FALSE(q.try_reserve("G", false, 4));
  q.set_quota("G", false, 4);  // lowered below usage: running instances stay, new launches fail
  EXPECT_EQ(q.usage("G", false), 8);
  err = q.try_reserve("G", false, 4);
  ASSERT_TRUE(err);
  EXPECT_NE(err->message.find("limit of 4 allows"), std::string::npos);
  q.set_quota("G", false, std::nullopt);  // removed: unlimited again
  EXPECT_FALSE(q.try_reserve("G", false, 400));
}

TEST(AwsQuotas, PreExistingInstancesCountButAreNotRefused) {
  VcpuQuotaLedger q;
  q.set_quota("G", false, 4);
  q.reserve_unchecked("G", false, 8);
  EXPECT_EQ(q.usage("G", false), 8);
  EXPECT_TRUE(q.try_reserve("G", false, 4));
  q.release("G", false, 8);
  EXPECT_FALSE(q.try_reserve("G", false, 4));
}

TEST(AwsQuotas, QuotaCodesAndLines) {
  EXPECT_EQ(quota_code("Standard", false), "L-1216C47A");
  EXPECT_EQ(quota_code("G", false), "L-DB2E81BA");
  EXPECT_EQ(quota_code("G", true), "L-3819A6DF");
  EXPECT_EQ(quota_code("P", true), "L-7212CCBC");
  EXPECT_EQ(quota_code("DL", false), "L-6E869C2A");
  EXPECT_TRUE(is_quota_bucket("Inf"));
  EXPECT_FALSE(is_quota_bucket("VT"));
  VcpuQuotaLedger q;
  q.set_quota("P", false, 0);
  ASSERT_FALSE(q.try_reserve("G", true, 4));
  auto lines = q.lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].bucket, "G");
  EXPECT_TRUE(lines[0].spot);
  EXPECT_EQ(lines[0].usage, 4);
  EXPECT_EQ(lines[1].bucket, "P");
  EXPECT_EQ(lines[1].quota, 0);
}

}  // namespace
}  // namespace eksim::aws
