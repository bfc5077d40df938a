// Issue 17, item 4: each invariant of `eksim run --check-invariants` fires on a state that breaks
// it (built by hand on a real run), and stays quiet on the legal states next to it (taints added
// after a bind, a quota lowered below usage).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/autoscaling/karpenter/controller.hpp"
#include "models/invariants/invariant_checker.hpp"
#include "sim/ops/runner.hpp"

namespace eksim::invariants {
namespace {

using engine::Duration;
using engine::SimTime;

// Two node groups (system t3.medium x2, gpu g5.xlarge x1 tainted nvidia.com/gpu), quotas
// Standard 64 and G 8, ten minutes in: every invariant held so far.
struct InvariantWorld {
  scenario::Scenario s = scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/examples/two-nodegroups.yaml");
  ops::RunResult run;
  Cluster* c = nullptr;
  InvariantChecker* checker = nullptr;

  InvariantWorld() {
    ops::RunOptions o;
    o.check_invariants = true;
    run = ops::start_run(s, o);
    c = run.cluster.get();
    checker = c->controllers.invariants.get();
    ops::advance_run(run, SimTime{} + Duration::minutes(10));
  }

  std::vector<k8s::NodeId> nodes(const std::string& group) const {
    std::vector<k8s::NodeId> out;
    for (std::size_t i = 0; i < c->api.node_slots(); ++i) {
      k8s::NodeId id{static_cast<std::uint32_t>(i)};
      if (!c->api.node_deleted(id) && c->api.node(id).node_group == group) out.push_back(id);
    }
    return out;
  }

  // A pod no scheduler picks up (the tests bind it by hand, as a buggy scheduler would).
  k8s::PodId pod(const std::string& name, k8s::ResourceList requests = {}) {
    k8s::Pod p;
    p.meta.name = name;
    p.meta.ns = "default";
    p.spec.scheduler_name = "by-hand";
    k8s::Container ctr;
    ctr.name = "main";
    ctr.image = "nginx:1.27";
    ctr.requests = std::move(requests);
    p.spec.containers.push_back(std::move(ctr));
    return c->api.create_pod(std::move(p));
  }

  // What the scheduler does when it places a pod.
  void schedule(k8s::PodId p, k8s::NodeId n) {
    c->api.bind(p, n);
    for (auto& fn : c->scheduler->on_scheduled) fn(p, n);
  }
};

std::string violation_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Violation& v) {
    return v.what();
  }
  return "no violation";
}

TEST(Invariants, ACleanRunPassesAndSweeps) {
  InvariantWorld w;
  EXPECT_NO_THROW(w.checker->sweep());
  EXPECT_GE(w.checker->sweeps(), 1u);
}

TEST(Invariants, SchedulerBindToUntoleratedTaintFires) {
  InvariantWorld w;
  k8s::NodeId n = w.nodes("system").at(0);
  w.c->api.node(n).node.taints.push_back(k8s::Taint{"dedicated", "infra", k8s::kNoSchedule});
  k8s::PodId p = w.pod("intruder");
  std::string msg = violation_of([&] { w.schedule(p, n); });
  EXPECT_EQ(msg, "eksim: invariant violated at 00:10:00.000: the scheduler bound pod default/intruder to node " +
                     w.c->api.node(n).node.meta.name + " whose taint {dedicated=infra:NoSchedule} it does not tolerate");
}

TEST(Invariants, SchedulerBindToCordonedNodeFires) {
  InvariantWorld w;
  k8s::NodeId n = w.nodes("system").at(0);
  w.c->api.node(n).node.unschedulable = true;
  k8s::PodId p = w.pod("intruder");
  EXPECT_NE(violation_of([&] { w.schedule(p, n); }).find("to cordoned node"), std::string::npos);
}

TEST(Invariants, TaintsAndCordonAfterTheBindAreLegal) {
  InvariantWorld w;
  k8s::NodeId n = w.nodes("system").at(0);
  ASSERT_FALSE(w.c->api.node(n).pods.empty());
  w.c->api.node(n).node.taints.push_back(k8s::Taint{"node.kubernetes.io/not-ready", "", k8s::kNoExecute});
  w.c->api.node(n).node.unschedulable = true;
  EXPECT_NO_THROW(w.checker->after_event());
  EXPECT_NO_THROW(w.checker->sweep());
}

// Issue 42 item 3: two containers of cpu 5e15 (5e18 millicores each) sum past int64. Whatever
// the scheduler's own sums do with that, the checker counts in 128 bits and sees 10^19.
TEST(Invariants, BindOfRequestsPastInt64Fires) {
  InvariantWorld w;
  k8s::NodeId n = w.nodes("system").at(0);
  k8s::Pod huge;
  huge.meta.name = "huge";
  huge.meta.ns = "default";
  huge.spec.scheduler_name = "by-hand";
  for (const char* name : {"a", "b"}) {
    k8s::Container ctr;
    ctr.name = name;
    ctr.image = "nginx:1.27";
    ctr.requests.set(k8s::kCpu, 5'000'000'000'000'000'000);
    huge.spec.containers.push_back(ctr);
  }
  EXPECT_EQ(wide_pod_requests(huge.spec).get(k8s::resource_id(k8s::kCpu)), __int128{10'000'000'000'000'000'000u});
  k8s::PodId p = w.c->api.create_pod(std::move(huge));
  std::string msg = violation_of([&] { w.schedule(p, n); });
  EXPECT_NE(msg.find(": its pods request 10000000000000000"), std::string::npos) << msg;  // 10^19 and more: past int64
  EXPECT_NE(msg.find(" cpu, allocatable is "), std::string::npos) << msg;
}

TEST(Invariants, BindBeyondAllocatableFires) {
  InvariantWorld w;
  k8s::NodeId n = w.nodes("system").at(0);
  const std::int64_t cpu = w.c->api.node(n).node.allocatable.get(k8s::kCpu);
  k8s::ResourceList big;
  big.set(k8s::kCpu, cpu + 1);
  k8s::PodId p = w.pod("big", big);
  std::string msg = violation_of([&] { w.schedule(p, n); });
  EXPECT_NE(msg.find("the scheduler bound pod default/big to node " + w.c->api.node(n).node.meta.name + ": its pods request "),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find(" cpu, allocatable is " + std::to_string(cpu)), std::string::npos) << msg;
  // What a scheduler that counted right does: the same pod fits once the node is big enough.
  w.c->api.node(n).node.allocatable.set(k8s::kCpu, 2 * cpu + 1);
  k8s::PodId fits = w.pod("fits", big);
  EXPECT_NO_THROW(w.schedule(fits, n));
}

TEST(Invariants, BindOfAGpuPodToANodeWithoutGpusFires) {
  InvariantWorld w;
  k8s::NodeId n = w.nodes("system").at(0);
  k8s::ResourceList gpu;
  gpu.set(k8s::kNvidiaGpu, 1);
  k8s::PodId p = w.pod("gpu", gpu);
  EXPECT_NE(violation_of([&] { w.schedule(p, n); }).find(": its pods request 1 nvidia.com/gpu, allocatable is 0"),
            std::string::npos);
}

TEST(Invariants, BindBeyondMaxPodsFires) {
  InvariantWorld w;
  k8s::NodeId n = w.nodes("system").at(0);
  w.c->api.node(n).node.allocatable.set(k8s::kPods, static_cast<std::int64_t>(w.c->api.node(n).pods.size()));
  k8s::PodId p = w.pod("one-too-many");
  std::string msg = violation_of([&] { w.schedule(p, n); });
  EXPECT_NE(msg.find(" pods, allocatable pods is "), std::string::npos) << msg;
}

TEST(Invariants, APodBoundToTwoNodesFires) {
  InvariantWorld w;
  auto nodes = w.nodes("system");
  k8s::PodId p = w.pod("twice");
  w.c->api.bind(p, nodes.at(0));
  std::string msg = violation_of([&] { w.c->api.bind(p, nodes.at(1)); });
  EXPECT_EQ(msg, "eksim: invariant violated at 00:10:00.000: pod default/twice was bound to node " +
                     w.c->api.node(nodes[1]).node.meta.name + " while bound to node " +
                     w.c->api.node(nodes[0]).node.meta.name);
}

TEST(Invariants, NodePodListAndNodeNameMustAgree) {
  InvariantWorld w;
  auto nodes = w.nodes("system");
  k8s::PodId listed = w.c->api.node(nodes.at(0)).pods.at(0);
  w.c->api.node(nodes.at(1)).pods.push_back(listed);
  EXPECT_NE(violation_of([&] { w.checker->sweep(); }).find("is listed on two nodes"), std::string::npos);
  w.c->api.node(nodes.at(1)).pods.pop_back();
  EXPECT_NO_THROW(w.checker->sweep());
  w.c->api.pod(listed).pod.spec.node_name = "ip-10-9-9-9.ap-northeast-2.compute.internal";
  EXPECT_NE(violation_of([&] { w.checker->sweep(); }).find("whose nodeName is \"ip-10-9-9-9"), std::string::npos);
}

TEST(Invariants, ARemovedPodStillOnItsNodeFires) {
  InvariantWorld w;
  k8s::NodeId n = w.nodes("system").at(0);
  k8s::PodId p = w.pod("ghost");
  w.c->api.bind(p, n);
  w.c->api.remove_pod(p);
  w.c->api.node(n).pods.push_back(p);  // a removal that forgot the node's list
  EXPECT_NE(violation_of([&] { w.checker->after_event(); }).find("was removed from the API but is still listed on node"),
            std::string::npos);
}

TEST(Invariants, ALaunchBeyondTheVcpuQuotaFires) {
  InvariantWorld w;
  // EC2's own ledger loses the running g5.xlarge (a leak): it then accepts two more, 12 vCPUs of G.
  w.c->ec2.quotas().release("G", false, 4);
  aws::LaunchRequest req;
  req.type = w.c->catalog().find("g5.xlarge");
  ASSERT_NE(req.type, nullptr);
  req.subnet_id = "private-a";
  req.owner = "by-hand";
  ASSERT_TRUE(std::holds_alternative<std::string>(w.c->ec2.run_instance(req)));
  EXPECT_NO_THROW(w.checker->after_event());
  ASSERT_TRUE(std::holds_alternative<std::string>(w.c->ec2.run_instance(req)));
  std::string msg = violation_of([&] { w.checker->after_event(); });
  EXPECT_NE(msg.find("(g5.xlarge): pending and running G instances hold 12 vCPUs, the quota is 8"), std::string::npos) << msg;
  EXPECT_NE(violation_of([&] { w.checker->sweep(); }).find("EC2's G vCPU usage is 8, its pending and running instances hold 12"),
            std::string::npos);
}

TEST(Invariants, AQuotaLoweredBelowUsageIsLegal) {
  InvariantWorld w;
  w.c->ec2.quotas().set_quota("G", false, 0);
  EXPECT_NO_THROW(w.checker->after_event());
  EXPECT_NO_THROW(w.checker->sweep());
}

TEST(Invariants, BillingAfterTerminationFires) {
  InvariantWorld w;
  k8s::NodeId n = w.nodes("gpu").at(0);
  std::string id = w.c->api.node(n).instance_id;
  w.c->ec2.terminate(id);
  EXPECT_NO_THROW(w.checker->after_event());
  aws::Instance* inst = w.c->ec2.find(id);
  inst->terminated_at = *inst->terminated_at + Duration::hours(1);
  EXPECT_NE(violation_of([&] { w.checker->sweep(); }).find(id + " is billed until 01:10:00.000, after it began shutting down at 00:10:00.000"),
            std::string::npos);
  inst->terminated_at.reset();
  EXPECT_NE(violation_of([&] { w.checker->sweep(); }).find("but is still billed"), std::string::npos);
}

TEST(Invariants, TimeGoingBackFires) {
  InvariantWorld w;
  w.checker->check_clock(SimTime{} + Duration::minutes(10));
  EXPECT_EQ(violation_of([&] { w.checker->check_clock(SimTime{} + Duration::minutes(5)); }),
            "eksim: invariant violated at 00:10:00.000: simulated time went back from 00:10:00.000 to 00:05:00.000");
}

TEST(Invariants, ANodeOutlivingItsInstanceFires) {
  InvariantWorld w;
  // Drop every other reaction to a termination (the cluster's deletes the Node): the checker's,
  // installed last, stays.
  auto checker_listener = w.c->ec2.on_terminated.back();
  w.c->ec2.on_terminated.assign(1, checker_listener);
  k8s::NodeId n = w.nodes("gpu").at(0);
  std::string id = w.c->api.node(n).instance_id;
  w.c->ec2.terminate(id);
  EXPECT_EQ(violation_of([&] { w.checker->after_event(); }),
            "eksim: invariant violated at 00:10:00.000: node " + w.c->api.node(n).node.meta.name +
                " is still in the API after its instance " + id + " began shutting down");
  EXPECT_NE(violation_of([&] { w.checker->sweep(); }).find("is still in the API, its instance " + id + " is shutting-down"),
            std::string::npos);
}

TEST(Invariants, ANodeOnAnInstanceEc2DoesNotKnowFires) {
  InvariantWorld w;
  k8s::NodeId n = w.nodes("system").at(0);
  w.c->api.node(n).instance_id = "i-0000000000000dead";
  EXPECT_NE(violation_of([&] { w.checker->sweep(); }).find("is backed by instance i-0000000000000dead, which EC2 does not know"),
            std::string::npos);
}

TEST(Invariants, NodeClaimTriplesMustBeConsistent) {
  InvariantWorld w;
  k8s::NodeId n = w.nodes("system").at(0);
  const k8s::NodeRecord& node = w.c->api.node(n);
  using autoscaling::karpenter::NodeClaimState;
  NodeClaimState a;
  a.name = "default-abcde";
  a.instance_id = node.instance_id;
  a.node_name = node.node.meta.name;
  EXPECT_EQ(node_claims_problem({a}, *w.c), "");
  NodeClaimState b = a;
  b.name = "default-fghij";
  EXPECT_EQ(node_claims_problem({a, b}, *w.c),
            "NodeClaim default-fghij and NodeClaim default-abcde both hold instance " + node.instance_id);
  b.phase = autoscaling::karpenter::NodeClaimPhase::Deleted;  // history does not count
  EXPECT_EQ(node_claims_problem({a, b}, *w.c), "");
  NodeClaimState missing = a;
  missing.instance_id = "i-0000000000000dead";
  EXPECT_EQ(node_claims_problem({missing}, *w.c),
            "NodeClaim default-abcde points at instance i-0000000000000dead, which EC2 does not know");
  NodeClaimState wrong_node = a;
  wrong_node.node_name = w.c->api.node(w.nodes("system").at(1)).node.meta.name;
  EXPECT_NE(node_claims_problem({wrong_node}, *w.c).find("names node " + wrong_node.node_name + ", backed by instance"),
            std::string::npos);
}

}  // namespace
}  // namespace eksim::invariants
