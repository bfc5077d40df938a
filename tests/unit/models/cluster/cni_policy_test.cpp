// A managed node group with iam_role_attach_cni_policy = false: aws-node has no EC2 permissions
// (unless the vpc-cni add-on has its own role), so its nodes register and stay NotReady with the
// kubelet's "cni plugin not initialized" condition; only pods tolerating not-ready land there.
#include <gtest/gtest.h>

#include <algorithm>

#include "models/cluster/cluster.hpp"

namespace eksim {
namespace {

using engine::SimTime;

ClusterSpec two_groups(bool vpc_cni_own_role) {
  ClusterSpec spec;
  spec.name = "myeks";
  spec.region = "ap-northeast-2";
  spec.subnets = {SubnetSpec{"private-a", "ap-northeast-2a", "192.168.12.0/22"}};
  spec.vpc_cni_own_role = vpc_cni_own_role;
  for (bool attach : {true, false}) {
    NodeGroupSpec ng;
    ng.name = attach ? "plain" : "nocni";
    ng.instance_types = {"m5.large"};
    ng.min_size = 0;
    ng.max_size = 3;
    ng.desired_size = 1;
    ng.subnet_ids = {"private-a"};
    ng.labels = {{"role", ng.name}};
    ng.iam_role_attach_cni_policy = attach;
    spec.node_groups.push_back(ng);
  }
  return spec;
}

std::vector<const k8s::NodeRecord*> group_nodes(Cluster& c, const std::string& group) {
  std::vector<const k8s::NodeRecord*> out;
  for (std::size_t i = 0; i < c.api.node_slots(); ++i) {
    const k8s::NodeRecord& r = c.api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
    if (!r.deleted && r.node_group == group) out.push_back(&r);
  }
  return out;
}

k8s::Pod pod_for(const std::string& name, const std::string& group) {
  k8s::Pod p;
  p.meta.name = name;
  p.meta.ns = "default";
  p.spec.node_selector = {{"role", group}};
  k8s::Container ctr;
  ctr.name = "main";
  ctr.image = "busybox:1.36";
  ctr.command = {"sleep", "infinity"};
  p.spec.containers.push_back(ctr);
  return p;
}

TEST(CniPolicy, NodesWithoutTheCniPolicyRegisterAndStayNotReady) {
  Cluster c(two_groups(false), 11);
  c.start();
  // A node that joins during the run: registered, never Ready.
  ASSERT_FALSE(c.eks.update_nodegroup_config("nocni", aws::SizesUpdate{std::nullopt, std::nullopt, 2}));
  c.api.create_pod(pod_for("web", "nocni"));
  k8s::Pod agent = pod_for("aws-node-like", "nocni");
  agent.spec.tolerations = {k8s::Toleration{"", "Exists", "", "", std::nullopt}};
  agent.spec.host_network = true;
  c.api.create_pod(agent);
  c.sim.run_until(SimTime{} + engine::Duration::hours(1));

  auto plain = group_nodes(c, "plain");
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_TRUE(plain[0]->node.ready);
  EXPECT_EQ(plain[0]->node.ready_reason, "KubeletReady");
  EXPECT_EQ(plain[0]->node.ready_message, "kubelet is posting ready status");

  auto nocni = group_nodes(c, "nocni");
  ASSERT_EQ(nocni.size(), 2u);  // the adopted one and the one that joined
  for (const k8s::NodeRecord* r : nocni) {
    EXPECT_FALSE(r->node.ready);
    EXPECT_FALSE(r->ready_at);
    EXPECT_TRUE(r->registered_at);
    EXPECT_EQ(r->node.ready_reason, "KubeletNotReady");
    EXPECT_EQ(r->node.ready_message,
              "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady "
              "message:Network plugin returns error: cni plugin not initialized");
    EXPECT_TRUE(std::any_of(r->node.taints.begin(), r->node.taints.end(), [](const k8s::Taint& t) {
      return t.key == "node.kubernetes.io/not-ready" && t.effect == "NoSchedule";
    }));
  }
  // The joining node went through Starting and RegisteredNode but never NodeReady.
  const std::string joined = nocni[1]->node.meta.name;
  auto count = [&](const std::string& reason) {
    return std::count_if(c.log.events().begin(), c.log.events().end(), [&](const k8s::Event& e) {
      return e.reason == reason && e.object.name == joined;
    });
  };
  EXPECT_EQ(count("Starting"), 1);
  EXPECT_EQ(count("RegisteredNode"), 1);
  EXPECT_EQ(count("NodeReady"), 0);

  auto web = c.api.find_pod("default", "web");
  ASSERT_TRUE(web);
  EXPECT_FALSE(c.api.pod(*web).node.valid());
  EXPECT_EQ(c.api.pod(*web).pod.status.phase, k8s::PodPhase::Pending);
  auto agent_id = c.api.find_pod("default", "aws-node-like");
  ASSERT_TRUE(agent_id);
  EXPECT_TRUE(c.api.pod(*agent_id).node.valid());
  EXPECT_EQ(c.api.pod(*agent_id).pod.status.phase, k8s::PodPhase::Running);
}

TEST(CniPolicy, AVpcCniRoleOfItsOwnMakesTheNodePolicyUnnecessary) {
  Cluster c(two_groups(true), 11);
  c.start();
  ASSERT_FALSE(c.eks.update_nodegroup_config("nocni", aws::SizesUpdate{std::nullopt, std::nullopt, 2}));
  c.api.create_pod(pod_for("web", "nocni"));
  c.sim.run_until(SimTime{} + engine::Duration::minutes(10));
  auto nocni = group_nodes(c, "nocni");
  ASSERT_EQ(nocni.size(), 2u);
  for (const k8s::NodeRecord* r : nocni) EXPECT_TRUE(r->node.ready);
  auto web = c.api.find_pod("default", "web");
  ASSERT_TRUE(web);
  EXPECT_EQ(c.api.pod(*web).pod.status.phase, k8s::PodPhase::Running);
}

}  // namespace
}  // namespace eksim
