// Karpenter controller: multi-node consolidation and scheduled disruption budgets.
#include <gtest/gtest.h>

#include "models/autoscaling/karpenter.hpp"
#include "models/autoscaling/karpenter/controller.hpp"

namespace eksim::autoscaling::karpenter {
namespace {

using engine::Duration;
using engine::SimTime;

struct World {
  std::unique_ptr<Cluster> cluster;
  Controller* k = nullptr;

  World() {
    ClusterSpec spec;
    spec.name = "test";
    spec.region = "ap-northeast-2";
    spec.subnets = {{"private-a", "ap-northeast-2a", "10.0.1.0/24"}};
    spec.autoscaler.kind = "karpenter";
    cluster = std::make_unique<Cluster>(spec, 7);
    cluster->controllers.push_back(make_karpenter(*cluster));
    k = dynamic_cast<Controller*>(cluster->find_controller("karpenter"));
    NodeClass nc;
    nc.name = "default";
    nc.role = "KarpenterNodeRole";
    k->apply_node_class(nc);
  }
  void pool(std::vector<std::string> types, std::vector<Budget> budgets, const std::string& policy = "WhenEmptyOrUnderutilized") {
    NodePool p;
    p.name = "cpu";
    p.requirements = {{"node.kubernetes.io/instance-type", "In", std::move(types)},
                      {"karpenter.sh/capacity-type", "In", {"on-demand"}}};
    p.consolidation_policy = policy;
    p.consolidate_after = Duration::minutes(1);
    p.budgets = std::move(budgets);
    k->apply_node_pool(p);
  }
  k8s::PodId pod(const std::string& name, std::int64_t cpu_m) {
    k8s::Pod p;
    p.meta.name = name;
    p.meta.ns = "default";
    k8s::Container c;
    c.name = "main";
    c.image = "nginx";
    c.requests.set(k8s::kCpu, cpu_m);
    p.spec.containers.push_back(c);
    return cluster->api.create_pod(p);
  }
  void run_to(Duration d) { cluster->sim.run_until(SimTime{} + d); }
  int count(const std::string& reason, const std::string& message_prefix = "") const {
    int n = 0;
    for (const auto& e : cluster->log.events())
      if (e.reason == reason && e.message.rfind(message_prefix, 0) == 0) ++n;
    return n;
  }
  std::vector<const NodeClaimState*> live() const {
    std::vector<const NodeClaimState*> out;
    for (const auto& c : k->node_claims())
      if (c.phase != NodeClaimPhase::Deleted && c.phase != NodeClaimPhase::Deleting) out.push_back(&c);
    return out;
  }
  // Three c5.xlarge, each with one 3-CPU pod (deleted at 5m) and one 300m pod.
  void three_underutilized_nodes() {
    std::vector<k8s::PodId> big;
    for (int i = 0; i < 3; ++i) {
      big.push_back(pod("big-" + std::to_string(i), 3000));
      run_to(Duration::seconds(5 + 5 * i));
    }
    run_to(Duration::minutes(3));
    for (int i = 0; i < 3; ++i) {
      pod("small-" + std::to_string(i), 300);
      run_to(Duration::minutes(3) + Duration::seconds(5 * (i + 1)));
    }
    run_to(Duration::minutes(5));
    ASSERT_EQ(live().size(), 3u);
    for (auto p : big) cluster->kubelet->delete_pod(p);
  }
};

TEST(KarpenterMultiNodeConsolidation, ThreeNodesReplacedByOneCheaper) {
  World w;
  w.pool({"t3.medium", "m5.large", "c5.xlarge"}, {Budget{"100%", {}, "", std::nullopt}});
  w.three_underutilized_nodes();
  for (const auto* c : w.live()) EXPECT_EQ(c->instance_type, "c5.xlarge");
  w.run_to(Duration::minutes(20));
  // One replacement launched for the three; the binary search kept the longest prefix (3).
  EXPECT_EQ(w.count("DisruptionLaunching", "Launching NodeClaim: Underutilized"), 1);
  EXPECT_EQ(w.count("DisruptionTerminating", "Disrupting Node: Underutilized"), 3);
  std::vector<std::string> replacements;
  for (const auto& c : w.k->node_claims())
    if (c.replacement) replacements.push_back(c.instance_type);
  EXPECT_EQ(replacements, std::vector<std::string>{"t3.medium"});
  // The bare pods the drain evicted are gone, so at most the (then empty) replacement is left.
  EXPECT_LE(w.live().size(), 1u);
}

TEST(KarpenterMultiNodeConsolidation, DeletesTwoWhenNoCheaperReplacementExists) {
  // Only c5.xlarge allowed: replacing three with one c5.xlarge is no cheaper than keeping the
  // third (filterOutSameType), so the command is "delete the first two".
  World w;
  w.pool({"c5.xlarge"}, {Budget{"100%", {}, "", std::nullopt}});
  w.three_underutilized_nodes();
  w.run_to(Duration::minutes(20));
  EXPECT_EQ(w.count("DisruptionLaunching"), 0);
  EXPECT_EQ(w.count("DisruptionTerminating", "Disrupting Node: Underutilized"), 2);
  EXPECT_EQ(w.live().size(), 1u);
}

TEST(KarpenterMultiNodeConsolidation, BudgetOfOneLeavesItToSingleNode) {
  // With the default 10% budget only one node may go at a time: multi-node needs two
  // candidates, so single-node consolidation deletes them one by one.
  World w;
  w.pool({"c5.xlarge"}, {Budget{}});
  w.three_underutilized_nodes();
  w.run_to(Duration::minutes(6) + Duration::seconds(35));  // eligible 6m01s, pending 6m10s, executed 6m30s
  EXPECT_EQ(w.count("DisruptionTerminating", "Disrupting Node: Underutilized"), 1);
  w.run_to(Duration::minutes(20));
  EXPECT_EQ(w.live().size(), 1u);
}

TEST(KarpenterBudgetSchedule, ZeroBudgetBlocksOnlyInsideItsWindow) {
  // nodes: 0 every day from 00:00 UTC for 1h (simulated time 0 is 1970-01-01T00:00Z).
  World w;
  w.pool({"c5.xlarge"}, {Budget{"0", {}, "0 0 * * *", Duration::hours(1)}}, "WhenEmpty");
  auto p = w.pod("job", 500);
  w.run_to(Duration::minutes(5));
  w.cluster->kubelet->delete_pod(p);
  w.run_to(Duration::minutes(55));
  ASSERT_EQ(w.live().size(), 1u);
  EXPECT_GE(w.count("DisruptionBlocked", "No allowed disruptions for disruption reason Empty due to blocking budget"), 1);
  w.run_to(Duration::minutes(62));
  EXPECT_EQ(w.live().size(), 0u);
  EXPECT_EQ(w.count("DisruptionTerminating", "Disrupting Node: Empty"), 1);
}

}  // namespace
}  // namespace eksim::autoscaling::karpenter
