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
      {"coordination.k8s.io", "v1", "leases", "lease", "Lease", true, {}, kAll, {}},
      {"policy", "v1", "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", true, {"pdb"}, kAll, {}},
      {"", "v1", "secrets", "secret", "Secret", true, {}, kAll, {}},
      {"", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true, {"sa"}, kAll, {}},
      {"", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", true, {"pvc"}, kAll, {}},
      {"", "v1", "limitranges", "limitrange", "LimitRange", true, {"limits"}, kAll, {}},
      {"", "v1", "resourcequotas", "resourcequota", "ResourceQuota", true, {"quota"}, kAll, {}},
      {"apps", "v1", "statefulsets", "statefulset", "StatefulSet", true, {"sts"}, kAll, {"all"}},
      {"batch", "v1", "cronjobs", "cronjob", "CronJob", true, {"cj"}, kAll, {"all"}},
      {"autoscaling", "v2", "horizontalpodautoscalers", "horizontalpodautoscaler", "HorizontalPodAutoscaler", true, {"hpa"},
       kAll, {"all"}},
      {"rbac.authorization.k8s.io", "v1", "roles", "role", "Role", true, {}, kAll, {}},
      {"rbac.authorization.k8s.io", "v1", "rolebindings", "rolebinding", "RoleBinding", true, {}, kAll, {}},
      {"rbac.authorization.k8s.io", "v1", "clusterroles", "clusterrole", "ClusterRole", false, {}, kAll, {}},
      {"rbac.authorization.k8s.io", "v1", "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding", false, {}, kAll, {}},
      {"scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass", false, {"pc"}, kAll, {}},
      {"node.k8s.io", "v1", "runtimeclasses", "runtimeclass", "RuntimeClass", false, {}, kAll, {}},
      {"storage.k8s.io", "v1", "storageclasses", "storageclass", "StorageClass", false, {"sc"}, kAll, {}},
      {"networking.k8s.io", "v1", "ingresses", "ingress", "Ingress", true, {"ing"}, kAll, {}},
      {"networking.k8s.io", "v1", "ingressclasses", "ingressclass", "IngressClass", false, {}, kAll, {}},
      {"networking.k8s.io", "v1", "networkpolicies", "networkpolicy", "NetworkPolicy", true, {"netpol"}, kAll, {}},
      {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", "mutatingwebhookconfiguration",
       "MutatingWebhookConfiguration", false, {}, kAll, {"api-extensions"}},
      {"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", "validatingwebhookconfiguration",
       "ValidatingWebhookConfiguration", false, {}, kAll, {"api-extensions"}},
      {"apiregistration.k8s.io", "v1", "apiservices", "apiservice", "APIService", false, {}, kAll, {"api-extensions"}},
      {"apiextensions.k8s.io", "v1", "customresourcedefinitions", "customresourcedefinition", "CustomResourceDefinition",
       false, {"crd", "crds"}, kAll, {"api-extensions"}},
  };
  return types;
}

std::vector<ResourceType> served_types(const k8s::CustomResources& crds) {
  std::vector<ResourceType> out = resource_types();
  for (const auto& [name, crd] : crds.crds())
    for (const auto& v : crd.versions) {
      if (!v.served) continue;
      // Karpenter creates NodeClaims; eksim models only their deletion.
      const bool derived = crd.group == "karpenter.sh" && crd.kind == "NodeClaim";
      out.push_back({crd.group, v.name, crd.plural, crd.singular, crd.kind, crd.namespaced, crd.short_names,
                     derived ? kReadDelete : kAll, crd.categories});
    }
  return out;
}

std::optional<ResourceType> find_resource_type(const k8s::CustomResources& crds, const std::string& group,
                                               const std::string& version, const std::string& resource) {
  for (const auto& t : resource_types())
    if (t.group == group && t.version == version && t.resource == resource) return t;
  for (const auto& t : served_types(crds))
    if (t.group == group && t.version == version && t.resource == resource) return t;
  return std::nullopt;
}

std::optional<ResourceType> find_kind(const std::vector<ResourceType>& types, const std::string& group, const std::string& kind) {
  for (const auto& t : types)
    if (t.group == group && t.kind == kind) return t;
  return std::nullopt;
}

std::vector<std::string> group_versions(const std::vector<ResourceType>& types) {
  std::vector<std::string> out;
  for (const auto& t : types)
    if (std::find(out.begin(), out.end(), t.group_version()) == out.end()) out.push_back(t.group_version());
  return out;
}

}  // namespace eksim::serve
