#include "sim/serve/resource_types.hpp"

#include <algorithm>

namespace eksim::serve {

namespace {

const std::vector<std::string> kReadOnly{"get", "list", "watch"};
const std::vector<std::string> kAll{"create", "delete", "get", "list", "patch", "update", "watch"};
// Objects eksim derives (a Deployment's ReplicaSet, Karpenter's NodeClaims): deleted, not written.
const std::vector<std::string> kReadDelete{"delete", "get", "list", "watch"};

}  // namespace

const std::vector<ResourceType>& resource_types() {
  // Short names and categories as the real apiserver (and Karpenter's CRDs) publish them; kubectl
  // resolves `po`, `no`, `ev`, `ns`, `deploy`, `np`? only through them.
  static const std::vector<ResourceType> types{
      {"", "v1", "pods", "pod", "Pod", true, {"po"}, kAll, {"all"}},
      {"", "v1", "nodes", "node", "Node", false, {"no"}, kAll, {}},
      {"", "v1", "events", "event", "Event", true, {"ev"}, kReadOnly, {}},
      {"", "v1", "namespaces", "namespace", "Namespace", false, {"ns"}, kAll, {}},
      {"", "v1", "configmaps", "configmap", "ConfigMap", true, {"cm"}, kAll, {}},
      {"", "v1", "services", "service", "Service", true, {"svc"}, kAll, {"all"}},
      {"apps", "v1", "deployments", "deployment", "Deployment", true, {"deploy"}, kAll, {"all"}},
      {"apps", "v1", "replicasets", "replicaset", "ReplicaSet", true, {"rs"}, kReadDelete, {"all"}},
      {"apps", "v1", "daemonsets", "daemonset", "DaemonSet", true, {"ds"}, kAll, {"all"}},
      {"batch", "v1", "jobs", "job", "Job", true, {}, kAll, {"all"}},
      {"events.k8s.io", "v1", "events", "event", "Event", true, {"ev"}, kReadOnly, {}},
      {"coordination.k8s.io", "v1", "leases", "lease", "Lease", true, {}, kReadOnly, {}},
      {"policy", "v1", "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", true, {"pdb"}, kAll, {}},
      {"karpenter.sh", "v1", "nodepools", "nodepool", "NodePool", false, {}, kAll, {}},
      {"karpenter.sh", "v1", "nodeclaims", "nodeclaim", "NodeClaim", false, {}, kReadDelete, {}},
      {"karpenter.k8s.aws", "v1", "ec2nodeclasses", "ec2nodeclass", "EC2NodeClass", false, {"ec2nc", "ec2ncs"}, kAll, {}},
      {"eks.amazonaws.com", "v1", "nodeclasses", "nodeclass", "NodeClass", false, {}, kAll, {}},
      {"apiextensions.k8s.io", "v1", "customresourcedefinitions", "customresourcedefinition", "CustomResourceDefinition",
       false, {"crd", "crds"}, kReadOnly, {"api-extensions"}},
  };
  return types;
}

const ResourceType* find_resource_type(const std::string& group, const std::string& version, const std::string& resource) {
  for (const auto& t : resource_types())
    if (t.group == group && t.version == version && t.resource == resource) return &t;
  return nullptr;
}

std::vector<std::string> group_versions() {
  std::vector<std::string> out;
  for (const auto& t : resource_types())
    if (std::find(out.begin(), out.end(), t.group_version()) == out.end()) out.push_back(t.group_version());
  return out;
}

}  // namespace eksim::serve
