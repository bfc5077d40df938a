#include "models/aws/spot_interruptions.hpp"

#include <gtest/gtest.h>

#include "models/aws/auto_scaling.hpp"
#include "models/aws/billing.hpp"

namespace eksim::aws {
namespace {

using engine::Duration;
using engine::SimTime;

// One EC2 region with two AZs and the spot model on top.
struct SpotWorld {
  explicit SpotWorld(std::uint64_t seed = 7)
      : rng(seed),
        ec2(sim, rng, "ap-northeast-2",
            {Subnet{"private-a", "ap-northeast-2a", "10.0.0.0/20"}, Subnet{"private-b", "ap-northeast-2b", "10.0.16.0/20"}}),
        spot(sim, rng, ec2) {
    spot.event_bridge = [this](const SpotSignal& sig, std::string_view detail_type, std::string detail) {
      published.push_back({sig.kind, sig.instance_id, std::string(detail_type), std::move(detail)});
    };
  }

  std::string run(const char* type, const char* subnet, bool is_spot) {
    LaunchRequest req;
    req.type = InstanceCatalog::builtin().find(type);
    req.subnet_id = subnet;
    req.spot = is_spot;
    req.owner = "test";
    return ec2.adopt_running_instance(req);
  }

  // What EC2 published to EventBridge, in order.
  struct Published {
    SpotSignalKind kind;
    std::string instance_id, detail_type, detail;
  };
  engine::Simulator sim;
  engine::RngStreams rng;
  std::vector<Activity> activities;
  Ec2 ec2;
  SpotInterruptions spot;
  std::vector<Published> published;
};

TEST(SpotInterruptions, WarningExactlyTwoMinutesBeforeTerminationAndRebalanceAtRequest) {
  SpotWorld w;
  std::string id = w.run("g5.xlarge", "private-a", true);
  w.sim.run_until(SimTime{} + Duration::minutes(10));
  ASSERT_FALSE(w.spot.send_spot_instance_interruption(id, Duration::minutes(5)));
  EXPECT_EQ(w.spot.planned_interruption(id), SimTime{} + Duration::minutes(15));
  w.sim.run_until(SimTime{} + Duration::minutes(30));
  const auto& s = w.spot.signals();
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].kind, SpotSignalKind::RebalanceRecommendation);
  EXPECT_EQ(s[0].time, SimTime{} + Duration::minutes(10));
  EXPECT_EQ(s[1].kind, SpotSignalKind::InterruptionWarning);
  EXPECT_EQ(s[1].time, SimTime{} + Duration::minutes(13));
  EXPECT_EQ(s[2].kind, SpotSignalKind::Interrupted);
  EXPECT_EQ(s[2].time - s[1].time, Duration::minutes(2));
  const Instance* inst = w.ec2.find(id);
  ASSERT_TRUE(inst->terminated_at);
  EXPECT_EQ(*inst->terminated_at, SimTime{} + Duration::minutes(15));
  EXPECT_EQ(inst->state, InstanceState::Terminated);
  EXPECT_EQ(inst->state_reason, "Server.SpotInstanceTermination: Spot instance termination");
  EXPECT_FALSE(w.spot.planned_interruption(id));
}

TEST(SpotInterruptions, DurationBeforeInterruptionClampedToFisBounds) {
  SpotWorld w;
  std::string a = w.run("g5.xlarge", "private-a", true), b = w.run("g5.xlarge", "private-a", true);
  ASSERT_FALSE(w.spot.send_spot_instance_interruption(a, Duration::seconds(10)));
  ASSERT_FALSE(w.spot.send_spot_instance_interruption(b, Duration::hours(1)));
  EXPECT_EQ(w.spot.planned_interruption(a), SimTime{} + Duration::minutes(2));
  EXPECT_EQ(w.spot.planned_interruption(b), SimTime{} + Duration::minutes(15));
}

TEST(SpotInterruptions, EventBridgeEventsPublishedWithDetailTypeAndDetail) {
  SpotWorld w;
  std::string id = w.run("g5.xlarge", "private-a", true);
  ASSERT_FALSE(w.spot.send_spot_instance_interruption(id, Duration::minutes(2)));
  w.sim.run_until(SimTime{} + Duration::minutes(5));
  // The termination itself publishes nothing: two events, not three.
  const auto& ev = w.published;
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, SpotSignalKind::RebalanceRecommendation);
  EXPECT_EQ(ev[0].detail_type, "EC2 Instance Rebalance Recommendation");
  EXPECT_EQ(ev[0].detail, "{\"instance-id\": \"" + id + "\"}");
  EXPECT_EQ(ev[1].kind, SpotSignalKind::InterruptionWarning);
  EXPECT_EQ(ev[1].detail_type, "EC2 Spot Instance Interruption Warning");
  EXPECT_EQ(ev[1].detail, "{\"instance-id\": \"" + id + "\", \"instance-action\": \"terminate\"}");
  EXPECT_EQ(ev[1].instance_id, id);
}

TEST(SpotInterruptions, OnDemandInstancesAreNeverInterrupted) {
  SpotWorld w;
  // A rate on the On-Demand instance's pool changes nothing: only Spot Instances are drawn.
  w.spot.set_rate("g5.xlarge", "ap-northeast-2a", SpotPoolRate{1000.0, {}});
  std::string od = w.run("g5.xlarge", "private-a", false);
  EXPECT_FALSE(w.spot.planned_interruption(od));
  auto err = w.spot.send_spot_instance_interruption(od, Duration::minutes(2));
  ASSERT_TRUE(err);
  EXPECT_EQ(*err, "instance " + od + " is not a Spot Instance");
  w.sim.run_until(SimTime{} + Duration::hours(10));
  EXPECT_TRUE(w.spot.signals().empty());
  EXPECT_EQ(w.ec2.find(od)->state, InstanceState::Running);
}

TEST(SpotInterruptions, RateDrawsArePerPoolDeterministicAndIndependentOfOtherStreams) {
  auto pool_a_times = [](std::uint64_t seed, bool noise) {
    SpotWorld w(seed);
    w.spot.set_rate("g5.xlarge", "ap-northeast-2a", SpotPoolRate{2.0, {}});
    if (noise) {
      // Another pool with its own rate, instances in it, and draws from unrelated streams.
      w.spot.set_rate("g5.xlarge", "ap-northeast-2b", SpotPoolRate{5.0, {}});
      w.run("g5.xlarge", "private-b", true);
      for (int i = 0; i < 17; ++i) w.rng.get("karpenter").next_u64();
    }
    std::vector<SimTime> times;
    for (int i = 0; i < 4; ++i) {
      if (noise) w.run("g5.xlarge", "private-b", true);
      std::string id = w.run("g5.xlarge", "private-a", true);
      times.push_back(*w.spot.planned_interruption(id));
    }
    return times;
  };
  auto base = pool_a_times(7, false);
  EXPECT_EQ(base, pool_a_times(7, false));
  EXPECT_EQ(base, pool_a_times(7, true));
  EXPECT_NE(base, pool_a_times(8, false));
  // The draws are the pool stream's exponentials: warning after Exp(mean 30 min), +2 min notice.
  engine::RngStreams rng(7);
  auto& r = rng.get(SpotInterruptions::stream_name("g5.xlarge", "ap-northeast-2a"));
  EXPECT_EQ(SpotInterruptions::stream_name("g5.xlarge", "ap-northeast-2a"), "ec2/spot/g5.xlarge/ap-northeast-2a");
  for (const SimTime& t : base)
    EXPECT_EQ(t, SimTime{} + Duration::from_seconds(r.exponential(1800.0)) + Duration::minutes(2));
}

TEST(SpotInterruptions, RebalanceLeadComesBeforeTheWarning) {
  SpotWorld w;
  w.spot.set_rate("g5.xlarge", "ap-northeast-2a", SpotPoolRate{1.0, Duration::minutes(10)});
  std::string id = w.run("g5.xlarge", "private-a", true);
  SimTime end = *w.spot.planned_interruption(id);
  w.sim.run_until(end + Duration::minutes(1));
  const auto& s = w.spot.signals();
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[1].time, end - Duration::minutes(2));
  SimTime want = s[1].time - Duration::minutes(10);
  EXPECT_EQ(s[0].time, want < SimTime{} ? SimTime{} : want);
}

TEST(SpotInterruptions, ListenersCalledInSubscriptionOrder) {
  SpotWorld w;
  std::vector<std::string> calls;
  w.spot.listeners.push_back([&](const SpotSignal& s) { calls.push_back(std::string("first:") + to_string(s.kind)); });
  w.spot.listeners.push_back([&](const SpotSignal& s) { calls.push_back(std::string("second:") + to_string(s.kind)); });
  std::string id = w.run("g5.xlarge", "private-a", true);
  ASSERT_FALSE(w.spot.send_spot_instance_interruption(id, Duration::minutes(2)));
  w.sim.run_until(SimTime{} + Duration::minutes(5));
  EXPECT_EQ(calls, (std::vector<std::string>{
                       "first:EC2 Instance Rebalance Recommendation", "second:EC2 Instance Rebalance Recommendation",
                       "first:EC2 Spot Instance Interruption Warning", "second:EC2 Spot Instance Interruption Warning",
                       "first:Server.SpotInstanceTermination", "second:Server.SpotInstanceTermination"}));
}

TEST(SpotInterruptions, AnInstanceGoneEarlierGetsNoFurtherSignals) {
  SpotWorld w;
  std::string id = w.run("g5.xlarge", "private-a", true);
  ASSERT_FALSE(w.spot.send_spot_instance_interruption(id, Duration::minutes(10)));
  w.sim.run_until(SimTime{} + Duration::minutes(1));
  w.ec2.terminate(id);  // e.g. drained and terminated by its ASG after the recommendation
  w.sim.run_until(SimTime{} + Duration::minutes(20));
  ASSERT_EQ(w.spot.signals().size(), 1u);
  EXPECT_EQ(w.spot.signals()[0].kind, SpotSignalKind::RebalanceRecommendation);
  EXPECT_EQ(*w.ec2.find(id)->terminated_at, SimTime{} + Duration::minutes(1));
  EXPECT_TRUE(w.ec2.find(id)->state_reason.empty());
}

TEST(SpotInterruptions, BillingStopsAtTheInterruption) {
  SpotWorld w;
  std::string id = w.run("g5.xlarge", "private-a", true);
  w.sim.run_until(SimTime{} + Duration::minutes(20));
  ASSERT_FALSE(w.spot.send_spot_instance_interruption(id, Duration::minutes(2)));
  w.sim.run_until(SimTime{} + Duration::hours(2));
  const Instance* inst = w.ec2.find(id);
  BillingLedger ledger;
  ledger.add_instance("gpu", 1.0, *inst->running_at, inst->terminated_at.value_or(w.sim.now()));
  // 22 minutes at $1/h, not the 2 hours the simulation ran.
  EXPECT_NEAR(ledger.total_usd(), 22.0 / 60.0, 1e-9);
}

TEST(SpotInterruptions, AsgHealthCheckAndCapacityRebalancingActivities) {
  SpotWorld w;
  AutoScaling asg(w.sim, w.activities, w.rng, w.ec2, kDefaultStartEpochSeconds);
  AutoScalingGroup g;
  g.name = "eks-gpu";
  g.sizes = GroupSizes{1, 2, 1};
  g.subnet_ids = {"private-a"};
  g.launch_template.instance_types = {InstanceCatalog::builtin().find("g5.xlarge")};
  g.launch_template.spot = true;
  g.capacity_rebalance = true;
  AutoScalingGroup& group = asg.create_group(g, /*instances_already_running=*/true);
  std::string old_id = group.instances.at(0);
  // Capacity Rebalancing: a replacement at the recommendation, the at-risk instance out of count.
  std::string replacement = asg.rebalance_recommendation(old_id);
  ASSERT_FALSE(replacement.empty());
  EXPECT_EQ(group.instances, std::vector<std::string>{replacement});
  EXPECT_EQ(group.rebalancing, std::vector<std::string>{old_id});
  EXPECT_EQ(asg.rebalance_recommendation(old_id), "");  // only once
  // EC2 interrupts the at-risk instance before the ASG terminated it: health check, no new launch.
  ASSERT_FALSE(w.spot.send_spot_instance_interruption(old_id, Duration::minutes(2)));
  w.sim.run_until(SimTime{} + Duration::minutes(10));
  const auto& acts = w.activities;
  ASSERT_EQ(acts.size(), 2u);
  EXPECT_EQ(acts[0].description, "Launching a new EC2 instance: " + replacement);
  EXPECT_EQ(acts[1].description, "Terminating EC2 instance: " + old_id);
  EXPECT_EQ(acts[1].cause,
            "At 2026-01-01T00:02:00Z an instance was taken out of service in response to an EC2 health check "
            "indicating it has been terminated or stopped.");
  EXPECT_TRUE(group.rebalancing.empty());
  EXPECT_EQ(group.instances.size(), 1u);
  // Without Capacity Rebalancing the interrupted instance is replaced after the health check.
  ASSERT_FALSE(w.spot.send_spot_instance_interruption(replacement, Duration::minutes(2)));
  w.sim.run_until(SimTime{} + Duration::minutes(20));
  ASSERT_EQ(acts.size(), 4u);
  // The launch follows a second later; its Cause carries the time the health check failed.
  EXPECT_EQ(acts[3].start, SimTime{} + Duration::minutes(12) + Duration::seconds(1));
  EXPECT_EQ(acts[3].cause, "At 2026-01-01T00:12:00Z an instance was launched in response to an unhealthy instance "
                           "needing to be replaced.");
  EXPECT_EQ(group.instances.size(), 1u);
}

}  // namespace
}  // namespace eksim::aws
