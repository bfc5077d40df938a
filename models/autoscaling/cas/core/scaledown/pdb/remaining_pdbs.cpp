// PodDisruptionBudgets as the removal simulation tracks them (cluster-autoscaler/core/scaledown/
// pdb: RemainingPdbTracker), starting from status.disruptionsAllowed as the disruption controller
// keeps it (CA lists the budgets and reads their status; it never counts their pods).
#include "models/autoscaling/cluster_autoscaler.hpp"
#include "models/cluster/disruption_controller.hpp"

namespace eksim::autoscaling {

std::vector<cas::RemainingPdb> ClusterAutoscaler::remaining_pdbs() const {
  std::vector<cas::RemainingPdb> out;
  const DisruptionController* budgets = find_disruption_controller(c_);
  if (!budgets) return out;  // no PodDisruptionBudget was ever applied
  out.reserve(budgets->budgets().size());
  for (const auto& b : budgets->budgets()) {
    cas::RemainingPdb r;
    r.ns = b.spec.ns;
    r.selector = b.spec.selector;
    r.disruptions_allowed = b.status.disruptions_allowed;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace eksim::autoscaling
