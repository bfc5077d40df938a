// Deleting an EC2NodeClass (karpenter-provider-aws nodeclass termination, karpenter nodepool
// readiness) and deleting a NodeClaim or its Node (the termination finalizer).
#include <gtest/gtest.h>

#include "karpenter_world.hpp"
#include "models/autoscaling/karpenter/nodeclass/discovery.hpp"

namespace eksim::autoscaling::karpenter {
namespace {

using engine::Duration;

TEST(NodeClassTermination, WaitsForItsNodeClaimsWhileItsNodePoolLaunchesNothing) {
  test::World w;
  w.pool("WhenEmpty", std::nullopt);
  w.pod("web", 500);
  w.run_to(Duration::minutes(3));
  ASSERT_EQ(w.live().size(), 1u);
  const std::string claim = w.claim().name;

  ASSERT_TRUE(w.k->delete_node_class("EC2NodeClass", "default"));
  // Still there, Terminating, and its NodePool is not Ready.
  ASSERT_EQ(w.k->node_classes().count("default"), 1u);
  EXPECT_TRUE(w.k->node_classes().at("default").deletion_timestamp.has_value());
  const Condition* ncr = find_condition(w.k->node_pools().at("cpu").conditions, "NodeClassReady");
  EXPECT_EQ(ncr->status, "False");
  EXPECT_EQ(ncr->reason, "NodeClassTerminating");
  EXPECT_EQ(ncr->message, "NodeClass is Terminating");
  EXPECT_EQ(w.count("WaitingOnNodeClaimTermination", "Waiting on NodeClaim termination for " + claim), 1);

  // A new pending pod gets no NodeClaim; the existing one is not deleted by Karpenter.
  w.pod("more", 1800);  // does not fit beside "web" on the m5.large
  w.run_to(Duration::minutes(12));
  EXPECT_EQ(w.live().size(), 1u);
  EXPECT_EQ(w.k->node_claims().size(), 1u);
  // Requeued every 10 minutes while the NodeClaim stays.
  w.run_to(Duration::minutes(13) + Duration::seconds(1));
  EXPECT_EQ(w.count("WaitingOnNodeClaimTermination"), 2);

  // The last NodeClaim gone, the finalizer lets the class go: NodeClassNotFound.
  ASSERT_TRUE(w.k->delete_node_claim(claim));
  w.run_to(Duration::minutes(15));
  EXPECT_EQ(w.k->node_classes().count("default"), 0u);
  ncr = find_condition(w.k->node_pools().at("cpu").conditions, "NodeClassReady");
  EXPECT_EQ(ncr->reason, "NodeClassNotFound");
  EXPECT_TRUE(w.k->node_claims().size() == 1u && w.claim().phase == NodeClaimPhase::Deleted);
}

TEST(NodeClassTermination, WithoutNodeClaimsItGoesAtOnceAndAWrongKindIsNotFound) {
  test::World w;
  EXPECT_FALSE(w.k->delete_node_class("NodeClass", "default"));  // an EC2NodeClass, not Auto Mode's
  EXPECT_FALSE(w.k->delete_node_class("EC2NodeClass", "missing"));
  EXPECT_TRUE(w.k->delete_node_class("EC2NodeClass", "default"));
  EXPECT_EQ(w.k->node_classes().count("default"), 0u);
  EXPECT_EQ(w.count("WaitingOnNodeClaimTermination"), 0);
}

TEST(NodeTermination, DeletingTheNodeDeletesItsNodeClaimAndAnotherNodeIsNotKarpenters) {
  test::World w;
  w.pool("WhenEmpty", std::nullopt);
  k8s::PodId p = w.pod("web", 500);
  w.run_to(Duration::minutes(3));
  ASSERT_EQ(w.live().size(), 1u);
  w.bind(p);
  auto node = w.cluster->api.find_node(w.claim().node_name);
  ASSERT_TRUE(node.has_value());
  ASSERT_TRUE(w.k->delete_node(*node));
  EXPECT_EQ(w.claim().phase, NodeClaimPhase::Deleting);
  // Tainted karpenter.sh/disrupted and drained: the pod is being deleted.
  EXPECT_TRUE(w.cluster->api.pod(p).terminating || w.cluster->api.pod(p).deleted);
  w.run_to(Duration::minutes(5));
  EXPECT_EQ(w.claim().phase, NodeClaimPhase::Deleted);
  EXPECT_FALSE(w.k->delete_node_claim(w.claim().name));  // already gone
}

}  // namespace
}  // namespace eksim::autoscaling::karpenter
