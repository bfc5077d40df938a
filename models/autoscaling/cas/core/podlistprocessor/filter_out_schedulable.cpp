// filterOutSchedulable (cluster-autoscaler/core/podlistprocessor/filter_out_schedulable.go):
// pods that fit on an existing node or on a node already being created are left to the
// scheduler. The snapshot holds the usable nodes with their pods (shared with the informers'
// cache) and each group's upcoming nodes as template copies.
#include <algorithm>

#include "models/autoscaling/cas/core/scaleup/orchestrator.hpp"

namespace eksim::autoscaling::cas {

void Orchestrator::add_upcoming_nodes(ScaleUpPass& pass) {
  for (NodeGroup* g : ctx_.cloud_provider.node_groups()) {
    std::int64_t target = g->target_size().value_or(0);
    std::int64_t upcoming = std::max<std::int64_t>(
        0, target - cluster_state_.registered_usable(*g, pass.nodes) - deletions_.deleting_in(g->id()));
    pass.total_nodes += target;
    if (upcoming <= 0 || !pass.templates[g->id()]) continue;
    k8s::Node copy = *pass.templates[g->id()];
    copy.meta.name += "-upcoming";
    // One NodeInfo per group; each upcoming node shares it until written.
    pass.upcoming_protos.push_back(k8s::make_node_info(copy));
    for (std::int64_t i = 0; i < upcoming; ++i) pass.snap.add_shared(&pass.upcoming_protos.back());
  }
  for (const auto& ln : pass.nodes)
    if (!ln.group) ++pass.total_nodes;
}

void Orchestrator::filter_out_schedulable(ScaleUpPass& pass, const std::vector<k8s::PodId>& pending) {
  SnapshotFork& snap = pass.snap;
  snap.reserve(pass.nodes.size());
  for (const auto& ln : pass.nodes)
    if (ln.usable) snap.add_shared(&ctx_.node_infos.get(ln.id));
  add_upcoming_nodes(pass);
  FirstFitMemo first_fit(snap.view());
  for (k8s::PodId id : pending) {
    const k8s::PodRecord& rec = ctx_.cluster.api.pod(id);
    const k8s::Pod& pod = rec.pod;
    std::size_t j = first_fit.start(pod, rec.template_id);
    // A pod like one that fit nowhere skips the search (and its PreFilter) altogether, as
    // upstream's SimilarPodsScheduling does.
    if (j < snap.size()) {
      PodFitter fitter(pod, snap.view(), pass.sched, snap.any_required_anti_affinity());
      while (j < snap.size() && !fitter.fits(snap.at(j))) ++j;
    }
    first_fit.record(pod, rec.template_id, j);
    if (j < snap.size()) snap.add_pod(j, pod);
    else pass.remaining.push_back(id);
  }
}

}  // namespace eksim::autoscaling::cas
