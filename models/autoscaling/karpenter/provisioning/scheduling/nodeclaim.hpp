#pragma once
// NodeClaim.Add for the scheduler's simulation (nodeclaim.cpp): internal to provisioning/scheduling.
#include <set>
#include <string>

#include "models/autoscaling/karpenter/provisioning/scheduling/topology.hpp"

namespace eksim::autoscaling::karpenter {

// Adds the pod to the planned claim. Returns "" on success (the claim is updated), else the
// reason. quick_reject: first test the claim's allocatable bound (a claim already planned).
std::string add_to_claim(PlannedNodeClaim& nc, const k8s::Pod& pod, const k8s::ResourceList& pod_requests,
                         const std::set<std::string>& well_known, bool quick_reject, Topology& topo);

}  // namespace eksim::autoscaling::karpenter
