// Karpenter provisioner: pods still on nodes marked for deletion are provisioned for before they
// are evicted (Provisioner.Schedule: pending pods + nodes.Deleting().CurrentlyReschedulablePods).
#include <gtest/gtest.h>

#include "tests/unit/models/autoscaling/karpenter/karpenter_world.hpp"

namespace eksim::autoscaling::karpenter {
namespace {

using engine::Duration;
using test::World;

TEST(KarpenterProvisioner, PodsOnATaintedNodeGetCapacityBeforeEviction) {
  World w;
  w.pool("WhenEmpty", std::nullopt);
  auto web = w.pod("web", 500);
  w.run_to(Duration::minutes(3));
  w.bind(web);
  ASSERT_EQ(w.k->node_claims().size(), 1u);
  ASSERT_EQ(w.claim().phase, NodeClaimPhase::Initialized);
  const int nominated = w.count("Nominated");
  // Someone (another controller, a user) marks the node for deletion; nothing is evicted yet.
  auto node = w.cluster->api.find_node(w.claim().node_name);
  ASSERT_TRUE(node.has_value());
  w.cluster->api.node(*node).node.taints.push_back(k8s::Taint{"karpenter.sh/disrupted", "", k8s::kNoSchedule});
  w.cluster->api.node_changed(*node, k8s::NodeChange::Updated);
  w.run_to(Duration::minutes(3) + Duration::millis(900));
  EXPECT_EQ(w.k->node_claims().size(), 1u);  // batch window open (1 s idle)
  w.run_to(Duration::minutes(3) + Duration::seconds(1));
  ASSERT_EQ(w.k->node_claims().size(), 2u);
  EXPECT_EQ(w.claim(1).phase, NodeClaimPhase::Launched);
  EXPECT_EQ(w.claim(1).pods, std::vector<std::string>{"default/web"});
  EXPECT_EQ(w.count("Nominated"), nominated + 1);
  EXPECT_EQ(w.count("Nominated", "Pod should schedule on: nodeclaim/" + w.claim(1).name), 1);
  // The pod itself still runs on the tainted node.
  EXPECT_EQ(w.cluster->api.pod(web).node, *node);
  EXPECT_EQ(w.cluster->api.pod(web).pod.status.phase, k8s::PodPhase::Running);
  // Later passes see the in-flight NodeClaim and launch nothing more.
  w.run_to(Duration::minutes(4));
  EXPECT_EQ(w.k->node_claims().size(), 2u);
}

}  // namespace
}  // namespace eksim::autoscaling::karpenter
