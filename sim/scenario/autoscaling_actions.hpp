#pragma once
// Timeline actions that call EC2 Auto Scaling directly, with the AWS CLI's keys:
//
//   - {at: 5m, action: autoscaling.set-desired-capacity, nodegroup: gpu, desiredCapacity: 3}
//   - {at: 5m, action: autoscaling.set-desired-capacity, autoScalingGroupName: eks-gpu-..., desiredCapacity: 1,
//      honorCooldown: true}
//   - {at: 9m, action: autoscaling.terminate-instance-in-auto-scaling-group, nodegroup: gpu, instance: newest,
//      shouldDecrementDesiredCapacity: false}
//   - {at: 9m, action: autoscaling.terminate-instance-in-auto-scaling-group, instanceId: i-0..., shouldDecrementDesiredCapacity: true}
//   - {at: 9m, action: autoscaling.terminate-instance-in-auto-scaling-group, node: ip-10-0-0-10.ec2.internal,
//      shouldDecrementDesiredCapacity: true}
//
// set-desired-capacity names the group by autoScalingGroupName (--auto-scaling-group-name) or,
// since EKS names a managed node group's ASG eks-<nodegroup>-<uuid>, by nodegroup.
// terminate-instance-in-auto-scaling-group names the instance by instanceId (--instance-id), by
// the Kubernetes node it backs, or as `instance: newest | oldest | N` (0 = first launched, as for
// ec2.send-spot-instance-interruptions) of a node group's in-service instances;
// shouldDecrementDesiredCapacity is required, as the CLI requires one of
// --should-decrement-desired-capacity / --no-should-decrement-desired-capacity.
//
// Performing them is sim/ops/autoscaling_actions.hpp.
#include <string>

#include "sim/scenario/scenario.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {

inline constexpr const char* kSetDesiredCapacityAction = "autoscaling.set-desired-capacity";
inline constexpr const char* kTerminateInstanceAction = "autoscaling.terminate-instance-in-auto-scaling-group";

// Reads the action's keys (the caller has read `at` and `action` and calls r.finish()).
void read_autoscaling_action(const Value& v, MapReader& r, Action& a);

}  // namespace eksim::scenario
