#include "models/k8s/kubelet/node_lifecycle.hpp"

#include <gtest/gtest.h>

#include "models/k8s/kubelet/kubelet.hpp"
#include "models/k8s/api/pod_factory.hpp"
#include "tests/unit/models/k8s/k8s_test_util.hpp"

namespace eksim::k8s {
namespace {

using engine::Duration;
using testing::K8sWorld;
using testing::secs;

MachineSpec machine(const std::string& name) {
  MachineSpec m;
  m.node_name = name;
  m.instance_id = "i-0abc";
  m.capacity = ResourceList{{"cpu", 4000}, {"pods", 58}};
  m.allocatable = ResourceList{{"cpu", 3920}, {"pods", 58}};
  return m;
}

TEST(NodeJoin, OverriddenTimingsAndEventTexts) {
  K8sWorld w;
  MachineSpec m = machine("ip-10-0-1-2.ec2.internal");
  m.boot_time = Duration::seconds(20);
  m.register_time = Duration::seconds(7);
  m.ready_time = Duration::seconds(30);
  m.register_with_taints = {Taint{"nvidia.com/gpu", "true", kNoSchedule}};
  start_node_join(w.api, m);
  w.run_until_s(26.9);
  EXPECT_FALSE(w.api.find_node(m.node_name));
  auto starting = w.events("Starting");
  ASSERT_EQ(starting.size(), 1u);
  EXPECT_EQ(starting[0].message, "Starting kubelet.");
  EXPECT_EQ(starting[0].source, "kubelet");
  EXPECT_GT(starting[0].time.to_seconds(), 20.0);
  w.run_until_s(27);
  auto id = w.api.find_node(m.node_name);
  ASSERT_TRUE(id);
  const Node& n = w.api.node(*id).node;
  EXPECT_FALSE(n.ready);
  ASSERT_EQ(n.taints.size(), 2u);
  EXPECT_EQ(n.taints[1].key, "node.kubernetes.io/not-ready");
  EXPECT_EQ(n.meta.labels.at(kLabelHostname), m.node_name);
  auto reg = w.events("RegisteredNode");
  ASSERT_EQ(reg.size(), 1u);
  EXPECT_EQ(reg[0].source, "node-controller");
  EXPECT_EQ(reg[0].message, "Node ip-10-0-1-2.ec2.internal event: Registered Node ip-10-0-1-2.ec2.internal in Controller");
  w.run_until_s(56.9);
  EXPECT_FALSE(w.api.node(*id).node.ready);
  w.run_until_s(57);
  EXPECT_TRUE(w.api.node(*id).node.ready);
  EXPECT_EQ(w.api.node(*id).node.taints.size(), 1u);
  auto ready = w.events("NodeReady");
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].message, "Node ip-10-0-1-2.ec2.internal status is now: NodeReady");
  EXPECT_DOUBLE_EQ(secs(*w.api.node(*id).ready_at), 57.0);
}

double ready_after(const MachineSpec& m) {
  K8sWorld w;
  start_node_join(w.api, m);
  w.run_until_s(1000);
  auto id = w.api.find_node(m.node_name);
  return id ? secs(*w.api.node(*id).ready_at) : -1;
}

TEST(NodeJoin, DefaultTimingsFollowFactsAndNvidiaIsSlower) {
  MachineSpec plain = machine("n-plain");
  MachineSpec gpu = machine("n-gpu");
  gpu.nvidia_ami = true;
  double p = ready_after(plain), g = ready_after(gpu);
  // ~24 s to register + ~30 s CNI after running (FACTS: registered ~40 s, Ready ~70 s after launch).
  EXPECT_GT(p, 40.0);
  EXPECT_LT(p, 70.0);
  EXPECT_GT(g, p + 5.0);
  EXPECT_EQ(ready_after(plain), p);  // same seed, same draws
}

TEST(NodeJoin, UnmappedRoleNeverRegistersAndCancelStopsTheJoin) {
  K8sWorld w;
  MachineSpec m = machine("unmapped");
  m.role_mapped = false;
  start_node_join(w.api, m);
  NodeJoinHandle h = start_node_join(w.api, machine("cancelled"));
  w.run_until_s(5);
  h.cancel();
  w.run_until_s(3600);
  EXPECT_EQ(w.api.node_slots(), 0u);
  EXPECT_TRUE(w.log.events().empty());
}

TEST(NodeJoin, UnreachableApiServerNeverRegistersAndRecordsNothing) {
  K8sWorld w;
  MachineSpec m = machine("blocked");
  m.api_server_reachable = false;
  start_node_join(w.api, m);
  EXPECT_FALSE(adopt_joined_node(w.api, m).has_value());
  w.run_until_s(3600);
  EXPECT_EQ(w.api.node_slots(), 0u);
  EXPECT_TRUE(w.log.events().empty());  // not even "Starting kubelet."
}

TEST(NodeDrain, CordonsEvictsGracefullyAndSkipsDaemonSetPods) {
  K8sWorld w;
  Kubelet kubelet(w.api);
  NodeId node = w.add_ready_node("n1", ResourceList{{"cpu", 4000}, {"pods", 10}});
  Pod app = testing::make_pod("app", "busybox", {"sleep", "3600"});
  app.spec.termination_grace_period_seconds = 20;
  PodId a = w.api.create_pod(app);
  Pod ds = testing::make_pod("ds-pod", "busybox", {"sleep", "3600"});
  ds.meta.owner_references.push_back({"DaemonSet", "agent", true});
  PodId d = w.api.create_pod(ds);
  w.api.bind(a, node);
  w.api.bind(d, node);
  w.run_until_s(60);
  double drained_at = -1;
  drain_node(w.api, kubelet, node, [&] { drained_at = w.sim.now().to_seconds(); });
  EXPECT_TRUE(w.api.node(node).node.unschedulable);
  EXPECT_EQ(w.api.node(node).node.taints.back().key, "node.kubernetes.io/unschedulable");
  auto ns = w.events("NodeNotSchedulable");
  ASSERT_EQ(ns.size(), 1u);
  EXPECT_EQ(ns[0].message, "Node n1 status is now: NodeNotSchedulable");
  w.run_until_s(200);
  EXPECT_TRUE(w.api.pod(a).deleted);
  EXPECT_FALSE(w.api.pod(d).deleted);
  EXPECT_NEAR(drained_at, 80.0, 1.0);  // 20 s grace (sleep ignores SIGTERM), polled every second
  remove_node_and_pods(w.api, node);
  EXPECT_TRUE(w.api.pod(d).deleted);
  EXPECT_TRUE(w.api.node(node).deleted);
}

}  // namespace
}  // namespace eksim::k8s
