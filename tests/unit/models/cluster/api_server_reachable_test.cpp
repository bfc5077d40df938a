// Node -> cluster endpoint (TCP 443) through the security groups: with a cluster security group
// declared, a node joins only if one of its groups lets it out to the endpoint and the cluster
// group lets it in (lab 000's node SG without egress_all and without the auxiliary group).
#include <gtest/gtest.h>

#include <utility>

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

// EKS puts a managed node group's instances in the cluster security group it creates when the
// launch template names no group: those nodes reach the endpoint through that group's
// all-from-itself rule, while a group named in the launch template replaces it.
NodeGroupSpec node_group(std::string name, std::vector<std::string> groups) {
  NodeGroupSpec ng;
  ng.name = std::move(name);
  ng.instance_types = {"t3.medium"};
  ng.desired_size = ng.min_size = ng.max_size = 1;
  ng.vpc_security_group_ids = std::move(groups);
  return ng;
}

std::vector<std::string> launch_template_groups(Cluster& c, const std::string& node_group) {
  const aws::ManagedNodegroup* ng = c.eks.find(node_group);
  if (!ng) return {"no node group"};
  const aws::AutoScalingGroup* g = std::as_const(c.auto_scaling).find(ng->asg_name);
  return g ? g->launch_template.security_groups : std::vector<std::string>{"no ASG"};
}

TEST(ApiServerReachable, NodeGroupWithoutGroupsGetsTheEksClusterSecurityGroup) {
  ClusterSpec spec = lab000_groups(true);
  spec.node_groups = {node_group("system", {}), node_group("gpu", {"node-sg"})};
  Cluster c(spec, 1);
  c.start();
  const std::string& primary = c.spec().primary_security_group;
  ASSERT_EQ(primary.rfind("eks-cluster-sg-myeks-", 0), 0u) << primary;
  EXPECT_EQ(primary.size(), std::string("eks-cluster-sg-myeks-").size() + 10);
  const aws::SecurityGroup* g = c.security_groups.find(primary);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->tags.at("aws:eks:cluster-name"), "myeks");
  EXPECT_EQ(g->tags.at("kubernetes.io/cluster/myeks"), "owned");

  EXPECT_EQ(launch_template_groups(c, "system"), std::vector<std::string>{primary});
  EXPECT_EQ(launch_template_groups(c, "gpu"), std::vector<std::string>{"node-sg"});
  EXPECT_TRUE(c.api_server_reachable(instance({primary})));
  EXPECT_FALSE(c.api_server_reachable(instance({"node-sg"})));
}

TEST(ApiServerReachable, ADeclaredPrimaryGroupIsUsedAsIs) {
  ClusterSpec spec = lab000_groups(true);
  SecurityGroupSpec primary;
  primary.name = "eks-primary";
  primary.ingress = {tcp_from_group(10250, "eks-primary")};  // no 443: its members cannot join
  spec.security_groups.push_back(primary);
  spec.primary_security_group = "eks-primary";
  spec.node_groups = {node_group("system", {})};
  Cluster c(spec, 1);
  c.start();
  EXPECT_EQ(launch_template_groups(c, "system"), std::vector<std::string>{"eks-primary"});
  EXPECT_FALSE(c.api_server_reachable(instance({"eks-primary"})));
  EXPECT_TRUE(c.api_server_reachable(instance({"node-sg", "aux-sg"})));
}

TEST(ApiServerReachable, NoClusterSecurityGroupIsCreatedWhenNoneIsModelled) {
  ClusterSpec spec = lab000_groups(false);
  spec.node_groups = {node_group("system", {})};
  Cluster c(spec, 1);
  c.start();
  EXPECT_TRUE(c.spec().primary_security_group.empty());
  EXPECT_TRUE(launch_template_groups(c, "system").empty());
}

}  // namespace
}  // namespace eksim
