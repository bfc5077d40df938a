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

// When no pod is recorded for `pod` from Karpenter at these times (seconds), in order.
std::vector<double> failed_scheduling_times(const World& w, const std::string& pod) {
  std::vector<double> out;
  for (const auto& e : w.cluster->log.events())
    if (e.source == "karpenter" && e.reason == "FailedScheduling" && e.object.name == pod)
      out.push_back(static_cast<double>(e.time.us) / 1e6);
  return out;
}

TEST(KarpenterProvisioner, PassesThatSeeNothingNewRepublishOnlyWhenTheDedupeWindowEnds) {
  World w;
  w.pool("WhenEmpty", std::nullopt);
  // 64 CPUs: no m5.large or c5.xlarge takes it. Every disruption poll (10 s) runs a pass.
  w.pod("huge", 64000);
  w.run_to(Duration::minutes(2));
  // Something changes at 2 minutes: the next pass solves again, and the first pod's event stays
  // deduped (5 minutes from 1 s) while the new pod's is published.
  w.pod("huge-2", 64000);
  w.run_to(Duration::minutes(11));
  EXPECT_EQ(failed_scheduling_times(w, "huge"), (std::vector<double>{1, 301, 601}));
  EXPECT_EQ(failed_scheduling_times(w, "huge-2"), (std::vector<double>{121, 421}));
  EXPECT_EQ(w.count("FailedScheduling", "Failed to schedule pod, incompatible with nodepool \"cpu\""), 5);
  EXPECT_TRUE(w.k->node_claims().empty());
}

TEST(KarpenterProvisioner, EventsBeyondTheBroadcasterQueueAreDropped) {
  World w;
  w.pool("WhenEmpty", std::nullopt);
  for (int i = 0; i < 2000; ++i) w.pod("huge-" + std::to_string(i), 64000);
  w.run_to(Duration::seconds(2));
  // One pass publishes 2,000 FailedScheduling at once: the client writes a burst of 300 at
  // once and the broadcaster queues 1,000 more; the rest never become Events.
  int karpenter = 0;
  for (const auto& e : w.cluster->log.events()) karpenter += e.source == "karpenter" && e.reason == "FailedScheduling";
  EXPECT_EQ(karpenter, 1300);
  // The queue drains at 200 writes a second; 5 minutes on, the same again.
  w.run_to(Duration::seconds(302));
  karpenter = 0;
  for (const auto& e : w.cluster->log.events()) karpenter += e.source == "karpenter" && e.reason == "FailedScheduling";
  EXPECT_EQ(karpenter, 2600);
  EXPECT_GE(w.cluster->log.dropped(), 2u * 700u);
}

}  // namespace
}  // namespace eksim::autoscaling::karpenter
