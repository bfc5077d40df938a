#pragma once
// Pure rules of EC2 Auto Scaling groups and EKS managed node group scaling: size validation with
// AWS's error texts, where the next instance goes, which instance a scale-in removes, the texts
// of scaling activities, and the back-off between failed launches. No state, no clock: the ASG
// and node group controllers call these with what they own.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/aws/aws_error.hpp"
#include "sim/engine/rng.hpp"
#include "sim/engine/time.hpp"

namespace eksim::aws {

// --- timestamps --------------------------------------------------------------------------

// 2026-01-01T00:00:00Z as Unix seconds; the default scenario start epoch.
inline constexpr std::int64_t kDefaultStartEpochSeconds = 1767225600;

// ISO-8601 UTC of simulated time t, the scenario having started at start_epoch_seconds (Unix).
// Whole seconds ("2026-01-01T00:05:00Z") as in activity Causes; with_millis gives the
// StartTime form ("2026-01-01T00:05:00.766Z").
std::string format_iso8601(engine::SimTime t, std::int64_t start_epoch_seconds, bool with_millis = false);

// --- sizes -------------------------------------------------------------------------------

struct GroupSizes {
  std::int64_t min_size = 0;
  std::int64_t max_size = 0;
  std::int64_t desired = 0;
  bool operator==(const GroupSizes&) const = default;
};

struct SizesUpdate {
  std::optional<std::int64_t> min_size = std::nullopt;
  std::optional<std::int64_t> max_size = std::nullopt;
  std::optional<std::int64_t> desired = std::nullopt;
};

// CreateAutoScalingGroup / UpdateAutoScalingGroup checks on the final sizes, code
// ValidationError, in AWS's order:
//   min > max                 "Max bound, 1, must be greater than or equal to min bound, 2"
//   desired outside [min,max] "Desired capacity:3 must be between the specified min size:1 and max size:2"
std::optional<AwsError> validate_asg_sizes(const GroupSizes& s);

// UpdateAutoScalingGroup: merges the update into current. Without a new desired capacity, a new
// MinSize above the current desired raises desired to it and a new MaxSize below it lowers
// desired to it (UpdateAutoScalingGroup API reference); an explicit desired is validated as given.
struct AsgUpdateResult {
  std::optional<AwsError> error;
  GroupSizes sizes;  // the merged sizes when there is no error; current otherwise
};
AsgUpdateResult apply_asg_update(const GroupSizes& current, const SizesUpdate& update);

// EKS managed node group status as DescribeNodegroup prints it.
inline constexpr std::string_view kNodegroupActive = "ACTIVE";
// DescribeNodegroup status while health.issues holds a problem (an active group's instances that
// did not join, for example).
inline constexpr std::string_view kNodegroupDegraded = "DEGRADED";

// UpdateNodegroupConfig --scaling-config, checked in this order:
//  1. status is not ACTIVE (CREATING, UPDATING, DELETING, DEGRADED, ...): ResourceInUseException
//     "Nodegroup cannot be updated as it is currently not in Active State".
//  2. the request itself carries desiredSize and maxSize with desiredSize > maxSize:
//     InvalidParameterException "desiredSize can't be greater than maxSize" (the field names of the
//     request; inferred: this camelCase family is what CreateNodegroup requests get, see below).
//  3. the request merged onto the current config (terraform-aws-modules ignores desired_size, so
//     raising min_size is checked against the group's live desired size):
//     min > desired: "Minimum capacity 4 can't be greater than desired size 3"
//     desired > max: "desired capacity 2 can't be greater than max size 1"
//     both InvalidParameterException; min is checked first (min 5 > max 2 with desired 1 reports
//     the minimum).
// On success returns nullopt; the caller applies the merged sizes (merge_sizes).
std::optional<AwsError> validate_update_nodegroup_config(std::string_view status, const GroupSizes& current,
                                                         const SizesUpdate& update);
GroupSizes merge_sizes(const GroupSizes& current, const SizesUpdate& update);

// CreateNodegroup scalingConfig (and terraform creating a node group): InvalidParameterException
//   min > desired: "minSize can't be greater than desiredSize"
//   desired > max: "desiredSize can't be greater than maxSize"
std::optional<AwsError> validate_create_nodegroup_scaling(const GroupSizes& s);

// SetDesiredCapacity checks against the group's current min and max, code ValidationError:
//   "New SetDesiredCapacity value 3 is above max value 2 for the AutoScalingGroup."
//   "New SetDesiredCapacity value 0 is below min value 1 for the AutoScalingGroup."
// (as returned to Cluster Autoscaler in kubernetes/autoscaler#943 and in CLI output; the "below
// min" form is the same sentence, seen truncated after "min value 2" in user notes).
std::optional<AwsError> validate_set_desired_capacity(const GroupSizes& current, std::int64_t desired);

// SetDesiredCapacity --honor-cooldown while the group's cooldown runs: ScalingActivityInProgress
// with the API reference's description of that error ("The operation can't be performed because
// there are scaling activities in progress."); the exact runtime message is not published.
AwsError scaling_activity_in_progress_error();

// TerminateInstanceInAutoScalingGroup refusals, code ValidationError:
//   an instance no group manages: "Instance Id not found - No managed instance found for instance
//   ID: i-0abc" (SDK error mocks and emulators quote it; some drop the colon);
//   --should-decrement-desired-capacity when desired == min: "Currently, desiredSize equals
//   minSize (1). Terminating instance without replacement will violate group's min size
//   constraint. Either set shouldDecrementDesiredCapacity flag to false or lower group's min
//   size." (a real SDK exception log).
AwsError instance_not_managed_error(std::string_view instance_id);
AwsError terminate_below_min_error(std::int64_t min_size);

// --- where the next instance goes -----------------------------------------------------------

// Default "balanced best effort": a zone whose launch failed recently is skipped while others
// remain. "balanced only" keeps launching into the unbalanced zone.
// Source: Auto Scaling user guide, "Auto Scaling group Availability Zone distribution".
enum class AzDistribution { BalancedBestEffort, BalancedOnly };

struct LaunchSubnet {
  std::string subnet_id;
  std::string az;
  std::int64_t instances = 0;  // in-service and pending instances of the group in this subnet
  engine::SimTime failed_until = engine::SimTime::zero();  // a launch here failed; avoid until then
};

// Index of the subnet for the next launch: the AZ with the fewest instances of the group (summed
// over its subnets), ties broken by the AZ's first subnet in the group's order; inside the AZ the
// subnet with the fewest instances, ties by order. Under BalancedBestEffort AZs whose
// failed_until is after now are skipped unless every AZ is, in which case all are considered
// (the launch back-off, not the zone choice, paces those retries). nullopt when subnets is empty.
std::optional<std::size_t> choose_launch_subnet(const std::vector<LaunchSubnet>& subnets, engine::SimTime now,
                                                AzDistribution distribution = AzDistribution::BalancedBestEffort);

// --- which instance a scale-in removes ------------------------------------------------------

struct TerminationCandidate {
  std::string instance_id;
  std::string az;
  engine::SimTime launch_time;
  bool uses_launch_configuration = false;  // launched from a launch configuration, not a template
  bool uses_current_template = true;       // launched from the group's current launch template
  std::int64_t template_version = 1;       // version of the current template it was launched with
  bool protected_from_scale_in = false;
};

// The default termination policy (Auto Scaling user guide, "Configure termination policies",
// "How the default termination policy works"):
//  1. the AZ(s) with the most instances that have at least one unprotected instance;
//  2. within them, unprotected instances with an outdated configuration: launch configuration
//     first, then a template other than the current one, then the oldest version of the current
//     template;
//  3. among those left, the ones closest to the next billing hour (least time to the next whole
//     hour since launch, in whole seconds; still in the current guide);
//  4. one of those at random, drawn from rng.
// Returns the index in candidates, or nullopt if every instance is protected.
std::optional<std::size_t> select_instance_to_terminate(const std::vector<TerminationCandidate>& candidates,
                                                        engine::SimTime now, engine::Rng& rng);

// --- scaling activity texts ---------------------------------------------------------------
// Source: describe-scaling-activities output in the AWS CLI reference and in user reports.

// "Launching a new EC2 instance: i-0d44425630326060f"
std::string launch_description(std::string_view instance_id);
// "Launching a new EC2 instance.  Status Reason: <status message>" (two spaces, as AWS writes it)
std::string failed_launch_description(std::string_view status_message);
// "Terminating EC2 instance: i-02ce4f07da10a5333"
std::string terminate_description(std::string_view instance_id);

// StatusMessage of a failed launch of a launch-template group:
// "Could not launch On-Demand Instances. VcpuLimitExceeded - You have requested ... limit.
//  Launching EC2 instance failed." / "Could not launch Spot Instances. InsufficientInstanceCapacity
//  - There is no Spot capacity available that matches your request. Launching EC2 instance failed."
std::string failed_launch_status_message(bool spot, const AwsError& error);

// Cause fragments; join_causes puts them together with two spaces between sentences.
// "At T a user request created an AutoScalingGroup changing the desired capacity from 0 to 1."
std::string cause_user_created(std::string_view at, std::int64_t from, std::int64_t to);
// "At T a user request update of AutoScalingGroup constraints to min: 0, max: 2, desired: 2
//  changing the desired capacity from 0 to 2." (UpdateAutoScalingGroup; what EKS calls)
std::string cause_user_update_constraints(std::string_view at, const GroupSizes& sizes, std::int64_t from,
                                          std::int64_t to);
// "At T a user request explicitly set group desired capacity changing the desired capacity from 2 to 1."
// (SetDesiredCapacity; what Cluster Autoscaler calls)
std::string cause_user_set_desired(std::string_view at, std::int64_t from, std::int64_t to);
// "At T an instance was started in response to a difference between desired and actual
//  capacity, increasing the capacity from 0 to 2."
std::string cause_instance_started(std::string_view at, std::int64_t from, std::int64_t to);
// "At T an instance was taken out of service in response to a difference between desired and
//  actual capacity, shrinking the capacity from 4 to 3."
std::string cause_instance_taken_out(std::string_view at, std::int64_t from, std::int64_t to);
// TerminateInstanceInAutoScalingGroup's Cause:
//   decrement: "At 2023-09-23T06:39:59Z instance i-026e4c9f62c3e448c was taken out of service in
//               response to a user request, shrinking the capacity from 1 to 0." (Auto Scaling
//               user guide, quoted in buildkite/buildkite-agent-scaler#351)
//   no decrement: "At 2015-06-22T13:24:25Z instance i-0c48b6df was taken out of service in
//               response to a user request." (CLI output, gist watchamcb/cf6e8e4a03f204fe9fe4)
// from/to are the desired capacity before and after.
std::string cause_user_terminate(std::string_view at, std::string_view instance_id, bool decrement, std::int64_t from,
                                 std::int64_t to);
// "At T instance i-0dc044595776dad84 was selected for termination."
std::string cause_selected_for_termination(std::string_view at, std::string_view instance_id);
std::string join_causes(const std::vector<std::string>& sentences);

// --- back-off between failed launches -------------------------------------------------------

// AWS does not publish the ASG's retry schedule; activity histories show failed launches a few
// seconds apart at first and minutes apart after a while. Our choice: the first retry 10 s after
// a failure, doubling with each consecutive failure, capped at 5 minutes, reset by a successful
// launch. Every field is a scenario parameter.
struct LaunchBackoff {
  engine::Duration initial = engine::Duration::seconds(10);
  std::int64_t factor = 2;
  engine::Duration max = engine::Duration::minutes(5);
};
// Delay before the next attempt after consecutive_failures (>= 1) failed launches in a row.
engine::Duration launch_retry_delay(std::int64_t consecutive_failures, const LaunchBackoff& policy = {});

}  // namespace eksim::aws
