#pragma once
// Cluster Autoscaler's AWS node group templates: what a node of an Auto Scaling group would look
// like when the group has no node to copy (scale from zero). Mirrors
// cluster-autoscaler/cloudprovider/aws/aws_manager.go buildNodeFromTemplate,
// extractLabelsFromAsg, extractTaintsFromAsg, extractAllocatableResourcesFromAsg and
// aws_wrapper.go getManagedNodegroupInfo (DescribeNodegroup labels and taints).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/aws/instance_catalog.hpp"
#include "models/k8s/api/objects.hpp"

namespace eksim::autoscaling::cas {

inline constexpr std::string_view kNodeTemplateLabelPrefix = "k8s.io/cluster-autoscaler/node-template/label/";
inline constexpr std::string_view kNodeTemplateTaintPrefix = "k8s.io/cluster-autoscaler/node-template/taint/";
inline constexpr std::string_view kNodeTemplateResourcesPrefix = "k8s.io/cluster-autoscaler/node-template/resources/";
// labelAwsCSITopologyZone in aws_manager.go buildGenericLabels.
inline constexpr const char* kLabelEbsCsiZone = "topology.ebs.csi.aws.com/zone";

using Tags = std::map<std::string, std::string>;

// Go's strings.Split(s, sep)[1] when the split has more than one part: the text between the first
// and the second occurrence of sep (or the end). nullopt when sep does not occur.
std::optional<std::string> go_split_second(std::string_view s, std::string_view sep);

// extractLabelsFromAsg: `.../node-template/label/<k>` = v, else any key containing "eks:" gives
// the label after it (eks:cluster-name -> cluster-name, eks:nodegroup-name -> nodegroup-name).
k8s::Labels extract_labels_from_tags(const Tags& tags);
// extractTaintsFromAsg: `.../node-template/taint/<k>` = `<value>:<Effect>`. The value must match
// the unanchored regexp `(.*):(?:NoSchedule|NoExecute|PreferNoSchedule)`, so "true" alone (no
// effect) or "true:NO_SCHEDULE" is ignored; value and effect are split at the FIRST colon.
std::vector<k8s::Taint> extract_taints_from_tags(const Tags& tags);
// extractAllocatableResourcesFromAsg: `.../node-template/resources/<name>` = quantity, canonical
// amounts (cpu in millicores); unparsable quantities are skipped.
std::map<std::string, std::int64_t> extract_resources_from_tags(const Tags& tags);

// What EKS DescribeNodegroup returns that CA turns into template labels and taints.
struct ManagedNodegroupInfo {
  k8s::Labels labels;              // labels + diskSize, amiType, capacityType, k8sVersion
  std::vector<k8s::Taint> taints;  // effects converted to Kubernetes spelling
};

struct TemplateInput {
  const aws::InstanceType* type = nullptr;
  std::string asg_name;
  std::string region;
  std::string zone;  // the group's first AZ
  Tags tags;         // the ASG's tags
  // DescribeNodegroup's answer, or nullopt when the call failed (AccessDenied) or the group is
  // not a managed node group.
  std::optional<ManagedNodegroupInfo> managed;
  std::string node_name;  // "<asg>-asg-<n>"
};

// buildNodeFromTemplate: capacity pods 110, cpu = vCPUs, nvidia.com/gpu = GPUs, memory =
// MemoryMb * 1MiB, overridden by resource tags; allocatable = capacity (upstream's "TODO: use
// proper allocatable"); generic labels, then tag labels, then DescribeNodegroup labels (which win);
// tag taints followed by DescribeNodegroup taints. The node is Ready.
k8s::Node build_node_from_template(const TemplateInput& in);

}  // namespace eksim::autoscaling::cas
