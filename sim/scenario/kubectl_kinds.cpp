#include "sim/scenario/kubectl_kinds.hpp"

#include <algorithm>
#include <cctype>

namespace eksim::scenario {

// The API group a kind's resource is qualified with in the API server's messages
// (`deployments.apps "web" not found`); empty for the core group.
std::string api_group_of_kind(const std::string& kind) {
  if (kind == "Deployment" || kind == "ReplicaSet" || kind == "DaemonSet" || kind == "StatefulSet") return "apps";
  if (kind == "Job" || kind == "CronJob") return "batch";
  if (kind == "PodDisruptionBudget") return "policy";
  if (kind == "NodePool" || kind == "NodeClaim") return "karpenter.sh";
  if (kind == "EC2NodeClass") return "karpenter.k8s.aws";
  if (kind == "NodeClass") return "eks.amazonaws.com";
  if (kind == "Role" || kind == "ClusterRole" || kind == "RoleBinding" || kind == "ClusterRoleBinding")
    return "rbac.authorization.k8s.io";
  if (kind == "PriorityClass") return "scheduling.k8s.io";
  if (kind == "Lease") return "coordination.k8s.io";
  if (kind == "CustomResourceDefinition") return "apiextensions.k8s.io";
  if (kind == "MutatingWebhookConfiguration" || kind == "ValidatingWebhookConfiguration") return "admissionregistration.k8s.io";
  return "";
}

const std::vector<std::string>& deletable_kinds() {
  static const std::vector<std::string> kinds{"Pod",       "Deployment",   "ReplicaSet", "Job",       "DaemonSet",
                                              "ConfigMap", "Service",   "PodDisruptionBudget",   "Namespace", "Node",
                                              "NodePool",  "NodeClaim",    "EC2NodeClass", "NodeClass"};
  return kinds;
}

bool cluster_scoped_kind(const std::string& kind) {
  static const std::vector<std::string> kinds{
      "Namespace", "Node", "NodePool", "NodeClaim", "EC2NodeClass", "NodeClass", "PriorityClass", "RuntimeClass",
      "StorageClass", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "MutatingWebhookConfiguration",
      "ValidatingWebhookConfiguration", "APIService", "IngressClass", "PersistentVolume"};
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

std::string resource_name_of_kind(const std::string& kind) {
  std::string lower = kind;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (lower.empty()) return lower;
  if (lower.back() == 's') return lower + "es";  // EC2NodeClass -> ec2nodeclasses
  if (lower.back() == 'y') return lower.substr(0, lower.size() - 1) + "ies";  // PodDisruptionPolicy style
  return lower + "s";
}

}  // namespace eksim::scenario
