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
  return "";
}

const std::vector<std::string>& deletable_kinds() {
  static const std::vector<std::string> kinds{"Pod",       "Deployment",   "ReplicaSet", "Job",       "DaemonSet",
                                              "ConfigMap", "Service",   "PodDisruptionBudget",   "Namespace", "Node",
                                              "NodePool",  "NodeClaim",    "EC2NodeClass", "NodeClass"};
  return kinds;
}

bool cluster_scoped_kind(const std::string& kind) {
  return kind == "Namespace" || kind == "Node" || kind == "NodePool" || kind == "NodeClaim" ||
         kind == "EC2NodeClass" || kind == "NodeClass";
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
