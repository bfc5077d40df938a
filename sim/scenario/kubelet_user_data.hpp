#pragma once
// Kubelet settings from a managed node group's user data, read the way each AMI family reads it
// (terraform-aws-modules/eks templates/*_user_data.tpl decide what reaches the node):
//
// - AL2 (`AL2_*`): `bootstrap_extra_args` are bootstrap.sh's arguments, written into the user
//   data only with `enable_bootstrap_user_data = true`; its `--kubelet-extra-args '...'` go to
//   the kubelet: --max-pods (also what bootstrap.sh sizes kube-reserved memory from),
//   --node-labels, --register-with-taints. Other bootstrap.sh options and kubelet flags are
//   accepted and change nothing modelled.
// - AL2023 (`AL2023_*`): `cloudinit_pre_nodeadm` parts of type application/node.eks.aws hold a
//   NodeConfig: spec.kubelet.config.maxPods and spec.kubelet.flags (the same kubelet flags).
//   The module does not use bootstrap_extra_args for AL2023.
// - Bottlerocket (`BOTTLEROCKET_*`): `bootstrap_extra_args` is TOML appended to the user data
//   (with or without enable_bootstrap_user_data): settings.kubernetes.max-pods, node-labels and
//   node-taints. An unknown key under settings.kubernetes is an error, as Bottlerocket's settings
//   API refuses it; other settings sections are not checked.
#include "models/aws/nodegroup_spec.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {

// cloudinit_pre_nodeadm: a list of {content_type, content, filename, merge_type}.
void read_cloudinit_pre_nodeadm(const Value& v, aws::NodeGroupSpec& spec);
// bootstrap_extra_args, read for the group's ami_type (call once ami_type and
// enable_bootstrap_user_data are known).
void read_bootstrap_extra_args(const Value& v, aws::NodeGroupSpec& spec);

// Kubelet command-line flags (--max-pods, --node-labels, --register-with-taints) into `out`;
// problems are reported at `at`.
void read_kubelet_flags(const std::vector<std::string>& args, const Value& at, aws::KubeletUserData& out);
// A shell command line split into words as bash does for bootstrap.sh's arguments: blanks
// separate, '...' and "..." quote, backslash escapes outside single quotes.
std::vector<std::string> shell_words(const std::string& text);

}  // namespace eksim::scenario
