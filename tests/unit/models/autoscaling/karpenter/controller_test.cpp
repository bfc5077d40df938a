// Karpenter controller: provisioning, NodeClaim lifecycle, disruption, spot interruption.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/unit/models/autoscaling/karpenter/karpenter_world.hpp"

namespace eksim::autoscaling::karpenter {
namespace {

using engine::Duration;
using test::World;
using test::WorldOptions;

TEST(KarpenterController, BatchesThenLaunchesCheapestAndInitializes) {
  World w;
  w.pool("WhenEmpty", Duration::minutes(1));
  w.pod("a", 500);
  w.run_to(Duration::millis(900));
  EXPECT_TRUE(w.k->node_claims().empty());  // batch window still open (1 s idle)
  w.pod("b", 500);
  w.run_to(Duration::millis(1500));
  EXPECT_TRUE(w.k->node_claims().empty());  // idle timer restarted by the second pod
  w.run_to(Duration::seconds(3));
  ASSERT_EQ(w.k->node_claims().size(), 1u);
  const auto& c = w.claim();
  EXPECT_EQ(c.instance_type, "m5.large");
  EXPECT_EQ(c.capacity_type, "on-demand");
  EXPECT_EQ(c.name.rfind("cpu-", 0), 0u);
  EXPECT_EQ(c.name.size(), 9u);
  EXPECT_EQ(w.count("Nominated"), 2);
  w.run_to(Duration::minutes(3));
  EXPECT_EQ(w.claim().phase, NodeClaimPhase::Initialized);
  auto node = w.cluster->api.find_node(w.claim().node_name);
  ASSERT_TRUE(node.has_value());
  const auto& rec = w.cluster->api.node(*node);
  EXPECT_EQ(rec.node_pool, "cpu");
  EXPECT_EQ(rec.capacity_type, "on-demand");
  EXPECT_EQ(rec.node.meta.labels.at("karpenter.sh/initialized"), "true");
  EXPECT_EQ(rec.node.meta.labels.at("karpenter.k8s.aws/instance-family"), "m5");
}

TEST(KarpenterController, EmptinessAfterConsolidateAfter) {
  World w;
  w.pool("WhenEmpty", Duration::minutes(20));
  auto p = w.pod("job", 500);
  w.run_to(Duration::minutes(3));
  w.bind(p);
  w.run_to(Duration::minutes(5));
  w.cluster->kubelet->delete_pod(p);
  w.run_to(Duration::minutes(24));
  EXPECT_EQ(w.claim().phase, NodeClaimPhase::Initialized);  // not yet 20 min empty
  w.run_to(Duration::minutes(27));
  EXPECT_EQ(w.claim().phase, NodeClaimPhase::Deleted);
  EXPECT_EQ(w.claim().disruption_reason, "Empty");
  EXPECT_EQ(w.count("DisruptionTerminating"), 2);
}

TEST(KarpenterController, DoNotDisruptBlocksConsolidation) {
  World w;
  w.pool("WhenEmptyOrUnderutilized", Duration::seconds(0));
  auto p = w.pod("pinned", 500, {{"karpenter.sh/do-not-disrupt", "true"}});
  w.run_to(Duration::minutes(3));
  w.bind(p);
  w.run_to(Duration::minutes(30));
  EXPECT_EQ(w.claim().phase, NodeClaimPhase::Initialized);
}

TEST(KarpenterController, ExpirationIsForceful) {
  World w;
  w.pool("WhenEmpty", Duration::hours(10), Duration::hours(1));
  auto p = w.pod("pinned", 500, {{"karpenter.sh/do-not-disrupt", "true"}});
  w.run_to(Duration::minutes(3));
  w.bind(p);
  w.run_to(Duration::minutes(62));
  EXPECT_EQ(w.claim().disruption_reason, "Expired");
  EXPECT_NE(w.claim().phase, NodeClaimPhase::Initialized);
}

TEST(KarpenterController, DriftReplacesBeforeDeleting) {
  World w;
  w.pool("WhenEmpty", std::nullopt);
  auto p = w.pod("web", 500);
  w.run_to(Duration::minutes(3));
  w.bind(p);
  NodePool changed = w.k->node_pools().at("cpu");
  changed.labels["team"] = "ml";  // template change -> drift
  w.k->apply_node_pool(changed);
  w.run_to(Duration::minutes(4));
  ASSERT_GE(w.k->node_claims().size(), 2u);
  EXPECT_TRUE(w.claim(1).replacement);
  EXPECT_EQ(w.claim(0).phase, NodeClaimPhase::Initialized);  // waits for the replacement
  // The candidate is tainted as the command starts; its pod keeps running there, and the
  // provisioner places it on the replacement in flight rather than launching another NodeClaim.
  {
    auto node = w.cluster->api.find_node(w.claim(0).node_name);
    ASSERT_TRUE(node.has_value());
    const auto& taints = w.cluster->api.node(*node).node.taints;
    auto it = std::find_if(taints.begin(), taints.end(), [](const k8s::Taint& t) { return t.key == "karpenter.sh/disrupted"; });
    ASSERT_NE(it, taints.end());
    EXPECT_EQ(it->value, "");
    EXPECT_EQ(it->effect, k8s::kNoSchedule);
    EXPECT_EQ(w.cluster->api.pod(p).node, *node);
    EXPECT_EQ(w.k->node_claims().size(), 2u);
    EXPECT_EQ(w.count("Nominated", "Pod should schedule on: nodeclaim/" + w.claim(1).name), 1);
  }
  w.run_to(Duration::minutes(8));
  EXPECT_EQ(w.claim(0).disruption_reason, "Drifted");
  EXPECT_NE(w.claim(0).phase, NodeClaimPhase::Initialized);
  EXPECT_GE(w.count("DisruptionLaunching"), 1);
}

TEST(KarpenterController, UnderutilizedReplacedWithCheaper) {
  World w;
  NodePool p;
  p.name = "cpu";
  p.requirements = {{"node.kubernetes.io/instance-type", "In", {"m5.large", "c5.xlarge"}}};
  p.consolidate_after = Duration::seconds(0);
  w.k->apply_node_pool(p);
  auto big = w.pod("big", 3000);  // needs the c5.xlarge
  auto small = w.pod("small", 300);
  w.run_to(Duration::minutes(3));
  ASSERT_EQ(w.k->node_claims().size(), 1u);
  EXPECT_EQ(w.claim().instance_type, "c5.xlarge");
  w.bind(big);
  w.bind(small);
  w.cluster->kubelet->delete_pod(big);
  w.run_to(Duration::minutes(10));
  // The 300m pod alone runs on a cheaper m5.large replacement.
  ASSERT_GE(w.k->node_claims().size(), 2u);
  EXPECT_EQ(w.claim(1).instance_type, "m5.large");
  EXPECT_EQ(w.claim(0).disruption_reason, "Underutilized");
}

TEST(KarpenterController, BudgetZeroBlocks) {
  World w;
  NodePool p;
  p.name = "cpu";
  p.requirements = {{"node.kubernetes.io/instance-type", "In", {"m5.large"}}};
  p.consolidation_policy = "WhenEmpty";
  p.consolidate_after = Duration::seconds(0);
  p.budgets = {Budget{"0", {}, "", std::nullopt}};
  w.k->apply_node_pool(p);
  auto pod = w.pod("x", 100);
  w.run_to(Duration::minutes(3));
  w.bind(pod);
  w.cluster->kubelet->delete_pod(pod);
  w.run_to(Duration::minutes(10));
  EXPECT_EQ(w.claim().phase, NodeClaimPhase::Initialized);
  EXPECT_GE(w.count("DisruptionBlocked"), 1);
}

TEST(KarpenterController, UnmappedRoleTimesOutAtRegistration) {
  WorldOptions access;
  access.declared_access = true;
  access.mapped_roles = {"SomeOtherRole"};
  World w(access);
  w.pool("WhenEmpty", Duration::minutes(1));
  w.pod("a", 500);
  w.run_to(Duration::minutes(14));
  ASSERT_EQ(w.k->node_claims().size(), 1u);
  EXPECT_EQ(w.claim().phase, NodeClaimPhase::Launched);
  w.run_to(Duration::minutes(16));
  EXPECT_EQ(w.claim().phase, NodeClaimPhase::Deleted);
  EXPECT_FALSE(w.cluster->api.find_node(w.claim().node_name).has_value());
  // The pod is still pending, so a new NodeClaim follows.
  EXPECT_GE(w.k->node_claims().size(), 2u);
}

TEST(KarpenterController, SpotInterruptionDrainsAndMarksOffering) {
  World w;
  NodePool p;
  p.name = "spot";
  p.requirements = {{"node.kubernetes.io/instance-type", "In", {"m5.large", "c5.xlarge"}},
                    {"karpenter.sh/capacity-type", "In", {"spot", "on-demand"}}};
  p.consolidate_after = std::nullopt;
  w.k->apply_node_pool(p);
  auto pod = w.pod("x", 500);
  w.run_to(Duration::minutes(3));
  ASSERT_EQ(w.claim().capacity_type, "spot");
  w.bind(pod);
  std::string type = w.claim().instance_type, zone = w.claim().zone;
  w.k->spot_interruption(w.claim().instance_id);
  EXPECT_TRUE(w.k->unavailable_offerings().unavailable(type, zone, "spot", w.cluster->sim.now()));
  EXPECT_EQ(w.count("SpotInterrupted"), 2);
  w.run_to(Duration::minutes(6));
  EXPECT_EQ(w.claim().phase, NodeClaimPhase::Deleted);
}

TEST(KarpenterController, InsufficientCapacityFallsBackToNextOffering) {
  World w;
  w.cluster->ec2.quotas().set_quota("Standard", false, 2);  // room for m5.large (2), not c5.xlarge (4)
  NodePool p;
  p.name = "cpu";
  p.requirements = {{"node.kubernetes.io/instance-type", "In", {"c5.xlarge"}}};
  w.k->apply_node_pool(p);
  w.pod("x", 500);
  w.run_to(Duration::seconds(5));
  ASSERT_GE(w.k->node_claims().size(), 1u);
  EXPECT_EQ(w.claim().phase, NodeClaimPhase::Deleted);
  EXPECT_GE(w.count("InsufficientCapacityError"), 1);
  EXPECT_GE(w.k->unavailable_offerings().size(w.cluster->sim.now()), 2u);  // both zones tried
}

}  // namespace
}  // namespace eksim::autoscaling::karpenter
