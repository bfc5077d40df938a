// Node -> cluster endpoint (TCP 443) through the security groups: with a cluster security group
// declared, a node joins only if one of its groups lets it out to the endpoint and the cluster
// group lets it in (lab 000's node SG without egress_all and without the auxiliary group).
#include <gtest/gtest.h>

#include "models/cluster/cluster.hpp"

namespace eksim {
namespace {

SecurityGroupRuleSpec tcp_from_group(int port, const std::string& group) {
  SecurityGroupRuleSpec r;
  r.protocol = "tcp";
  r.from_port = r.to_port = port;
  r.source_group = group;
  return r;
}

ClusterSpec lab000_groups(bool declare_cluster_sg) {
  ClusterSpec spec;
  spec.name = "myeks";
  spec.region = "ap-northeast-2";
  spec.subnets = {SubnetSpec{"private-a", "ap-northeast-2a", "192.168.12.0/22"}};
  SecurityGroupSpec cluster_sg;
  cluster_sg.name = "cluster-sg";
  cluster_sg.ingress = {tcp_from_group(443, "node-sg")};  // ingress_nodes_443
  SecurityGroupSpec node_sg;
  node_sg.name = "node-sg";
  node_sg.ingress = {tcp_from_group(443, "cluster-sg")};
  node_sg.egress_given = true;  // recommended rules off: no egress_all
  SecurityGroupSpec aux;
  aux.name = "aux-sg";
  SecurityGroupRuleSpec all;
  all.protocol = "-1";
  all.from_port = 0;
  all.to_port = 65535;
  all.cidr = "0.0.0.0/0";
  aux.egress = {all};
  aux.egress_given = true;
  spec.security_groups = {cluster_sg, node_sg, aux};
  if (declare_cluster_sg) spec.cluster_security_group = "cluster-sg";
  return spec;
}

aws::Instance instance(std::vector<std::string> groups) {
  aws::Instance i;
  i.id = "i-0123456789abcdef0";
  i.private_ip = "192.168.12.10";
  i.security_groups = std::move(groups);
  return i;
}

TEST(ApiServerReachable, NodeSgWithoutEgressCannotReachTheEndpoint) {
  Cluster c(lab000_groups(true), 1);
  EXPECT_FALSE(c.api_server_reachable(instance({"node-sg"})));
  EXPECT_FALSE(c.api_server_reachable(instance({})));
}

TEST(ApiServerReachable, TheAuxEgressGroupLetsItOut) {
  Cluster c(lab000_groups(true), 1);
  EXPECT_TRUE(c.api_server_reachable(instance({"node-sg", "aux-sg"})));
  // Egress alone is not enough: the cluster group admits the node group only.
  EXPECT_FALSE(c.api_server_reachable(instance({"aux-sg"})));
}

TEST(ApiServerReachable, NotCheckedWithoutAClusterSecurityGroup) {
  Cluster c(lab000_groups(false), 1);
  EXPECT_TRUE(c.api_server_reachable(instance({})));
}

}  // namespace
}  // namespace eksim
