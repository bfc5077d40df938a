// The VPC CNI's pod addresses: a t3.medium (3 ENIs x 6 IPv4) has 15 for pods whatever its max
// pods; the 16th pod stays ContainerCreating with the aws-cni plugin's FailedCreatePodSandBox
// until a pod ends and ipamd's cooldown has passed; hostNetwork pods take none.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

#include "models/cluster/cluster.hpp"

namespace eksim {
namespace {

using engine::Duration;
using engine::SimTime;

ClusterSpec one_t3_medium(bool prefix_delegation) {
  ClusterSpec spec;
  spec.name = "ipam";
  spec.region = "ap-northeast-2";
  spec.subnets = {SubnetSpec{"private-a", "ap-northeast-2a", "192.168.0.0/22"}};
  spec.vpc_cni.prefix_delegation = prefix_delegation;
  // Without the self-managed add-ons: CoreDNS's two replicas would take two of the node's
  // addresses (subnet-exhausted counts them); here all of them are the test's pods'.
  spec.bootstrap_self_managed_addons = false;
  NodeGroupSpec ng;
  ng.name = "small";
  ng.instance_types = {"t3.medium"};
  ng.min_size = ng.max_size = ng.desired_size = 1;
  ng.subnet_ids = {"private-a"};
  ng.kubelet.max_pods = 50;
  spec.node_groups.push_back(ng);
  return spec;
}

k8s::PodId add_pod(Cluster& c, const std::string& name, bool host_network = false) {
  k8s::Pod p;
  p.meta.name = name;
  p.meta.ns = "default";
  p.spec.host_network = host_network;
  k8s::Container ctr;
  ctr.name = "main";
  ctr.image = "busybox:1.36";
  ctr.command = {"sleep", "infinity"};
  p.spec.containers.push_back(ctr);
  return c.api.create_pod(p);
}

int sandbox_failures(const Cluster& c, const std::string& object) {
  int n = 0;
  for (const auto& e : c.log.events())
    if (e.reason == "FailedCreatePodSandBox" && e.object.str() == object) ++n;
  return n;
}

TEST(PodNetworking, FifteenAddressesOnAT3MediumThenSandboxFailuresUntilOneFrees) {
  Cluster c(one_t3_medium(false), 5);
  c.start();
  std::vector<k8s::PodId> pods;
  for (int i = 0; i < 16; ++i) pods.push_back(add_pod(c, "p" + std::to_string(i)));
  k8s::PodId host = add_pod(c, "host", true);
  c.sim.run_until(SimTime{} + Duration::minutes(2));

  std::set<std::string> ips;
  for (int i = 0; i < 15; ++i) {
    EXPECT_EQ(c.api.pod(pods[i]).pod.status.phase, k8s::PodPhase::Running) << i;
    const std::string* ip = c.pod_networking->pod_ip(pods[i]);
    ASSERT_NE(ip, nullptr);
    EXPECT_EQ(ip->rfind("192.168.3.", 0), 0u) << *ip;  // the subnet's top addresses
    ips.insert(*ip);
  }
  EXPECT_EQ(ips.size(), 15u);
  EXPECT_EQ(c.api.pod(host).pod.status.phase, k8s::PodPhase::Running);
  EXPECT_EQ(c.pod_networking->pod_ip(host), nullptr);
  const k8s::PodRecord& waiting = c.api.pod(pods[15]);
  EXPECT_EQ(waiting.pod.status.phase, k8s::PodPhase::Pending);
  EXPECT_EQ(waiting.pod.status.reason, "ContainerCreating");
  EXPECT_EQ(c.pod_networking->pod_ip(pods[15]), nullptr);
  const int failures = sandbox_failures(c, "Pod/default/p15");
  EXPECT_GE(failures, 8);  // every 10-15 s from 5 s on
  EXPECT_LE(failures, 12);
  for (const auto& e : c.log.events())
    if (e.reason == "FailedCreatePodSandBox") {
      EXPECT_EQ(e.message.rfind("Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network "
                                "for sandbox \"", 0),
                0u);
      EXPECT_NE(e.message.find("\": plugin type=\"aws-cni\" name=\"aws-cni\" failed (add): add cmd: failed to assign an "
                               "IP address to container"),
                std::string::npos);
      break;
    }
  EXPECT_EQ(c.pod_networking->pods_with_addresses(c.api.pod(pods[0]).node), 15);

  // One pod goes: its address is free again after the 30 s cooldown, and the waiting pod's next
  // retry gets it.
  const std::string freed = *c.pod_networking->pod_ip(pods[3]);
  c.kubelet->delete_pod(pods[3], 0);
  c.sim.run_until(SimTime{} + Duration::minutes(2) + Duration::seconds(25));
  EXPECT_EQ(c.api.pod(pods[15]).pod.status.phase, k8s::PodPhase::Pending);
  c.sim.run_until(SimTime{} + Duration::minutes(3));
  EXPECT_EQ(c.api.pod(pods[15]).pod.status.phase, k8s::PodPhase::Running);
  ASSERT_NE(c.pod_networking->pod_ip(pods[15]), nullptr);
  EXPECT_EQ(*c.pod_networking->pod_ip(pods[15]), freed);
}

TEST(PodNetworking, PrefixDelegationGivesSixteenAddressesPerSlot) {
  Cluster c(one_t3_medium(true), 5);
  c.start();
  std::vector<k8s::PodId> pods;
  for (int i = 0; i < 40; ++i) pods.push_back(add_pod(c, fmt::format("p{}", i)));
  c.sim.run_until(SimTime{} + Duration::minutes(2));
  for (k8s::PodId p : pods) EXPECT_EQ(c.api.pod(p).pod.status.phase, k8s::PodPhase::Running);
  // The first /28 below the subnet's last address: 192.168.3.224/28.
  EXPECT_EQ(*c.pod_networking->pod_ip(pods[0]), "192.168.3.224");
  EXPECT_EQ(*c.pod_networking->pod_ip(pods[15]), "192.168.3.239");
  EXPECT_EQ(*c.pod_networking->pod_ip(pods[16]), "192.168.3.208");
  EXPECT_EQ(sandbox_failures(c, "Pod/default/p39"), 0);
}

}  // namespace
}  // namespace eksim
