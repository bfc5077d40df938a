#include "models/aws/security_groups.hpp"

#include <gtest/gtest.h>

namespace eksim::aws {
namespace {

std::uint32_t ip(const char* s) { return *engine::parse_ipv4(s); }

SgRule rule(const char* proto, int from, int to, const char* cidr, const char* group = "") {
  SgRule r;
  r.protocol = proto;
  r.from_port = from;
  r.to_port = to;
  r.cidr = cidr;
  r.group = group;
  return r;
}

TEST(AwsSecurityGroups, ParsesAddressesAndCidrs) {
  EXPECT_EQ(ip("192.168.12.34"), 0xC0A80C22u);
  EXPECT_EQ(engine::format_ipv4(0xC0A80C22u), "192.168.12.34");
  for (const char* bad : {"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1..2.3", "a.b.c.d", "1.2.3.4 "})
    EXPECT_FALSE(engine::parse_ipv4(bad)) << bad;
  struct {
    const char* cidr;
    const char* addr;
    bool in;
  } cases[] = {
      {"0.0.0.0/0", "8.8.8.8", true},          {"192.168.0.0/16", "192.168.255.1", true},
      {"192.168.0.0/16", "192.169.0.1", false}, {"192.168.12.0/22", "192.168.15.255", true},
      {"192.168.12.0/22", "192.168.16.0", false}, {"10.0.0.5/32", "10.0.0.5", true},
      {"10.0.0.5/32", "10.0.0.6", false},      {"10.0.0.5", "10.0.0.5", true},
      {"10.1.2.3/8", "10.200.0.1", true},  // host bits cleared
      {"128.0.0.0/1", "127.255.255.255", false}, {"128.0.0.0/1", "200.0.0.1", true},
  };
  for (const auto& c : cases) {
    auto cidr = engine::Ipv4Cidr::parse(c.cidr);
    ASSERT_TRUE(cidr) << c.cidr;
    EXPECT_EQ(cidr->contains(ip(c.addr)), c.in) << c.cidr << " " << c.addr;
  }
  EXPECT_EQ(engine::Ipv4Cidr::parse("10.1.2.3/8")->str(), "10.0.0.0/8");
  for (const char* bad : {"10.0.0.0/33", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/1a", "x/8"})
    EXPECT_FALSE(engine::Ipv4Cidr::parse(bad)) << bad;
}

TEST(AwsSecurityGroups, NewGroupAllowsAllEgressNoIngress) {
  SecurityGroups sgs;
  sgs.put(new_security_group("sg-a", "a"));
  Eni x{ip("10.0.1.1"), {"sg-a"}}, y{ip("10.0.2.2"), {"sg-a"}};
  EXPECT_FALSE(sgs.reachable(x, y, "tcp", 22));
  ASSERT_FALSE(sgs.authorize_ingress("sg-a", rule("tcp", 22, 22, "10.0.0.0/16")));
  EXPECT_TRUE(sgs.reachable(x, y, "tcp", 22));
  EXPECT_FALSE(sgs.reachable(x, y, "tcp", 23));
  EXPECT_FALSE(sgs.reachable(x, y, "udp", 22));
}

TEST(AwsSecurityGroups, GroupReferenceSelfAndByName) {
  SecurityGroups sgs;
  sgs.put(new_security_group("sg-node", "node-sg"));
  sgs.put(new_security_group("sg-other", "other"));
  ASSERT_FALSE(sgs.authorize_ingress("node-sg", rule("tcp", 1025, 65535, "", "node-sg")));
  Eni n1{ip("192.168.12.10"), {"sg-node"}}, n2{ip("192.168.16.10"), {"node-sg"}};
  Eni outsider{ip("192.168.12.11"), {"sg-other"}};
  EXPECT_TRUE(sgs.reachable(n1, n2, "tcp", 40000));
  EXPECT_TRUE(sgs.reachable(n2, n1, "tcp", 1025));
  EXPECT_TRUE(sgs.reachable(n2, n1, "tcp", 65535));
  EXPECT_FALSE(sgs.reachable(n2, n1, "tcp", 1024));
  EXPECT_FALSE(sgs.reachable(outsider, n1, "tcp", 40000));  // same subnet, wrong group
  // An ENI with several groups gets the union.
  outsider.groups.push_back("sg-node");
  EXPECT_TRUE(sgs.reachable(outsider, n1, "tcp", 40000));
}

TEST(AwsSecurityGroups, ProtocolAllMatchesEveryPortAndProtocol) {
  SecurityGroups sgs;
  sgs.put(new_security_group("sg-a"));
  ASSERT_FALSE(sgs.authorize_ingress("sg-a", rule("-1", 0, 0, "", "sg-a")));
  Eni x{ip("10.0.0.1"), {"sg-a"}}, y{ip("10.0.0.2"), {"sg-a"}};
  for (int port : {0, 22, 53, 32768, 60999, 65535}) {
    EXPECT_TRUE(sgs.reachable(x, y, "tcp", port));
    EXPECT_TRUE(sgs.reachable(x, y, "udp", port));
  }
  EXPECT_TRUE(sgs.reachable(x, y, "icmp", 8));
}

TEST(AwsSecurityGroups, RestrictedEgressBlocksEvenWithIngress) {
  SecurityGroups sgs;
  SecurityGroup src;
  src.id = "sg-src";  // no egress rules at all (what terraform leaves)
  sgs.put(src);
  sgs.put(new_security_group("sg-dst"));
  ASSERT_FALSE(sgs.authorize_ingress("sg-dst", rule("-1", 0, 0, "0.0.0.0/0")));
  Eni s{ip("10.0.0.1"), {"sg-src"}}, d{ip("10.0.0.2"), {"sg-dst"}};
  EXPECT_FALSE(sgs.reachable(s, d, "tcp", 443));
  ASSERT_FALSE(sgs.authorize_egress("sg-src", rule("tcp", 443, 443, "10.0.0.2/32")));
  EXPECT_TRUE(sgs.reachable(s, d, "tcp", 443));
  EXPECT_FALSE(sgs.reachable(s, d, "tcp", 444));
  EXPECT_TRUE(sgs.reachable(d, s, "tcp", 444) == false);  // stateful replies are implied, new flows are not
}

TEST(AwsSecurityGroups, DuplicateAndNotFoundTexts) {
  SecurityGroups sgs;
  sgs.put(new_security_group("sg-0456074f9f3016cdf", "web"));
  sgs.put(new_security_group("sg-f6b1a68b", "nodes"));
  ASSERT_FALSE(sgs.authorize_ingress("web", rule("tcp", 80, 80, "0.0.0.0/0")));
  auto err = sgs.authorize_ingress("web", rule("tcp", 80, 80, "0.0.0.0/0"));
  ASSERT_TRUE(err);
  EXPECT_EQ(err->code, "InvalidPermission.Duplicate");
  EXPECT_EQ(err->message, "the specified rule \"peer: 0.0.0.0/0, TCP, from port: 80, to port: 80, ALLOW\" already exists");
  ASSERT_FALSE(sgs.authorize_ingress("web", rule("-1", 0, 0, "", "nodes")));
  err = sgs.authorize_ingress("web", rule("-1", -1, -1, "", "sg-f6b1a68b"));  // same group by id
  ASSERT_TRUE(err);
  EXPECT_EQ(err->message, "the specified rule \"peer: sg-f6b1a68b, ALL, ALLOW\" already exists");
  // Revoke
  EXPECT_FALSE(sgs.revoke_ingress("web", rule("tcp", 80, 80, "0.0.0.0/0")));
  err = sgs.revoke_ingress("web", rule("tcp", 80, 80, "0.0.0.0/0"));
  ASSERT_TRUE(err);
  EXPECT_EQ(err->code, "InvalidPermission.NotFound");
  EXPECT_EQ(err->message, "The specified rule does not exist in this security group.");
  err = sgs.revoke_ingress("sg-missing", rule("tcp", 80, 80, "0.0.0.0/0"));
  ASSERT_TRUE(err);
  EXPECT_EQ(err->code, "InvalidGroup.NotFound");
  EXPECT_EQ(err->message, "The security group 'sg-missing' does not exist");
  EXPECT_TRUE(sgs.authorize_ingress("web", rule("gre", 0, 0, "0.0.0.0/0")));
  EXPECT_TRUE(sgs.authorize_ingress("web", rule("tcp", 1, 2, "")));  // no peer
}

TEST(AwsSecurityGroups, RevokeBreaksReachability) {
  SecurityGroups sgs;
  sgs.put(new_security_group("sg-node", "node-sg"));
  SgRule eph = rule("tcp", 1025, 65535, "", "node-sg");
  ASSERT_FALSE(sgs.authorize_ingress("node-sg", eph));
  Eni a{ip("10.0.0.1"), {"sg-node"}}, b{ip("10.0.1.1"), {"sg-node"}};
  EXPECT_TRUE(sgs.reachable(a, b, "tcp", 45123));
  ASSERT_FALSE(sgs.revoke_ingress("node-sg", eph));
  EXPECT_FALSE(sgs.reachable(a, b, "tcp", 45123));
}

TEST(AwsSecurityGroups, TerraformEksNodeSecurityGroup) {
  auto rec = tf_eks_node_sg_recommended_rules("sg-node", "sg-cluster");
  ASSERT_EQ(rec.size(), 7u);
  EXPECT_EQ(rec[0].key, "ingress_nodes_ephemeral");
  EXPECT_EQ(rec[0].rule.from_port, 1025);
  EXPECT_EQ(rec[0].rule.to_port, 65535);
  EXPECT_EQ(rec[0].rule.group, "sg-node");
  EXPECT_EQ(rec[5].key, "ingress_cluster_10251_webhook");
  EXPECT_EQ(rec[5].rule.description, "Cluster API to node 10251/tcp webhook");
  EXPECT_EQ(rec[6].key, "egress_all");
  EXPECT_FALSE(rec[6].ingress);
  auto base = tf_eks_node_sg_base_rules("sg-node", "sg-cluster");
  ASSERT_EQ(base.size(), 4u);
  EXPECT_EQ(base[1].rule.from_port, 10250);
  EXPECT_EQ(base[3].rule.protocol, "udp");

  SecurityGroups sgs;
  sgs.put(tf_eks_node_security_group("sg-node", "myeks-node", "sg-cluster"));
  sgs.put(new_security_group("sg-cluster", "myeks-cluster"));
  Eni n1{ip("192.168.12.10"), {"sg-node"}}, n2{ip("192.168.16.20"), {"sg-node"}};
  Eni cp{ip("192.168.12.200"), {"sg-cluster"}};
  EXPECT_TRUE(sgs.reachable(n1, n2, "tcp", 43000));  // NCCL ephemeral port
  EXPECT_TRUE(sgs.reachable(n1, n2, "udp", 53));
  EXPECT_FALSE(sgs.reachable(n1, n2, "udp", 4789));
  EXPECT_TRUE(sgs.reachable(cp, n1, "tcp", 10250));
  EXPECT_TRUE(sgs.reachable(cp, n1, "tcp", 9443));
  EXPECT_FALSE(sgs.reachable(cp, n1, "tcp", 9444));

  // Without the recommended rules: node to node only on 53, and no egress at all.
  sgs.put(tf_eks_node_security_group("sg-node", "myeks-node", "sg-cluster", false));
  EXPECT_FALSE(sgs.reachable(n1, n2, "tcp", 43000));
  EXPECT_FALSE(sgs.reachable(n1, n2, "tcp", 53));  // ingress allows it, egress does not
  EXPECT_TRUE(sgs.reachable(cp, n1, "tcp", 10250));
}

}  // namespace
}  // namespace eksim::aws
