#include "models/autoscaling/cas/core/scaledown/pdb/remaining_pdbs.hpp"

#include "models/cluster/cluster.hpp"
#include "models/cluster/disruption_controller.hpp"

namespace eksim::autoscaling::cas {

std::vector<RemainingPdb> remaining_pdbs(const Cluster& cluster) {
  std::vector<RemainingPdb> out;
  const DisruptionController& budgets = *cluster.controllers.pdb;
  out.reserve(budgets.budgets().size());
  for (const auto& b : budgets.budgets()) {
    RemainingPdb r;
    r.ns = b.spec.ns;
    r.selector = b.spec.selector;
    r.disruptions_allowed = b.status.disruptions_allowed;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace eksim::autoscaling::cas
