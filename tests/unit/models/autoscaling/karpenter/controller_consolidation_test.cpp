// Karpenter controller: multi-node consolidation and scheduled disruption budgets.
#include <gtest/gtest.h>

#include "tests/unit/models/autoscaling/karpenter/karpenter_world.hpp"

namespace eksim::autoscaling::karpenter {
namespace {

using engine::Duration;
using test::World;
using test::WorldOptions;

// Three c5.xlarge, each with one 3-CPU pod (deleted at 5m) and one 300m pod.
void three_underutilized_nodes(World& w) {
  std::vector<k8s::PodId> big;
  for (int i = 0; i < 3; ++i) {
    big.push_back(w.pod("big-" + std::to_string(i), 3000));
    w.run_to(Duration::seconds(5 + 5 * i));
  }
  w.run_to(Duration::minutes(3));
  for (int i = 0; i < 3; ++i) {
    w.pod("small-" + std::to_string(i), 300);
    w.run_to(Duration::minutes(3) + Duration::seconds(5 * (i + 1)));
  }
  w.run_to(Duration::minutes(5));
  ASSERT_EQ(w.live().size(), 3u);
  for (auto p : big) w.cluster->kubelet->delete_pod(p);
}

// One zone (private-a), as the command sizes below assume.
WorldOptions one_zone() {
  WorldOptions o;
  o.zones = 1;
  return o;
}

TEST(KarpenterMultiNodeConsolidation, ThreeNodesReplacedByOneCheaper) {
  World w(one_zone());
  w.pool_of({"t3.medium", "m5.large", "c5.xlarge"}, {Budget{"100%", {}, "", std::nullopt}});
  three_underutilized_nodes(w);
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
  World w(one_zone());
  w.pool_of({"c5.xlarge"}, {Budget{"100%", {}, "", std::nullopt}});
  three_underutilized_nodes(w);
  w.run_to(Duration::minutes(20));
  EXPECT_EQ(w.count("DisruptionLaunching"), 0);
  EXPECT_EQ(w.count("DisruptionTerminating", "Disrupting Node: Underutilized"), 2);
  EXPECT_EQ(w.live().size(), 1u);
}

TEST(KarpenterMultiNodeConsolidation, BudgetOfOneLeavesItToSingleNode) {
  // With the default 10% budget only one node may go at a time: multi-node needs two
  // candidates, so single-node consolidation deletes them one by one.
  World w(one_zone());
  w.pool_of({"c5.xlarge"}, {Budget{}});
  three_underutilized_nodes(w);
  w.run_to(Duration::minutes(6) + Duration::seconds(35));  // eligible 6m01s, pending 6m10s, executed 6m30s
  EXPECT_EQ(w.count("DisruptionTerminating", "Disrupting Node: Underutilized"), 1);
  w.run_to(Duration::minutes(20));
  EXPECT_EQ(w.live().size(), 1u);
}

TEST(KarpenterBudgetSchedule, ZeroBudgetBlocksOnlyInsideItsWindow) {
  // nodes: 0 every day from 00:00 UTC for 1h (simulated time 0 is 1970-01-01T00:00Z).
  World w(one_zone());
  w.pool_of({"c5.xlarge"}, {Budget{"0", {}, "0 0 * * *", Duration::hours(1)}}, "WhenEmpty");
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
