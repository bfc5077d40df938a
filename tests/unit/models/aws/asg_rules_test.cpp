#include "models/aws/asg_rules.hpp"

#include <gtest/gtest.h>

#include <map>

#include "models/aws/quotas.hpp"

namespace eksim::aws {
namespace {

using engine::Duration;
using engine::SimTime;

SimTime at(std::int64_t seconds) { return SimTime{} + Duration::seconds(seconds); }

TEST(AwsAsgRules, Iso8601FromScenarioEpoch) {
  EXPECT_EQ(format_iso8601(at(300), kDefaultStartEpochSeconds), "2026-01-01T00:05:00Z");
  EXPECT_EQ(format_iso8601(SimTime{} + Duration::millis(9766), kDefaultStartEpochSeconds, true),
            "2026-01-01T00:00:09.766Z");
  EXPECT_EQ(format_iso8601(at(86400 * 59 + 3661), kDefaultStartEpochSeconds), "2026-03-01T01:01:01Z");
  EXPECT_EQ(format_iso8601(at(0), 951782400), "2000-02-29T00:00:00Z");  // leap day
  EXPECT_EQ(format_iso8601(at(0), 0), "1970-01-01T00:00:00Z");
}

struct AsgCase {
  GroupSizes sizes;
  const char* error;  // nullptr = valid
};

TEST(AwsAsgRules, AsgSizeValidationTable) {
  const AsgCase cases[] = {
      {{0, 2, 0}, nullptr},
      {{0, 2, 2}, nullptr},
      {{2, 2, 2}, nullptr},
      {{1, 2, 3}, "Desired capacity:3 must be between the specified min size:1 and max size:2"},
      {{2, 5, 1}, "Desired capacity:1 must be between the specified min size:2 and max size:5"},
      {{5, 3, 4}, "Max bound, 3, must be greater than or equal to min bound, 5"},
  };
  for (const auto& c : cases) {
    auto err = validate_asg_sizes(c.sizes);
    if (!c.error) {
      EXPECT_FALSE(err) << err->message;
    } else {
      ASSERT_TRUE(err) << c.error;
      EXPECT_EQ(err->code, "ValidationError");
      EXPECT_EQ(err->message, c.error);
    }
  }
}

TEST(AwsAsgRules, AsgUpdateAdjustsDesiredOnlyWhenNotGiven) {
  // New min above current desired: desired follows min.
  auto r = apply_asg_update({0, 2, 0}, {.min_size = 1});
  EXPECT_FALSE(r.error);
  EXPECT_EQ(r.sizes, (GroupSizes{1, 2, 1}));
  // New max below desired: desired follows max.
  r = apply_asg_update({0, 4, 3}, {.max_size = 2});
  EXPECT_EQ(r.sizes, (GroupSizes{0, 2, 2}));
  // Explicit desired outside the range is an error, and nothing changes.
  r = apply_asg_update({0, 2, 0}, {.desired = 3});
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message, "Desired capacity:3 must be between the specified min size:0 and max size:2");
  EXPECT_EQ(r.sizes, (GroupSizes{0, 2, 0}));
}

struct EksCase {
  const char* status;
  GroupSizes current;
  SizesUpdate update;
  const char* code;
  const char* message;
};

TEST(AwsAsgRules, UpdateNodegroupConfigTable) {
  const EksCase cases[] = {
      {"ACTIVE", {0, 2, 0}, {.desired = 2}, nullptr, nullptr},
      {"ACTIVE", {1, 3, 2}, {.min_size = 0, .max_size = 5, .desired = 5}, nullptr, nullptr},
      // terraform raises min_size; desired_size is ignored by the module, so the live desired 3 counts
      {"ACTIVE", {1, 5, 3}, {.min_size = 4}, "InvalidParameterException",
       "Minimum capacity 4 can't be greater than desired size 3"},
      {"ACTIVE", {1, 5, 3}, {.min_size = 4, .max_size = 6, .desired = 3}, "InvalidParameterException",
       "Minimum capacity 4 can't be greater than desired size 3"},
      // eksctl scale / update-nodegroup-config --scaling-config desiredSize=2 on a max-1 group
      {"ACTIVE", {1, 1, 1}, {.desired = 2}, "InvalidParameterException",
       "desired capacity 2 can't be greater than max size 1"},
      // lowering max below the live desired
      {"ACTIVE", {1, 3, 3}, {.max_size = 2}, "InvalidParameterException",
       "desired capacity 3 can't be greater than max size 2"},
      // both in the request
      {"ACTIVE", {0, 2, 0}, {.max_size = 1, .desired = 2}, "InvalidParameterException",
       "desiredSize can't be greater than maxSize"},
      // min above max with desired below both: the minimum is reported
      {"ACTIVE", {0, 2, 1}, {.min_size = 5}, "InvalidParameterException",
       "Minimum capacity 5 can't be greater than desired size 1"},
      // not ACTIVE wins over everything else
      {"UPDATING", {0, 2, 0}, {.desired = 9}, "ResourceInUseException",
       "Nodegroup cannot be updated as it is currently not in Active State"},
      {"CREATING", {0, 2, 0}, {.desired = 1}, "ResourceInUseException",
       "Nodegroup cannot be updated as it is currently not in Active State"},
  };
  for (const auto& c : cases) {
    auto err = validate_update_nodegroup_config(c.status, c.current, c.update);
    if (!c.code) {
      EXPECT_FALSE(err) << err->message;
    } else {
      ASSERT_TRUE(err) << c.message;
      EXPECT_EQ(err->code, c.code);
      EXPECT_EQ(err->message, c.message);
    }
  }
  EXPECT_EQ(merge_sizes({1, 3, 2}, {.desired = 3}), (GroupSizes{1, 3, 3}));
}

TEST(AwsAsgRules, CreateNodegroupScaling) {
  EXPECT_FALSE(validate_create_nodegroup_scaling({0, 2, 0}));
  auto err = validate_create_nodegroup_scaling({2, 4, 0});
  ASSERT_TRUE(err);
  EXPECT_EQ(err->code, "InvalidParameterException");
  EXPECT_EQ(err->message, "minSize can't be greater than desiredSize");
  err = validate_create_nodegroup_scaling({0, 1, 2});
  ASSERT_TRUE(err);
  EXPECT_EQ(err->message, "desiredSize can't be greater than maxSize");
}

TEST(AwsAsgRules, ChoosesAzWithFewestInstancesTiesBySubnetOrder) {
  std::vector<LaunchSubnet> s{
      {"subnet-a", "ap-northeast-2a", 1},
      {"subnet-b", "ap-northeast-2b", 0},
      {"subnet-c", "ap-northeast-2c", 0},
  };
  EXPECT_EQ(choose_launch_subnet(s, at(0)), 1u);
  s[1].instances = 1;
  EXPECT_EQ(choose_launch_subnet(s, at(0)), 2u);
  s[2].instances = 1;
  EXPECT_EQ(choose_launch_subnet(s, at(0)), 0u);  // all equal: first subnet
  EXPECT_FALSE(choose_launch_subnet({}, at(0)));
}

TEST(AwsAsgRules, BalancesByAzNotBySubnet) {
  // Two subnets in 2a with one instance each: 2a holds 2, 2b holds 1.
  std::vector<LaunchSubnet> s{
      {"subnet-a1", "ap-northeast-2a", 1},
      {"subnet-a2", "ap-northeast-2a", 1},
      {"subnet-b", "ap-northeast-2b", 1},
  };
  EXPECT_EQ(choose_launch_subnet(s, at(0)), 2u);
  s[2].instances = 3;
  s[1].instances = 0;  // 2a now holds 1: its emptier subnet goes next
  EXPECT_EQ(choose_launch_subnet(s, at(0)), 1u);
}

TEST(AwsAsgRules, SkipsRecentlyFailedAz) {
  std::vector<LaunchSubnet> s{
      {"subnet-a", "ap-northeast-2a", 0, at(100)},
      {"subnet-b", "ap-northeast-2b", 2},
  };
  EXPECT_EQ(choose_launch_subnet(s, at(50)), 1u);                                  // 2a failed until t=100
  EXPECT_EQ(choose_launch_subnet(s, at(150)), 0u);                                 // recovered
  EXPECT_EQ(choose_launch_subnet(s, at(50), AzDistribution::BalancedOnly), 0u);   // keeps trying 2a
  s[1].failed_until = at(100);
  EXPECT_EQ(choose_launch_subnet(s, at(50)), 0u);  // every AZ failed: plain balancing
}

TEST(AwsAsgRules, TerminatesInAzWithMostInstances) {
  engine::Rng rng(1);
  std::vector<TerminationCandidate> c{
      {"i-a1", "a", at(0)},
      {"i-b1", "b", at(0)},
      {"i-b2", "b", at(10)},
  };
  auto pick = select_instance_to_terminate(c, at(1000), rng);
  ASSERT_TRUE(pick);
  EXPECT_EQ(c[*pick].az, "b");
  // b's instances protected: the AZ with most instances among those with an unprotected one is a.
  c[1].protected_from_scale_in = c[2].protected_from_scale_in = true;
  pick = select_instance_to_terminate(c, at(1000), rng);
  ASSERT_TRUE(pick);
  EXPECT_EQ(c[*pick].instance_id, "i-a1");
  c[0].protected_from_scale_in = true;
  EXPECT_FALSE(select_instance_to_terminate(c, at(1000), rng));
}

TEST(AwsAsgRules, TerminatesOutdatedConfigurationFirst) {
  engine::Rng rng(1);
  std::vector<TerminationCandidate> c{
      {"i-new", "a", at(0), false, true, 3},
      {"i-v2", "a", at(0), false, true, 2},
      {"i-v1", "a", at(0), false, true, 1},
  };
  EXPECT_EQ(c[*select_instance_to_terminate(c, at(500), rng)].instance_id, "i-v1");
  c.push_back({"i-other-template", "a", at(0), false, false, 9});
  EXPECT_EQ(c[*select_instance_to_terminate(c, at(500), rng)].instance_id, "i-other-template");
  c.push_back({"i-lc", "a", at(0), true, false, 0});
  EXPECT_EQ(c[*select_instance_to_terminate(c, at(500), rng)].instance_id, "i-lc");
}

TEST(AwsAsgRules, ClosestToNextBillingHourThenRandom) {
  engine::Rng rng(7);
  // At t=4000 s: launched at 0 -> 3200 s to next hour; at 500 -> 100 s; at 3000 -> 2600 s.
  std::vector<TerminationCandidate> c{
      {"i-0", "a", at(0)},
      {"i-500", "a", at(500)},
      {"i-3000", "a", at(3000)},
  };
  EXPECT_EQ(c[*select_instance_to_terminate(c, at(4000), rng)].instance_id, "i-500");
  // Identical instances: the draw comes from the stream, so it is reproducible and covers all.
  std::vector<TerminationCandidate> same{{"i-x", "a", at(0)}, {"i-y", "a", at(0)}, {"i-z", "a", at(0)}};
  std::map<std::size_t, int> seen;
  engine::Rng r1(42), r2(42);
  for (int i = 0; i < 60; ++i) {
    auto p1 = select_instance_to_terminate(same, at(100), r1);
    auto p2 = select_instance_to_terminate(same, at(100), r2);
    ASSERT_EQ(p1, p2);
    seen[*p1]++;
  }
  EXPECT_EQ(seen.size(), 3u);
}

TEST(AwsAsgRules, ActivityTexts) {
  EXPECT_EQ(launch_description("i-0d44425630326060f"), "Launching a new EC2 instance: i-0d44425630326060f");
  EXPECT_EQ(terminate_description("i-02ce4f07da10a5333"), "Terminating EC2 instance: i-02ce4f07da10a5333");
  const std::string status = failed_launch_status_message(false, vcpu_limit_exceeded(8));
  EXPECT_EQ(status,
            "Could not launch On-Demand Instances. VcpuLimitExceeded - You have requested more vCPU capacity than your "
            "current vCPU limit of 8 allows for the instance bucket that the specified instance type belongs to. "
            "Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit. "
            "Launching EC2 instance failed.");
  EXPECT_EQ(failed_launch_description(status), "Launching a new EC2 instance.  Status Reason: " + status);
  EXPECT_EQ(failed_launch_status_message(true, {"InsufficientInstanceCapacity",
                                                "There is no Spot capacity available that matches your request."}),
            "Could not launch Spot Instances. InsufficientInstanceCapacity - There is no Spot capacity available that "
            "matches your request. Launching EC2 instance failed.");

  const auto t0 = format_iso8601(at(300), kDefaultStartEpochSeconds);
  const auto t1 = format_iso8601(at(303), kDefaultStartEpochSeconds);
  EXPECT_EQ(join_causes({cause_user_update_constraints(t0, {0, 2, 2}, 0, 2), cause_instance_started(t1, 0, 2)}),
            "At 2026-01-01T00:05:00Z a user request update of AutoScalingGroup constraints to min: 0, max: 2, "
            "desired: 2 changing the desired capacity from 0 to 2.  At 2026-01-01T00:05:03Z an instance was started "
            "in response to a difference between desired and actual capacity, increasing the capacity from 0 to 2.");
  EXPECT_EQ(join_causes({cause_user_set_desired(t0, 2, 1), cause_instance_taken_out(t1, 2, 1),
                         cause_selected_for_termination(t1, "i-0dc044595776dad84")}),
            "At 2026-01-01T00:05:00Z a user request explicitly set group desired capacity changing the desired "
            "capacity from 2 to 1.  At 2026-01-01T00:05:03Z an instance was taken out of service in response to a "
            "difference between desired and actual capacity, shrinking the capacity from 2 to 1.  At "
            "2026-01-01T00:05:03Z instance i-0dc044595776dad84 was selected for termination.");
  EXPECT_EQ(cause_user_created(t0, 0, 1),
            "At 2026-01-01T00:05:00Z a user request created an AutoScalingGroup changing the desired capacity from 0 "
            "to 1.");
}

TEST(AwsAsgRules, LaunchBackoffSchedule) {
  const std::int64_t expected_s[] = {10, 20, 40, 80, 160, 300, 300, 300};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(launch_retry_delay(i + 1), Duration::seconds(expected_s[i])) << i;
  EXPECT_EQ(launch_retry_delay(1000), Duration::minutes(5));  // no overflow
  LaunchBackoff custom{Duration::seconds(5), 3, Duration::seconds(100)};
  EXPECT_EQ(launch_retry_delay(3, custom), Duration::seconds(45));
  EXPECT_EQ(launch_retry_delay(4, custom), Duration::seconds(100));
}

}  // namespace
}  // namespace eksim::aws
