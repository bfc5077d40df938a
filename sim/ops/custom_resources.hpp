#pragma once
// CustomResourceDefinitions and the objects the API server keeps whole, applied to a running
// cluster: the registry in models/k8s/api/custom_resources.hpp decides which custom kinds are
// served; Karpenter's kinds go to Karpenter when it runs, everything else is stored as sent.
#include <optional>
#include <string>

#include "models/cluster/cluster.hpp"
#include "sim/ops/kubectl_operations.hpp"
#include "sim/scenario/k8s_manifest.hpp"

namespace eksim::ops {

// kubectl apply of a CRD: created, or its definition replaced.
void apply_crd(Cluster& c, const k8s::CustomResourceDefinition& crd);
// A manifest no model takes (custom kinds whose controller is not running, ServiceAccounts,
// RBAC, ...): kept as sent, in its namespace (or none, for a cluster-scoped kind).
void keep_object(Cluster& c, const scenario::Manifest& m);
// kubectl delete of a CRD (its objects go with it; Karpenter's modelled ones through Karpenter)
// or of a kept object; nullopt when `kind` is neither.
std::optional<std::optional<KubectlError>> delete_kept(Cluster& c, const std::string& kind, const std::string& ns,
                                                       const std::string& name);

}  // namespace eksim::ops
