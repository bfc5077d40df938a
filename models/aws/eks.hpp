#pragma once
// EKS managed node groups: an Auto Scaling group plus the labels, taints and launch template EKS
// manages for it, the UpdateNodegroupConfig API and its validation.
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/aws/auto_scaling.hpp"
#include "models/aws/nodegroup_spec.hpp"

namespace eksim::aws {

// One entry of DescribeNodegroup's health.issues.
struct NodegroupIssue {
  std::string code;     // NodeCreationFailure, ...
  std::string message;  // Instances failed to join the kubernetes cluster
  std::vector<std::string> resource_ids;  // the instances concerned, in the order they were found
  engine::SimTime since;                   // when EKS first reported it
};

struct ManagedNodegroup {
  NodeGroupSpec spec;  // desired_size here is the configured one; the live value is the ASG's
  std::string asg_name;  // eks-<name>-<uuid>
  std::string status = std::string(kNodegroupActive);
  std::vector<NodegroupIssue> health_issues;
  std::vector<std::string> subnet_ids;  // resolved (module fallback: the cluster's subnets)
};

class Eks {
 public:
  // EKS acts through the Auto Scaling group (which schedules and logs the launches); it keeps no
  // simulator or event log of its own.
  Eks(engine::RngStreams& rng, AutoScaling& asg, const InstanceCatalog& catalog, std::string cluster_name);

  // CreateNodegroup. With already_running the group's desired instances exist at t=0.
  ManagedNodegroup& create_nodegroup(NodeGroupSpec spec, std::vector<std::string> subnet_ids, bool already_running);
  ManagedNodegroup* find(const std::string& name);
  ManagedNodegroup* by_asg(const std::string& asg_name);
  const ManagedNodegroup* by_asg(const std::string& asg_name) const;
  std::deque<ManagedNodegroup>& nodegroups() { return nodegroups_; }
  const std::deque<ManagedNodegroup>& nodegroups() const { return nodegroups_; }
  AutoScaling& auto_scaling() { return asg_; }

  // aws eks update-nodegroup-config --scaling-config: validated as EKS does, then applied to the ASG.
  std::optional<AwsError> update_nodegroup_config(const std::string& name, const SizesUpdate& update);
  // The live sizes (ASG's).
  GroupSizes sizes(const std::string& name) const;

  // Called when labels or taints change in place (EKS updates the nodes' labels and taints
  // without replacing them); the cluster applies them to Node objects.
  std::vector<std::function<void(ManagedNodegroup&)>> on_labels_or_taints_changed;

  const std::string& cluster_name() const { return cluster_name_; }
  // The cluster security group EKS attaches to a node group's instances when its launch template
  // has no security groups (empty: none modelled, the instances get no group).
  void set_cluster_security_group(std::string id) { cluster_security_group_ = std::move(id); }

 private:
  LaunchTemplate launch_template_for(const NodeGroupSpec& spec) const;

  engine::RngStreams& rng_;
  AutoScaling& asg_;
  const InstanceCatalog& catalog_;
  std::string cluster_name_;
  std::string cluster_security_group_;
  std::deque<ManagedNodegroup> nodegroups_;
};

}  // namespace eksim::aws
