#pragma once
// Karpenter and Auto Mode objects (karpenter.sh/v1 NodePool, karpenter.k8s.aws/v1 EC2NodeClass,
// eks.amazonaws.com/v1 NodeClass) given to the Karpenter controller of a cluster.
#include "models/cluster/cluster.hpp"
#include "sim/scenario/k8s_manifest.hpp"

namespace eksim::scenario {

// Validates a Karpenter object strictly (throws InputError); used at load time so that bad
// manifests fail before the run.
void validate_karpenter_manifest(const Manifest& manifest);
// Hands the object to the cluster's Karpenter controller. Returns false when the kind is not a
// Karpenter kind.
bool apply_karpenter_manifest(Cluster& cluster, const Manifest& manifest);

}  // namespace eksim::scenario
