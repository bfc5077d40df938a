// Node -> image registry (TCP 443) through the security groups: public registries are outside
// the VPC (egress rules alone decide), ECR goes through the VPC's ecr.dkr interface endpoint when
// there is one (with the s3 gateway endpoint), behind the endpoint's own groups.
#include "models/cluster/registry_access.hpp"

#include <gtest/gtest.h>

#include "models/cluster/cluster.hpp"

namespace eksim {
namespace {

SecurityGroupRuleSpec rule(std::string protocol, int from, int to, std::string cidr, std::string group = {}) {
  SecurityGroupRuleSpec r;
  r.protocol = std::move(protocol);
  r.from_port = from;
  r.to_port = to;
  r.cidr = std::move(cidr);
  r.source_group = std::move(group);
  return r;
}

ClusterSpec private_cluster(bool endpoints) {
  ClusterSpec spec;
  spec.name = "myeks";
  spec.region = "ap-northeast-2";
  spec.subnets = {SubnetSpec{"private-a", "ap-northeast-2a", "192.168.12.0/22"}};
  SecurityGroupSpec node_sg;  // egress within the VPC only
  node_sg.name = "node-sg";
  node_sg.egress = {rule("-1", 0, 0, "192.168.0.0/16")};
  node_sg.egress_given = true;
  SecurityGroupSpec closed;  // recommended rules off: no egress at all
  closed.name = "closed-sg";
  closed.egress_given = true;
  SecurityGroupSpec aux;
  aux.name = "aux-sg";
  aux.egress = {rule("-1", 0, 0, "0.0.0.0/0")};
  aux.egress_given = true;
  SecurityGroupSpec vpce;
  vpce.name = "vpce-sg";
  vpce.ingress = {rule("tcp", 443, 443, "192.168.0.0/16")};
  spec.security_groups = {node_sg, closed, aux, vpce};
  if (endpoints) spec.vpc_endpoints = {VpcEndpointSpec{"ecr.dkr", {"vpce-sg"}}, VpcEndpointSpec{"s3", {}}};
  return spec;
}

aws::Instance instance_in(std::vector<std::string> groups) {
  aws::Instance i;
  i.id = "i-0123456789abcdef0";
  i.subnet_id = "private-a";
  i.private_ip = "192.168.12.57";
  i.security_groups = std::move(groups);
  return i;
}

constexpr const char* kEcrCni = "602401143452.dkr.ecr.ap-northeast-2.amazonaws.com/amazon-k8s-cni:v1.23.1";

TEST(ImageReference, NormalisedAsContainerdDoes) {
  ImageReference cuda = parse_image_reference("nvidia/cuda:13.0.2-runtime-ubuntu22.04");
  EXPECT_EQ(cuda.domain, "docker.io");
  EXPECT_EQ(cuda.host, "registry-1.docker.io");
  EXPECT_EQ(cuda.repository, "nvidia/cuda");
  EXPECT_EQ(cuda.full(), "docker.io/nvidia/cuda:13.0.2-runtime-ubuntu22.04");
  ImageReference nginx = parse_image_reference("nginx");
  EXPECT_EQ(nginx.full(), "docker.io/library/nginx:latest");
  ImageReference plugin = parse_image_reference("nvcr.io/nvidia/k8s-device-plugin:v0.18.2");
  EXPECT_EQ(plugin.host, "nvcr.io");
  EXPECT_EQ(plugin.reference, "v0.18.2");
  ImageReference local = parse_image_reference("localhost:5000/app");
  EXPECT_EQ(local.domain, "localhost:5000");
  EXPECT_EQ(local.full(), "localhost:5000/app:latest");
  EXPECT_TRUE(is_ecr_host(parse_image_reference(kEcrCni).host));
  EXPECT_FALSE(is_ecr_host("nvcr.io"));
}

TEST(ImageReference, DialTimeoutTextIsContainerdsThroughTheCri) {
  EXPECT_EQ(registry_dial_timeout_error(parse_image_reference("nvidia/cuda:13.0.2-runtime-ubuntu22.04"), "52.1.2.3"),
            "rpc error: code = Unknown desc = failed to pull and unpack image "
            "\"docker.io/nvidia/cuda:13.0.2-runtime-ubuntu22.04\": failed to resolve reference "
            "\"docker.io/nvidia/cuda:13.0.2-runtime-ubuntu22.04\": failed to do request: Head "
            "\"https://registry-1.docker.io/v2/nvidia/cuda/manifests/13.0.2-runtime-ubuntu22.04\": dial tcp "
            "52.1.2.3:443: i/o timeout");
}

TEST(RegistryAccess, NoEgressNoPull) {
  Cluster c(private_cluster(false), 1);
  auto err = registry_pull_error(c, instance_in({"closed-sg"}), "nvidia/cuda:13.0.2-runtime-ubuntu22.04");
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("dial tcp 52."), std::string::npos) << *err;
  EXPECT_TRUE(registry_pull_error(c, instance_in({"closed-sg"}), kEcrCni));
  // Lab 000's auxiliary egress-all group is what lets the nodes out.
  EXPECT_FALSE(registry_pull_error(c, instance_in({"closed-sg", "aux-sg"}), "nvidia/cuda:13.0.2-runtime-ubuntu22.04"));
  // Without groups the path is not modelled.
  EXPECT_FALSE(registry_pull_error(c, instance_in({}), "nvidia/cuda:13.0.2-runtime-ubuntu22.04"));
}

TEST(RegistryAccess, EgressWithinTheVpcReachesOnlyTheEcrEndpoint) {
  Cluster without(private_cluster(false), 1);
  EXPECT_TRUE(registry_pull_error(without, instance_in({"node-sg"}), kEcrCni));
  Cluster with(private_cluster(true), 1);
  EXPECT_FALSE(registry_pull_error(with, instance_in({"node-sg"}), kEcrCni));
  EXPECT_TRUE(registry_pull_error(with, instance_in({"node-sg"}), "nvcr.io/nvidia/k8s-device-plugin:v0.18.2"));
  // The endpoint's ENI answers for ECR: a node that cannot reach it times out on its address.
  auto err = registry_pull_error(with, instance_in({"closed-sg"}), kEcrCni);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("dial tcp 192.168.12.10:443: i/o timeout"), std::string::npos) << *err;
}

}  // namespace
}  // namespace eksim
