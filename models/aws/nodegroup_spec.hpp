#pragma once
// An EKS managed node group as configured: the terraform-aws-modules/eks eks_managed_node_groups
// arguments, which mirror the EKS CreateNodegroup API.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/aws/aws_error.hpp"

namespace eksim::aws {

// EKS API taint: effect is NO_SCHEDULE | NO_EXECUTE | PREFER_NO_SCHEDULE; the node shows the
// Kubernetes spelling (NoSchedule, ...).
struct NodegroupTaint {
  std::string key;
  std::string value;
  std::string effect;
  bool operator==(const NodegroupTaint&) const = default;
};

// Kubernetes spelling of an EKS taint effect: NO_SCHEDULE -> NoSchedule.
std::string kubernetes_taint_effect(const std::string& eks_effect);

// What a node group's user data tells the kubelet, from whichever source its AMI family reads:
// AL2 bootstrap.sh --kubelet-extra-args, AL2023 NodeConfig spec.kubelet (config and flags),
// Bottlerocket settings.kubernetes. Only what eksim models; the rest is checked and left out.
struct KubeletUserData {
  std::optional<std::int64_t> max_pods;             // --max-pods, maxPods, max-pods
  std::map<std::string, std::string> node_labels;   // --node-labels, node-labels
  std::vector<NodegroupTaint> taints;               // --register-with-taints, node-taints; Kubernetes effect spelling
  bool operator==(const KubeletUserData&) const = default;
};

// An EKS managed node group with the terraform-aws-modules/eks eks_managed_node_groups keys.
struct NodeGroupSpec {
  std::string name;
  std::vector<std::string> instance_types{"t3.medium"};  // module default ["t3.medium"]
  std::string ami_type = "AL2023_x86_64_STANDARD";       // module default for 1.30+
  std::string capacity_type = "ON_DEMAND";               // ON_DEMAND | SPOT
  std::int64_t min_size = 1;      // module defaults: min 1, max 3, desired 1
  std::int64_t max_size = 3;
  std::int64_t desired_size = 1;
  std::vector<std::string> subnet_ids;  // empty = the cluster's subnets
  std::map<std::string, std::string> labels;
  std::vector<NodegroupTaint> taints;
  std::map<std::string, std::string> tags;
  std::vector<std::string> vpc_security_group_ids;
  std::string iam_role_name;  // empty = the module's generated "<name>-eks-node-group-..." role
  // Module default true: AmazonEKS_CNI_Policy on the node role. False leaves aws-node without
  // EC2 permissions unless the cluster gives the VPC CNI its own role (IRSA / Pod Identity).
  bool iam_role_attach_cni_policy = true;
  KubeletUserData kubelet;  // from cloudinit_pre_nodeadm, bootstrap_extra_args (sim/scenario/kubelet_user_data)
  bool enable_bootstrap_user_data = false;  // the module writes bootstrap.sh's call (AL2) itself
  std::int64_t disk_size_gib = 20;
  // enable_efa_support: EFA interfaces on the launch template (vpc.amazonaws.com/efa once the EFA
  // device plugin runs).
  bool enable_efa_support = false;
  std::optional<std::int64_t> max_unavailable;
  std::optional<std::int64_t> max_unavailable_percentage;  // module default 33 (update_config)
  // Keys the module would ignore silently (modelled on purpose under module semantics), with
  // their location for the Warning event.
  std::vector<std::string> ignored_keys;
  // User data settings that never reach the node, as the module writes the user data (AL2023's
  // bootstrap_extra_args, ...): eksim says why in a hint, one message each.
  std::vector<std::string> ignored_user_data;
};

// CreateNodegroup's check of nodegroupName, nullopt when EKS accepts the name. EKS allows 1 to 63
// characters that start with a letter or digit and go on with letters, digits, hyphens and
// underscores (EKS user guide, "Create a managed node group"). Its InvalidParameterException
// texts: "nodeGroupName can't be longer than 63 characters!" (terraform-aws-modules/
// terraform-aws-eks#1713) and "The nodegroup name parameter contains invalid characters. It
// should begin with letter or digit and can have any of the following characters: the set of
// Unicode letters, digits, hyphens and underscores." (aws/aws-cdk#22442). eksim accepts ASCII
// letters only: the name becomes the eks.amazonaws.com/nodegroup label value on every node.
std::optional<AwsError> nodegroup_name_error(std::string_view name);

}  // namespace eksim::aws
