// EKS and EC2 checks eksim makes at load time: node group names, Region codes, subnet blocks.
#include <gtest/gtest.h>

#include "models/aws/nodegroup_spec.hpp"
#include "models/aws/regions.hpp"
#include "models/aws/subnet_addresses.hpp"

namespace eksim::aws {
namespace {

TEST(NodegroupName, EksRule) {
  EXPECT_FALSE(nodegroup_name_error("gpu"));
  EXPECT_FALSE(nodegroup_name_error("0_gpu-a100"));
  EXPECT_FALSE(nodegroup_name_error(std::string(63, 'a')));
  EXPECT_EQ(nodegroup_name_error(std::string(64, 'a'))->message, "nodeGroupName can't be longer than 63 characters!");
  for (const char* bad : {"", "-gpu", "_gpu", "a/b c", "gpu.large", "gpu:1"}) {
    auto e = nodegroup_name_error(bad);
    ASSERT_TRUE(e) << bad;
    EXPECT_EQ(e->code, "InvalidParameterException");
    EXPECT_EQ(e->message.rfind("The nodegroup name parameter contains invalid characters.", 0), 0u);
  }
}

TEST(Regions, KnownCodesOnly) {
  EXPECT_TRUE(is_aws_region("us-east-1"));
  EXPECT_TRUE(is_aws_region("ap-northeast-2"));
  EXPECT_TRUE(is_aws_region("us-gov-west-1"));
  EXPECT_FALSE(is_aws_region("mars-central-1"));
  EXPECT_FALSE(is_aws_region("us-east1"));
  EXPECT_FALSE(is_aws_region(""));
}

TEST(Ipv4Block, ContainsAndOverlaps) {
  auto vpc = parse_ipv4_block("10.0.0.0/16"), a = parse_ipv4_block("10.0.0.0/20"), b = parse_ipv4_block("10.0.8.0/24"),
       c = parse_ipv4_block("10.0.16.0/20"), out = parse_ipv4_block("10.1.0.0/20");
  ASSERT_TRUE(vpc && a && b && c && out);
  EXPECT_EQ(vpc->first, 10u << 24);
  EXPECT_EQ(vpc->last, (10u << 24) | 0xFFFFu);
  EXPECT_TRUE(vpc->contains(*a));
  EXPECT_FALSE(vpc->contains(*out));
  EXPECT_TRUE(a->overlaps(*b));
  EXPECT_FALSE(a->overlaps(*c));  // adjacent blocks do not overlap
  EXPECT_EQ(parse_ipv4_block("10.0.1.7/24")->first, parse_ipv4_block("10.0.1.0/24")->first);  // host bits ignored
  EXPECT_EQ(parse_ipv4_block("0.0.0.0/0")->last, 0xFFFFFFFFu);
  EXPECT_FALSE(parse_ipv4_block("10.0.0/16"));
  EXPECT_FALSE(parse_ipv4_block("10.0.0.0"));  // a block needs its prefix
  EXPECT_EQ(cidr_block_size("10.0.1.0/24"), 256);
  EXPECT_EQ(invalid_subnet_range_error("10.1.0.0/20").str(), "InvalidSubnet.Range: The CIDR '10.1.0.0/20' is invalid.");
  EXPECT_EQ(subnet_conflict_error("10.0.8.0/24").str(),
            "InvalidSubnet.Conflict: The CIDR '10.0.8.0/24' conflicts with another subnet");
}

}  // namespace
}  // namespace eksim::aws
