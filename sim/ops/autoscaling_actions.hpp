#pragma once
// EC2 Auto Scaling's timeline actions performed on a running cluster (read by
// sim/scenario/autoscaling_actions.hpp). A refusal (AWS ValidationError,
// ScalingActivityInProgress) is a Warning event with AWS's text.
#include "models/cluster/cluster.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::ops {

// Applies it to the running cluster; returns false when a.action is not one of the two.
bool apply_autoscaling_action(Cluster& c, const scenario::Action& a);

}  // namespace eksim::ops
