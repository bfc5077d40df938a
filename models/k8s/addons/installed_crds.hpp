#pragma once
// The CustomResourceDefinitions a cluster has without anyone creating them: EKS's own (every
// cluster), EKS Auto Mode's, and those a chart installs with its release (Karpenter's three, the
// GPU Operator's with Node Feature Discovery's). Which ones: lab 001's `kubectl get crd` of a new
// EKS cluster (December 2025) and the charts' crds/ directories.
#include <string>
#include <vector>

#include "models/k8s/api/custom_resources.hpp"

namespace eksim::k8s {

std::vector<CustomResourceDefinition> eks_crds();
std::vector<CustomResourceDefinition> auto_mode_crds();
std::vector<CustomResourceDefinition> karpenter_crds();
std::vector<CustomResourceDefinition> gpu_operator_crds();

// Creates each CRD of the list not there yet (helm install skips existing CRDs), at `now`.
void install_crds(CustomResources& registry, const std::vector<CustomResourceDefinition>& crds, engine::SimTime now);

}  // namespace eksim::k8s
