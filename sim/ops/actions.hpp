#pragma once
// Scenario content applied to a running Cluster: manifests (kubectl apply) and the operator's timeline actions. A refused action is recorded as a Warning
// event with the real service's error text, and the simulation goes on (CONTRACT.md).
#include <optional>
#include <string>
#include <vector>

#include "models/aws/aws_error.hpp"

#include "models/cluster/cluster.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::ops {

void apply_manifests(Cluster& cluster, const std::vector<scenario::Manifest>& manifests);
void apply_action(Cluster& cluster, const scenario::Action& action);

// What an AWS-side action (eks.update-nodegroup-config, ec2.set-quota, sg.*,
// ec2.send-spot-instance-interruptions) did. The timeline records a refusal as a Warning event and
// a remark as a hint; `eksim ctl aws` prints them as the aws CLI would.
struct AwsActionResult {
  std::optional<aws::AwsError> error;  // the service refused it, with its own code and text
  std::string remark_kind, remark;     // eksim's own words when it found nothing to act on
  std::string instance_id;             // spot interruption: the instance it was sent to
};
bool is_aws_action(const std::string& action);
// Performs an AWS-side action without recording its outcome (apply_action records it).
AwsActionResult perform_aws_action(Cluster& cluster, const scenario::Action& action);

}  // namespace eksim::ops
