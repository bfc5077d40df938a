#include "models/aws/eks.hpp"

#include <cstdio>
#include <utility>

namespace eksim::aws {

Eks::Eks(engine::RngStreams& rng, AutoScaling& asg, const InstanceCatalog& catalog, std::string cluster_name)
    : rng_(rng), asg_(asg), catalog_(catalog), cluster_name_(std::move(cluster_name)) {}

LaunchTemplate Eks::launch_template_for(const NodeGroupSpec& spec) const {
  LaunchTemplate lt;
  for (const auto& t : spec.instance_types)
    if (const InstanceType* it = catalog_.find(t)) lt.instance_types.push_back(it);
  lt.spot = spec.capacity_type == "SPOT";
  lt.security_groups = spec.vpc_security_group_ids;
  // EKS User Guide, "Amazon EKS security group requirements": without security groups in the
  // launch template, EKS puts the node group's instances in the cluster security group.
  if (lt.security_groups.empty() && !cluster_security_group_.empty()) lt.security_groups = {cluster_security_group_};
  lt.iam_role = spec.iam_role_name;
  lt.instance_tags = spec.tags;
  lt.instance_tags["eks:cluster-name"] = cluster_name_;
  lt.instance_tags["eks:nodegroup-name"] = spec.name;
  return lt;
}

ManagedNodegroup& Eks::create_nodegroup(NodeGroupSpec spec, std::vector<std::string> subnet_ids, bool already_running) {
  // EKS names the group's ASG eks-<nodegroup>-<uuid of the node group>.
  auto& r = rng_.get("eks/nodegroup-ids");
  std::uint64_t a = r.next_u64(), b = r.next_u64();
  char uuid[40];
  std::snprintf(uuid, sizeof uuid, "%08llx-%04llx-%04llx-%04llx-%012llx", static_cast<unsigned long long>(a >> 32),
                static_cast<unsigned long long>((a >> 16) & 0xffff), static_cast<unsigned long long>(a & 0xffff),
                static_cast<unsigned long long>(b >> 48), static_cast<unsigned long long>(b & 0xffffffffffffULL));
  ManagedNodegroup ng;
  ng.spec = std::move(spec);
  ng.asg_name = "eks-" + ng.spec.name + "-" + uuid;
  ng.subnet_ids = std::move(subnet_ids);

  AutoScalingGroup g;
  g.name = ng.asg_name;
  g.sizes = GroupSizes{ng.spec.min_size, ng.spec.max_size, ng.spec.desired_size};
  g.subnet_ids = ng.subnet_ids;
  g.launch_template = launch_template_for(ng.spec);
  // EKS managed node groups with capacity type SPOT turn Capacity Rebalancing on for their ASG
  // (EKS User Guide, "Managed node groups", capacity types: Spot).
  g.capacity_rebalance = g.launch_template.spot;
  // Tags EKS puts on the group's ASG, which Cluster Autoscaler's auto-discovery reads. The node
  // group's own tags are modelled as reaching the ASG too (the labs tag node groups for CA's
  // node-template; on real EKS that needs the tags propagated to the ASG).
  g.tags = ng.spec.tags;
  g.tags["eks:cluster-name"] = cluster_name_;
  g.tags["eks:nodegroup-name"] = ng.spec.name;
  g.tags["k8s.io/cluster-autoscaler/enabled"] = "true";
  g.tags["k8s.io/cluster-autoscaler/" + cluster_name_] = "owned";
  nodegroups_.push_back(std::move(ng));
  asg_.create_group(std::move(g), already_running);
  return nodegroups_.back();
}

ManagedNodegroup* Eks::find(const std::string& name) {
  for (auto& ng : nodegroups_)
    if (ng.spec.name == name) return &ng;
  return nullptr;
}

ManagedNodegroup* Eks::by_asg(const std::string& asg_name) {
  for (auto& ng : nodegroups_)
    if (ng.asg_name == asg_name) return &ng;
  return nullptr;
}

const ManagedNodegroup* Eks::by_asg(const std::string& asg_name) const {
  for (const auto& ng : nodegroups_)
    if (ng.asg_name == asg_name) return &ng;
  return nullptr;
}

GroupSizes Eks::sizes(const std::string& name) const {
  const ManagedNodegroup* ng = nullptr;
  for (const auto& g : nodegroups_)
    if (g.spec.name == name) ng = &g;
  if (!ng) return {};
  const AutoScalingGroup* g = std::as_const(asg_).find(ng->asg_name);
  return g ? g->sizes : GroupSizes{};
}

std::optional<AwsError> Eks::update_nodegroup_config(const std::string& name, const SizesUpdate& update) {
  ManagedNodegroup* ng = find(name);
  if (!ng)
    return AwsError{"ResourceNotFoundException", "No node group found for name: " + name + "."};
  GroupSizes current = sizes(name);
  if (auto err = validate_update_nodegroup_config(ng->status, current, update)) return err;
  GroupSizes merged = merge_sizes(current, update);
  SizesUpdate to_asg{merged.min_size, merged.max_size, merged.desired};
  if (auto err = asg_.update_group(ng->asg_name, to_asg)) return err;
  ng->spec.min_size = merged.min_size;
  ng->spec.max_size = merged.max_size;
  return std::nullopt;
}

}  // namespace eksim::aws
