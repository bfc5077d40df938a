#include "models/cluster/nodegroup_health.hpp"

#include <algorithm>

#include "models/cluster/cluster.hpp"

namespace eksim {

namespace {

void report_not_joined(Cluster& c, aws::ManagedNodegroup& ng, const std::string& instance_id) {
  auto issue = std::find_if(ng.health_issues.begin(), ng.health_issues.end(),
                            [](const aws::NodegroupIssue& i) { return i.code == kNodeCreationFailure; });
  if (issue == ng.health_issues.end()) {
    ng.health_issues.push_back(aws::NodegroupIssue{kNodeCreationFailure, kNodeCreationFailureMessage, {}, c.sim.now()});
    issue = std::prev(ng.health_issues.end());
  }
  issue->resource_ids.push_back(instance_id);
  if (ng.status != aws::kNodegroupActive) return;  // already DEGRADED (or updating): the issue grows
  ng.status = std::string(aws::kNodegroupDegraded);
  // One AWS row when the status changes, as the console's node group page shows it.
  aws::Activity a;
  a.start = a.end = c.sim.now();
  a.service = "eks-health";
  a.resource = ng.spec.name;
  a.status = std::string(aws::kNodegroupDegraded);
  a.description = std::string(kNodeCreationFailure) + ": " + kNodeCreationFailureMessage + " (" + instance_id + ")";
  c.activities.push_back(std::move(a));
}

}  // namespace

void watch_nodegroup_join(Cluster& c, const std::string& nodegroup, const std::string& instance_id) {
  c.sim.schedule(kNodegroupJoinDeadline, [&c, nodegroup, instance_id] {
    const aws::Instance* inst = c.ec2.find(instance_id);
    if (!inst || inst->state != aws::InstanceState::Running) return;
    if (c.node_of_instance(instance_id)) return;
    if (aws::ManagedNodegroup* ng = c.eks.find(nodegroup)) report_not_joined(c, *ng, instance_id);
  });
}

}  // namespace eksim
