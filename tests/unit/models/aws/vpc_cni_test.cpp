#include "models/aws/vpc_cni.hpp"

#include <gtest/gtest.h>

namespace eksim::aws {
namespace {

TEST(VpcCni, PodAddressCapacity) {
  VpcCniSettings secondary;
  EXPECT_EQ(pod_address_capacity(3, 6, secondary), 15);  // t3.medium: 3 ENIs x (6 - 1)
  EXPECT_EQ(pod_address_capacity(4, 15, secondary), 56);  // g5.xlarge
  VpcCniSettings prefixes;
  prefixes.prefix_delegation = true;
  EXPECT_EQ(pod_address_capacity(3, 6, prefixes), 240);  // each slot a /28
  EXPECT_FALSE(pod_address_capacity(0, 0, secondary).has_value());
}

TEST(VpcCni, WarmIpAndMinimumIpTargets) {
  VpcCniSettings warm_ip;
  warm_ip.warm_ip_target = 2;
  // t3.medium: 3 pods + 2 warm = 5 secondaries, one ENI; a 4th pod needs a second ENI.
  EXPECT_EQ(vpc_cni_node_addresses(3, 6, 3, warm_ip), 1 + 5);
  EXPECT_EQ(vpc_cni_node_addresses(3, 6, 4, warm_ip), 2 + 6);
  VpcCniSettings minimum;
  minimum.minimum_ip_target = 10;
  EXPECT_EQ(vpc_cni_node_addresses(3, 6, 0, minimum), 2 + 10);
  EXPECT_EQ(vpc_cni_node_addresses(3, 6, 12, minimum), 3 + 12);
  EXPECT_EQ(vpc_cni_node_addresses(3, 6, 40, minimum), 3 + 15);  // the ENI limit
}

TEST(VpcCni, WarmEniTargetZeroAndTwo) {
  VpcCniSettings none;
  none.warm_eni_target = 0;
  EXPECT_EQ(vpc_cni_node_addresses(3, 6, 0, none), 6);  // the primary ENI is always there
  EXPECT_EQ(vpc_cni_node_addresses(3, 6, 6, none), 12);
  VpcCniSettings two;
  two.warm_eni_target = 2;
  EXPECT_EQ(vpc_cni_node_addresses(3, 6, 0, two), 12);
  EXPECT_EQ(vpc_cni_node_addresses(3, 6, 1, two), 18);
}

TEST(VpcCni, PrefixDelegationHoldsWholePrefixes) {
  VpcCniSettings pd;
  pd.prefix_delegation = true;  // WARM_PREFIX_TARGET 1
  EXPECT_EQ(vpc_cni_node_addresses(3, 6, 0, pd), 1 + 16);
  EXPECT_EQ(vpc_cni_node_addresses(3, 6, 16, pd), 1 + 32);
  EXPECT_EQ(vpc_cni_node_addresses(3, 6, 17, pd), 1 + 48);
  EXPECT_EQ(vpc_cni_node_addresses(3, 6, 80, pd), 2 + 96);  // 6 prefixes: a second ENI
  pd.warm_ip_target = 5;  // WARM_IP_TARGET wins: prefixes enough for pods + 5
  EXPECT_EQ(vpc_cni_node_addresses(3, 6, 12, pd), 1 + 32);
}

TEST(VpcCni, PrefixDelegationMaxPods) {
  EXPECT_EQ(prefix_delegation_max_pods(3, 6, 2), 110);     // t3.medium: 242, capped
  EXPECT_EQ(prefix_delegation_max_pods(15, 50, 48), 250);  // g5.12xlarge: above 30 vCPUs
  EXPECT_EQ(prefix_delegation_max_pods(2, 2, 1), 34);      // 2 x (1 x 16) + 2
}

TEST(VpcCni, PoolReusesReleasedAddressesAfterCooldown) {
  NodeAddressPool pool(2, 30);
  EXPECT_EQ(pool.assign(0), 0u);
  EXPECT_EQ(pool.assign(0), 1u);
  EXPECT_FALSE(pool.assign(1).has_value());  // both in use
  pool.release(1, 10);
  pool.release(0, 12);
  EXPECT_EQ(pool.in_use(), 0);
  EXPECT_FALSE(pool.assign(39).has_value());  // still cooling down
  EXPECT_EQ(pool.assign(40), 1u);             // released first, reused first
  EXPECT_FALSE(pool.assign(41).has_value());
  EXPECT_EQ(pool.assign(42), 0u);
  EXPECT_EQ(pool.in_use(), 2);
}

TEST(VpcCni, ErrorTextIsThePluginsAsLibcniWrapsIt) {
  EXPECT_STREQ(kAssignIpFailed,
               "plugin type=\"aws-cni\" name=\"aws-cni\" failed (add): add cmd: failed to assign an IP address to "
               "container");
}

}  // namespace
}  // namespace eksim::aws
