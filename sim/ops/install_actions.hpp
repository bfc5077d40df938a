#pragma once
// Timeline steps that install things into a running cluster, as the labs do them one by one:
// `kubectl create -f` (refused for objects that already exist), a terraform apply that creates
// the module's helm_release add-ons, and `aws eks create-addon` / `delete-addon`. (kubectl apply
// is apply_manifests; a Deployment running Karpenter's controller installs Karpenter.)
#include <vector>

#include "models/cluster/cluster.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::ops {

// kubectl create: each object that does not exist yet is applied; one that does is refused with
// the API server's `AlreadyExists` (a Warning event, and the run goes on).
void create_manifests(Cluster& cluster, const std::vector<scenario::Manifest>& manifests);
// terraform apply's helm_release add-ons: installed now unless that release already is.
void apply_terraform_addons(Cluster& cluster, const std::vector<AddonSpec>& addons);
// eks.create-addon / eks.delete-addon, with EKS's refusals as Warning events.
void apply_eks_addon_action(Cluster& cluster, const scenario::Action& action);

}  // namespace eksim::ops
