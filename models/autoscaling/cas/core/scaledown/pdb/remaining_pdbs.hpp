#pragma once
// PodDisruptionBudgets as the removal simulation tracks them (cluster-autoscaler/core/scaledown/
// pdb: RemainingPdbTracker), starting from status.disruptionsAllowed as the disruption controller
// keeps it (CA lists the budgets and reads their status; it never counts their pods).
#include <vector>

#include "models/autoscaling/cas/simulator/drainability/rules.hpp"
#include "models/cluster/cluster.hpp"

namespace eksim::autoscaling::cas {

std::vector<RemainingPdb> remaining_pdbs(const Cluster& cluster);

}  // namespace eksim::autoscaling::cas
