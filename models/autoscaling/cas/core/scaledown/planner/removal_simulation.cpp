// The removal simulation of one node (cluster-autoscaler/simulator/cluster.go RemovalSimulator,
// findPlaceFor): every pod that must move is placed on a ready node that stays, first where the
// same pod went in the previous pass, then in node order. A node whose pods cannot all move is
// left as it was (the trial is reverted).
#include "models/autoscaling/cas/core/scaledown/planner/planner.hpp"

namespace eksim::autoscaling::cas {

bool Planner::simulate_removal(PlanningPass& pass, std::size_t i, const std::vector<const k8s::Pod*>& to_move) {
  ++planning_.simulated;
  pass.snap.fork();
  std::vector<std::pair<const k8s::Pod*, k8s::NodeId>> placed_at;
  auto destination = [&](std::size_t j) { return j != i && pass.ready[j] && !pass.removed_in_sim[j]; };
  for (const k8s::Pod* original : to_move) {
    const k8s::Pod* p = original;
    if (!original->spec.node_name.empty()) {
      pass.moved.push_back(*original);
      pass.moved.back().spec.node_name.clear();
      p = &pass.moved.back();
      pass.moved_copies.insert(p);
    }
    auto all = pass.ready_view();
    PodFitter fitter(*p, all, pass.sched);
    std::optional<std::size_t> where;
    if (auto h = pod_location_hints_.find(original); h != pod_location_hints_.end())
      if (auto at = pass.index_of.find(h->second.v); at != pass.index_of.end())
        if (destination(at->second) && fitter.fits(pass.snap.at(at->second))) where = at->second;
    for (std::size_t j = 0; !where && j < pass.size(); ++j)
      if (destination(j) && fitter.fits(pass.snap.at(j))) where = j;
    if (!where) {
      pass.snap.revert();
      return false;
    }
    pass.snap.add_pod(*where, *p);
    placed_at.emplace_back(original, pass.owners[*where]->id);
  }
  pass.snap.commit();
  for (const auto& [pod, node] : placed_at)
    if (!pass.moved_copies.count(pod)) pass.new_hints[pod] = node;
  return true;
}

}  // namespace eksim::autoscaling::cas
