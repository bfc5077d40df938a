#pragma once
// Karpenter's objects in the JSON report: NodePools, NodeClasses (EC2NodeClass or Auto Mode's
// NodeClass) and NodeClaims with their status conditions, as `kubectl get -o yaml` shows them.
#include "models/cluster/cluster.hpp"
#include "sim/report/json_writer.hpp"

namespace eksim::report {

// Writes "nodePools", "nodeClasses" and "nodeClaims"; nothing when the cluster runs no Karpenter.
void write_karpenter_status(JsonWriter& w, const Cluster& c);

}  // namespace eksim::report
