#pragma once
// EKS managed node group health (DescribeNodegroup health.issues): an instance the group launched
// whose kubelet has not registered a Node within the join deadline is a NodeCreationFailure,
// "Instances failed to join the kubernetes cluster", and the group turns DEGRADED. The usual
// causes are the ones eksim models: a node role missing from aws-auth / access entries, or
// security groups that let the node reach neither the cluster endpoint nor anything else.
#include <string>

#include "sim/engine/time.hpp"

namespace eksim {

class Cluster;

// How long EKS waits for a node group's instance to join: the 15 minutes the managed node group
// update allows new nodes (FACTS.md, "Managed node group update"), which is the same service
// watching the same registration.
inline constexpr engine::Duration kNodegroupJoinDeadline = engine::Duration::minutes(15);

inline constexpr const char* kNodeCreationFailure = "NodeCreationFailure";
inline constexpr const char* kNodeCreationFailureMessage = "Instances failed to join the kubernetes cluster";

// Checks, kNodegroupJoinDeadline after now, that the instance (still running) has its Node.
void watch_nodegroup_join(Cluster& c, const std::string& nodegroup, const std::string& instance_id);

}  // namespace eksim
