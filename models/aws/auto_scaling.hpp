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
#include "sim/engine/event_log.hpp"

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
  bool suspended_launch = false;
};

class AutoScaling {
 public:
  AutoScaling(engine::Simulator& sim, engine::EventLog& log, engine::RngStreams& rng, Ec2& ec2,
              std::int64_t start_epoch_seconds);

  AutoScalingGroup& create_group(AutoScalingGroup group, bool instances_already_running);
  AutoScalingGroup* find(const std::string& name);
  const AutoScalingGroup* find(const std::string& name) const;
  std::deque<AutoScalingGroup>& groups() { return groups_; }

  // UpdateAutoScalingGroup (min/max/desired, any subset). Returns AWS's ValidationError.
  std::optional<AwsError> update_group(const std::string& name, const SizesUpdate& update);
  // SetDesiredCapacity.
  std::optional<AwsError> set_desired_capacity(const std::string& name, std::int64_t desired);
  // TerminateInstanceInAutoScalingGroup, with or without decrementing desired capacity.
  void terminate_instance(const std::string& instance_id, bool decrement_desired);
  // Raises a cause sentence for the next activity of the group (used by EKS and autoscalers).
  void note_cause(const std::string& name, const std::string& sentence);

  std::string timestamp() const;  // now, ISO-8601 as activity causes print it

  // The group that owns an instance (by the instance's owner field).
  AutoScalingGroup* group_of(const std::string& instance_id);

 private:
  void schedule_reconcile(AutoScalingGroup& g);
  void reconcile(const std::string& name);
  void launch_one(AutoScalingGroup& g, std::int64_t from, std::int64_t to);
  void terminate_one(AutoScalingGroup& g, std::int64_t from, std::int64_t to);
  std::size_t record(engine::Activity a);
  void instance_running(Instance& inst);
  void instance_terminated(Instance& inst);

  engine::Simulator& sim_;
  engine::EventLog& log_;
  engine::RngStreams& rng_;
  Ec2& ec2_;
  std::int64_t start_epoch_;
  std::deque<AutoScalingGroup> groups_;
  std::map<std::string, std::size_t> launch_activity_;  // instance id -> activity index (InProgress)
};

}  // namespace eksim::aws
