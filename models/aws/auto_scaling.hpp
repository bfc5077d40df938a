#pragma once
// EC2 Auto Scaling groups: reconcile the number of instances toward desired capacity across the
// group's subnets, record scaling activities in AWS's words, and back off after failed launches.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/aws/asg_rules.hpp"
#include "models/aws/ec2.hpp"
#include "models/aws/activity.hpp"

namespace eksim::aws {

struct LaunchTemplate {
  std::vector<const InstanceType*> instance_types;  // first is used; the rest are overrides
  bool spot = false;
  std::vector<std::string> security_groups;
  std::string iam_role;
  std::map<std::string, std::string> instance_tags;
  std::int64_t version = 1;
};

struct AutoScalingGroup {
  std::string name;
  GroupSizes sizes;
  std::vector<std::string> subnet_ids;
  LaunchTemplate launch_template;
  std::map<std::string, std::string> tags;  // ASG tags (Cluster Autoscaler discovery, node-template)
  std::vector<std::string> instances;       // pending or running, not terminating
  std::map<std::string, engine::SimTime> subnet_failed_until;
  std::int64_t consecutive_failures = 0;
  engine::EventId retry;
  // The user-side sentence that explains the next launches/terminations ("At ... a user request
  // update of AutoScalingGroup constraints ..."), consumed by the next activity.
  std::string pending_cause;
  std::int64_t capacity_before_change = 0;
  // DefaultCooldown: 300 s unless set (CreateAutoScalingGroup API reference). Only a
  // SetDesiredCapacity with HonorCooldown waits for it here.
  engine::Duration default_cooldown = engine::Duration::seconds(300);
  bool suspended_launch = false;
  // Capacity Rebalancing: a Spot Instance that receives an EC2 instance rebalance recommendation
  // is replaced before it is interrupted. Such instances leave `instances` (they no longer count
  // toward desired capacity) and wait in `rebalancing` until terminated.
  bool capacity_rebalance = false;
  std::vector<std::string> rebalancing;
  // When set, the whole Cause of the next launch activity (replacing the generated sentences).
  std::optional<std::string> next_launch_cause;
  // Every DesiredCapacity the group has had, from its creation: (since, value).
  std::vector<std::pair<engine::SimTime, std::int64_t>> desired_history;
};

class AutoScaling {
 public:
  AutoScaling(engine::Simulator& sim, std::vector<Activity>& activities, engine::RngStreams& rng, Ec2& ec2,
              std::int64_t start_epoch_seconds);

  AutoScalingGroup& create_group(AutoScalingGroup group, bool instances_already_running);
  AutoScalingGroup* find(const std::string& name);
  // DesiredCapacity as it stood at t (after every change made at t); nullopt for an unknown
  // group or a time before it existed.
  std::optional<std::int64_t> desired_at(const std::string& name, engine::SimTime t) const;
  const AutoScalingGroup* find(const std::string& name) const;
  std::deque<AutoScalingGroup>& groups() { return groups_; }

  // UpdateAutoScalingGroup (min/max/desired, any subset). Returns AWS's ValidationError.
  std::optional<AwsError> update_group(const std::string& name, const SizesUpdate& update);
  // SetDesiredCapacity: ValidationError outside [min, max] ("New SetDesiredCapacity value 3 is
  // above max value 2 for the AutoScalingGroup."); with honor_cooldown, refused while the group's
  // last scaling activity ended less than default_cooldown ago (ScalingActivityInProgress).
  std::optional<AwsError> set_desired_capacity(const std::string& name, std::int64_t desired,
                                               bool honor_cooldown = false);
  // TerminateInstanceInAutoScalingGroup, with or without decrementing desired capacity. Refused
  // (ValidationError) for an instance no group manages, and for a decrement that would take
  // desired below min. Without the decrement the group launches a replacement.
  // The id is taken by value: callers often pass an element of the group's own instance list,
  // which these calls erase.
  std::optional<AwsError> terminate_instance(std::string instance_id, bool decrement_desired);
  // When the group's last scaling activity ended (start of its cooldown); nullopt if none yet.
  std::optional<engine::SimTime> last_activity_end(const std::string& name) const;
  // Capacity Rebalancing: instance_id received a rebalance recommendation. Launches a replacement
  // (desired capacity unchanged) and returns its id; "" when the group does not rebalance, the
  // instance is not in service, or the launch failed (the group then retries as usual).
  std::string rebalance_recommendation(std::string instance_id);
  // Capacity Rebalancing: the replacement is in service, so the at-risk instance is terminated.
  void terminate_rebalanced(std::string instance_id);
  // Raises a cause sentence for the next activity of the group (used by EKS and autoscalers).
  void note_cause(const std::string& name, const std::string& sentence);

  std::string timestamp() const;  // now, ISO-8601 as activity causes print it

  // The group that owns an instance (by the instance's owner field).
  AutoScalingGroup* group_of(const std::string& instance_id);

 private:
  void schedule_reconcile(AutoScalingGroup& g);
  void reconcile(const std::string& name);
  // The group's subnets with its instances in each, counted once for a run of launches (each
  // launch adds its own): counting them for every launch was quadratic in a large scale-up.
  std::vector<LaunchSubnet> launch_subnets(const AutoScalingGroup& g) const;
  void launch_one(AutoScalingGroup& g, std::vector<LaunchSubnet>& subnets, std::int64_t from, std::int64_t to);
  void terminate_one(AutoScalingGroup& g, std::int64_t from, std::int64_t to);
  std::size_t record(aws::Activity a);
  // "Terminating EC2 instance: i-..." (Successful, at once) with the given Cause.
  void set_desired(AutoScalingGroup& g, std::int64_t desired);
  void record_termination(const AutoScalingGroup& g, const std::string& instance_id, std::string cause);
  void instance_running(Instance& inst);
  void instance_terminated(Instance& inst);

  engine::Simulator& sim_;
  std::vector<Activity>& activities_;  // shared with EKS and Karpenter: AWS's records in order
  engine::RngStreams& rng_;
  Ec2& ec2_;
  std::int64_t start_epoch_;
  std::deque<AutoScalingGroup> groups_;
  std::map<std::string, std::size_t> launch_activity_;  // instance id -> activity index (InProgress)
};

}  // namespace eksim::aws
