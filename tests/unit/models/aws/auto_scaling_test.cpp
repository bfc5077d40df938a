#include "models/aws/auto_scaling.hpp"

#include <gtest/gtest.h>

#include <set>

#include "models/aws/instance_catalog.hpp"
#include "models/aws/subnet_addresses.hpp"

namespace eksim::aws {
namespace {

using engine::Duration;
using engine::SimTime;

// One ASG over the given subnets, run on its own engine (no Kubernetes side).
struct AutoScalingWorld {
  engine::Simulator sim;
  engine::RngStreams rng{7};
  std::vector<Activity> activities;
  Ec2 ec2;
  AutoScaling asg;

  explicit AutoScalingWorld(std::vector<Subnet> subnets)
      : ec2(sim, rng, "us-east-1", std::move(subnets)), asg(sim, activities, rng, ec2, kDefaultStartEpochSeconds) {}

  AutoScalingGroup& group(GroupSizes sizes, std::vector<std::string> subnet_ids, const char* type = "t3.medium") {
    AutoScalingGroup g;
    g.name = "workers";
    g.sizes = sizes;
    g.subnet_ids = std::move(subnet_ids);
    g.launch_template.instance_types = {InstanceCatalog::builtin().find(type)};
    return asg.create_group(std::move(g), /*instances_already_running=*/true);
  }
  void run_for(Duration d) { sim.run_until(sim.now() + d); }
  const aws::Activity& last_activity() const { return activities.back(); }
};

std::vector<Subnet> one_subnet(const char* cidr = "10.0.0.0/20") { return {Subnet{"private-a", "us-east-1a", cidr}}; }

TEST(AwsAutoScaling, SetDesiredCapacityValidationTexts) {
  AutoScalingWorld w(one_subnet());
  w.group({1, 2, 1}, {"private-a"});
  auto above = w.asg.set_desired_capacity("workers", 3);
  ASSERT_TRUE(above);
  EXPECT_EQ(above->code, "ValidationError");
  EXPECT_EQ(above->message, "New SetDesiredCapacity value 3 is above max value 2 for the AutoScalingGroup.");
  auto below = w.asg.set_desired_capacity("workers", 0);
  ASSERT_TRUE(below);
  EXPECT_EQ(below->message, "New SetDesiredCapacity value 0 is below min value 1 for the AutoScalingGroup.");
  auto missing = w.asg.set_desired_capacity("nope", 1);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->str(), "ValidationError: AutoScalingGroup name not found - AutoScalingGroup nope not found");
  EXPECT_EQ(w.asg.find("workers")->sizes.desired, 1);  // refusals change nothing
  EXPECT_FALSE(w.asg.set_desired_capacity("workers", 2));
  EXPECT_EQ(w.asg.find("workers")->sizes.desired, 2);
}

TEST(AwsAutoScaling, SetDesiredCapacityCauseAndHonorCooldown) {
  AutoScalingWorld w(one_subnet());
  w.group({0, 3, 1}, {"private-a"});
  ASSERT_FALSE(w.asg.set_desired_capacity("workers", 2));
  w.run_for(Duration::seconds(5));
  EXPECT_EQ(w.last_activity().cause,
            "At 2026-01-01T00:00:00Z a user request explicitly set group desired capacity changing the desired "
            "capacity from 1 to 2.  At 2026-01-01T00:00:01Z an instance was started in response to a difference "
            "between desired and actual capacity, increasing the capacity from 1 to 2.");
  w.run_for(Duration::seconds(60));  // the launch completes at ~17 s: the cooldown runs from then
  auto refused = w.asg.set_desired_capacity("workers", 3, /*honor_cooldown=*/true);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->code, "ScalingActivityInProgress");
  EXPECT_FALSE(w.asg.set_desired_capacity("workers", 3, /*honor_cooldown=*/false));  // the default ignores it
  w.run_for(Duration::minutes(6));
  EXPECT_FALSE(w.asg.set_desired_capacity("workers", 2, /*honor_cooldown=*/true));  // cooldown over
}

TEST(AwsAutoScaling, TerminateWithoutDecrementIsReplaced) {
  AutoScalingWorld w(one_subnet());
  AutoScalingGroup& g = w.group({1, 3, 2}, {"private-a"});
  std::string victim = g.instances.front();
  ASSERT_FALSE(w.asg.terminate_instance(victim, /*decrement_desired=*/false));
  const aws::Activity& a = w.last_activity();
  EXPECT_EQ(a.description, "Terminating EC2 instance: " + victim);
  EXPECT_EQ(a.cause, "At 2026-01-01T00:00:00Z instance " + victim + " was taken out of service in response to a user request.");
  EXPECT_EQ(a.status, "Successful");
  EXPECT_EQ(w.ec2.find(victim)->state, InstanceState::ShuttingDown);
  EXPECT_EQ(g.sizes.desired, 2);
  w.run_for(Duration::seconds(30));
  EXPECT_EQ(g.instances.size(), 2u);  // a replacement was launched
  EXPECT_EQ(w.last_activity().description.rfind("Launching a new EC2 instance: i-", 0), 0u);
}

TEST(AwsAutoScaling, TerminateWithDecrementShrinks) {
  AutoScalingWorld w(one_subnet());
  AutoScalingGroup& g = w.group({1, 3, 3}, {"private-a"});
  std::string victim = g.instances.back();
  w.run_for(Duration::seconds(90));
  ASSERT_FALSE(w.asg.terminate_instance(victim, /*decrement_desired=*/true));
  EXPECT_EQ(w.last_activity().cause, "At 2026-01-01T00:01:30Z instance " + victim +
                                         " was taken out of service in response to a user request, shrinking the "
                                         "capacity from 3 to 2.");
  EXPECT_EQ(g.sizes.desired, 2);
  std::size_t activities = w.activities.size();
  w.run_for(Duration::minutes(2));
  EXPECT_EQ(g.instances.size(), 2u);
  EXPECT_EQ(w.activities.size(), activities);  // no replacement
}

TEST(AwsAutoScaling, DesiredCapacityHistory) {
  AutoScalingWorld w(one_subnet());
  AutoScalingGroup& g = w.group({1, 3, 1}, {"private-a"});
  w.run_for(Duration::minutes(1));
  ASSERT_FALSE(w.asg.set_desired_capacity("workers", 3));
  w.run_for(Duration::minutes(1));
  ASSERT_FALSE(w.asg.terminate_instance(g.instances.back(), /*decrement_desired=*/true));
  ASSERT_FALSE(w.asg.update_group("workers", SizesUpdate{std::nullopt, std::nullopt, 2}));  // same value: no entry
  const SimTime t0{};
  EXPECT_EQ(w.asg.desired_at("workers", t0), 1);
  EXPECT_EQ(w.asg.desired_at("workers", t0 + Duration::seconds(59)), 1);
  EXPECT_EQ(w.asg.desired_at("workers", t0 + Duration::minutes(1)), 3) << "the change made at t counts at t";
  EXPECT_EQ(w.asg.desired_at("workers", t0 + Duration::minutes(2)), 2);
  EXPECT_EQ(g.desired_history.size(), 3u);
  EXPECT_FALSE(w.asg.desired_at("nope", t0));
}

TEST(AwsAutoScaling, TerminateRefusals) {
  AutoScalingWorld w(one_subnet());
  AutoScalingGroup& g = w.group({2, 3, 2}, {"private-a"});
  auto at_min = w.asg.terminate_instance(g.instances.front(), true);
  ASSERT_TRUE(at_min);
  EXPECT_EQ(at_min->code, "ValidationError");
  EXPECT_EQ(at_min->message,
            "Currently, desiredSize equals minSize (2). Terminating instance without replacement will violate group's "
            "min size constraint. Either set shouldDecrementDesiredCapacity flag to false or lower group's min size.");
  EXPECT_EQ(w.ec2.find(g.instances.front())->state, InstanceState::Running);
  auto unknown = w.asg.terminate_instance("i-0123456789abcdef0", false);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->str(),
            "ValidationError: Instance Id not found - No managed instance found for instance ID: i-0123456789abcdef0");
}

// --- subnet addresses ------------------------------------------------------------------------

TEST(AwsSubnetAddresses, CidrSizes) {
  EXPECT_EQ(cidr_block_size("10.0.0.0/28"), 16);
  EXPECT_EQ(cidr_block_size("192.168.12.0/22"), 1024);
  EXPECT_EQ(cidr_block_size("10.0.0.0"), std::nullopt);
  EXPECT_EQ(usable_subnet_addresses("10.0.0.0/28"), 11);
  EXPECT_EQ(usable_subnet_addresses("10.0.0.0/24"), 251);
  EXPECT_EQ(usable_subnet_addresses("10.0.0.0/16"), 65531);
}

TEST(AwsSubnetAddresses, VpcCniWarmEniTable) {
  struct Case {
    std::int64_t enis, ips, pods, want;
  };
  const Case cases[] = {
      {3, 6, 0, 6},      // t3.medium, no pods: the primary ENI's 6 addresses are the warm ENI
      {3, 6, 1, 12},     // a pod uses a secondary: a second ENI keeps 5 free
      {3, 6, 5, 12},
      {3, 6, 6, 18},
      {3, 6, 17, 18},    // capped at the ENI limit
      {8, 30, 10, 60},   // EKS best practices: m5.8xlarge with 10 pods holds 60
      {15, 50, 10, 100}, // ... and m5.16xlarge holds 100
      {0, 0, 4, 5},      // no catalog data: one per pod plus the node
  };
  for (const auto& c : cases)
    EXPECT_EQ(vpc_cni_node_addresses(c.enis, c.ips, c.pods), c.want) << c.enis << "x" << c.ips << " pods " << c.pods;
}

TEST(AwsSubnetAddresses, LaunchFailsWhenSubnetIsFullAndTheRetryGoesElsewhere) {
  std::vector<Subnet> subnets{{"tiny-a", "us-east-1a", "10.0.0.0/28"}, {"big-b", "us-east-1b", "10.0.16.0/24"}};
  subnets[0].used_addresses = 9;  // 11 usable - 9 = 2 free
  AutoScalingWorld w(std::move(subnets));
  EXPECT_EQ(w.ec2.available_addresses("tiny-a"), 2);
  AutoScalingGroup& g = w.group({0, 6, 0}, {"tiny-a", "big-b"});
  ASSERT_FALSE(w.asg.set_desired_capacity("workers", 5));
  w.run_for(Duration::seconds(2));
  // a, b, a, b take both of tiny-a's addresses; the fifth launch (tiny-a again, the zones being
  // level) fails.
  EXPECT_EQ(w.ec2.available_addresses("tiny-a"), 0);
  EXPECT_EQ(g.instances.size(), 4u);
  const aws::Activity& failed = w.last_activity();
  EXPECT_EQ(failed.status, "Failed");
  EXPECT_EQ(failed.status_message,
            "Could not launch On-Demand Instances. InsufficientFreeAddressesInSubnet - There are not enough free "
            "addresses in subnet 'tiny-a' to satisfy the requested number of instances. Launching EC2 instance failed.");
  w.run_for(Duration::seconds(30));
  EXPECT_EQ(g.instances.size(), 5u);
  EXPECT_EQ(w.ec2.find(g.instances.back())->subnet_id, "big-b");
  EXPECT_EQ(w.ec2.available_addresses("big-b"), 251 - 3);
  // Addresses held beyond the primary (the VPC CNI's warm ENI) come out of what is left.
  w.ec2.addresses_of = [](const Instance&) -> std::int64_t { return 6; };
  for (const auto& id : g.instances) w.ec2.addresses_changed(id);  // as the cluster announces it
  EXPECT_EQ(w.ec2.available_addresses("big-b"), 251 - 18);
  EXPECT_EQ(w.ec2.available_addresses("tiny-a"), 0);
}

TEST(AwsSubnetAddresses, AddressesStayInsideSmallSubnetAndAreNotShared) {
  AutoScalingWorld w(one_subnet("10.0.0.0/28"));
  AutoScalingGroup& g = w.group({0, 11, 0}, {"private-a"});
  ASSERT_FALSE(w.asg.set_desired_capacity("workers", 11));
  w.run_for(Duration::seconds(2));
  ASSERT_EQ(g.instances.size(), 11u);
  std::set<std::string> ips;
  for (const auto& id : g.instances) ips.insert(w.ec2.find(id)->private_ip);
  EXPECT_EQ(ips.size(), 11u);
  EXPECT_TRUE(ips.count("10.0.0.4"));
  EXPECT_TRUE(ips.count("10.0.0.14"));
  EXPECT_FALSE(ips.count("10.0.0.15"));  // the broadcast address is AWS's
}

}  // namespace
}  // namespace eksim::aws
