#pragma once
// Scenario content applied to a running Cluster: controllers chosen by the spec, manifests
// (kubectl apply) and the operator's timeline actions. A refused action is recorded as a Warning
// event with the real service's error text, and the simulation goes on (CONTRACT.md).
#include <vector>

#include "models/cluster/cluster.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::scenario {

// Creates the Kubernetes controllers, add-ons and the configured autoscaler.
void install_controllers(Cluster& cluster);
void apply_manifests(Cluster& cluster, const std::vector<Manifest>& manifests);
void apply_action(Cluster& cluster, const Action& action);

}  // namespace eksim::scenario
