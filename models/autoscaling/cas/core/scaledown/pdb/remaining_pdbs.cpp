// PodDisruptionBudgets as the removal simulation tracks them (cluster-autoscaler/core/scaledown/
// pdb: RemainingPdbTracker), with status.disruptionsAllowed as the disruption controller
// computes it.
#include "models/autoscaling/cluster_autoscaler.hpp"
#include "models/cluster/nodegroup_update.hpp"

namespace eksim::autoscaling {

std::vector<cas::RemainingPdb> ClusterAutoscaler::remaining_pdbs() const {
  std::vector<cas::RemainingPdb> out;
  const auto* updater = dynamic_cast<const NodegroupUpdater*>(c_.find_controller("eks-nodegroup-update"));
  if (!updater) return out;  // no PodDisruptionBudget was ever applied
  for (const auto& pdb : const_cast<NodegroupUpdater*>(updater)->pod_disruption_budgets()) {
    cas::RemainingPdb r;
    r.ns = pdb.ns;
    r.selector = pdb.selector;
    // status.disruptionsAllowed as the disruption controller computes it.
    std::int64_t healthy = 0, expected = 0;
    for (k8s::PodId id : node_infos_.live_pods()) {
      const k8s::PodRecord& rec = c_.api.pod(id);
      if (rec.deleted || !r.matches(rec.pod)) continue;
      if (rec.pod.status.phase == k8s::PodPhase::Succeeded || rec.pod.status.phase == k8s::PodPhase::Failed) continue;
      ++expected;
      if (!rec.terminating && rec.pod.status.phase == k8s::PodPhase::Running) ++healthy;
    }
    r.disruptions_allowed = disruptions_allowed(pdb, healthy, expected);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace eksim::autoscaling
