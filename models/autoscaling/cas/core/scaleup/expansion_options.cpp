// Step 2 of a scale-up (orchestrator.go computeExpansionOption, skippedreasons.go): per node
// group, skipped (back-off, max size) or tested: its template once per pod equivalence group
// (schedulablePodGroups), then the binpacking estimator places the pods the template fits onto
// new template nodes, first fit, up to the group's headroom (resource/limits.hpp).
#include <deque>

#include "models/autoscaling/cas/core/scaleup/orchestrator.hpp"
#include "models/autoscaling/cas/core/scaleup/resource/limits.hpp"

namespace eksim::autoscaling::cas {

void Orchestrator::compute_expansion_options(ScaleUpPass& pass) {
  // Equivalence groups: a template is tested once per group of pods that schedule alike; every
  // pod of a group gets the same answers.
  pass.equivalence = build_pod_equivalence_groups(ctx_.cluster.api, pass.remaining, &pass.group_of);
  pass.reasons.resize(pass.equivalence.size());
  for (NodeGroup* g : ctx_.cloud_provider.node_groups()) {
    std::optional<std::int64_t> target = g->target_size();
    if (!target || !pass.templates[g->id()]) continue;
    pass.current[g->id()] = *target;
    if (const char* skipped = skipped_reason(*g, *target, pass.now)) {
      for (auto& r : pass.reasons) r[skipped]++;
      continue;
    }
    const k8s::Node& tmpl = *pass.templates[g->id()];
    std::vector<bool>& fits = pass.fitting_by_group[g->id()] = fitting_equivalence_groups(pass, tmpl);
    std::vector<std::size_t> fitting;  // indexes into remaining
    for (std::size_t k = 0; k < pass.remaining.size(); ++k)
      if (fits[pass.group_of[k]]) fitting.push_back(k);
    if (!fitting.empty()) estimate(pass, *g, tmpl, *target, fitting);
  }
}

const char* Orchestrator::skipped_reason(const NodeGroup& group, std::int64_t target, engine::SimTime now) const {
  if (cluster_state_.backoff().is_backed_off(group.id(), now)) return "in backoff after failed scale-up";
  if (target >= group.max_size()) return "max node group size reached";
  return nullptr;
}

std::vector<bool> Orchestrator::fitting_equivalence_groups(ScaleUpPass& pass, const k8s::Node& tmpl) {
  k8s::NodeInfo probe = k8s::make_node_info(tmpl);
  const std::vector<const k8s::NodeInfo*>& all = pass.snap.view();
  std::vector<bool> fits;
  fits.reserve(pass.equivalence.size());
  for (std::size_t e = 0; e < pass.equivalence.size(); ++e) {
    const k8s::Pod& rep = ctx_.cluster.api.pod(pass.equivalence[e].pods.front()).pod;
    k8s::FilterResult result = PodFitter(rep, all, pass.sched, pass.snap.any_required_anti_affinity()).check(probe);
    fits.push_back(result.ok());
    for (const auto& reason : result.reasons) pass.reasons[e][reason]++;
  }
  return fits;
}

void Orchestrator::estimate(ScaleUpPass& pass, const NodeGroup& group, const k8s::Node& tmpl, std::int64_t target,
                            const std::vector<std::size_t>& fitting) {
  const CasOptions& o = ctx_.options;
  std::int64_t headroom =
      scale_up_headroom(group.max_size(), target, pass.total_nodes, o.max_nodes_total, o.max_nodes_per_scale_up);
  const std::vector<const k8s::NodeInfo*>& all = pass.snap.view();
  std::deque<k8s::NodeInfo> fresh;
  ExpansionOption opt;
  opt.group_id = group.id();
  opt.template_node = tmpl;
  opt.node_price_per_hour = group.node_price_per_hour();
  FirstFitMemo first_fit(all);
  std::vector<bool> takes(pass.equivalence.size(), false);
  for (std::size_t k : fitting) {
    const k8s::PodRecord& rec = ctx_.cluster.api.pod(pass.remaining[k]);
    const k8s::Pod* pod = &rec.pod;
    bool placed = false;
    std::size_t j = first_fit.start(*pod, rec.template_id);
    if (j < fresh.size()) {
      PodFitter fitter(*pod, all, pass.sched, pass.snap.any_required_anti_affinity());
      while (j < fresh.size() && !fitter.fits(fresh[j])) ++j;
    }
    if (j < fresh.size()) {
      k8s::add_pod(fresh[j], *pod);
      placed = true;
    }
    first_fit.record(*pod, rec.template_id, j);
    if (!placed && static_cast<std::int64_t>(fresh.size()) < headroom) {
      k8s::Node copy = tmpl;
      copy.meta.name += "-new-" + std::to_string(fresh.size());
      fresh.push_back(k8s::make_node_info(copy));
      k8s::add_pod(fresh.back(), *pod);
      placed = true;
    }
    if (placed) {
      opt.pods.push_back(pod);
      opt.pod_ids.push_back(pass.remaining[k]);
      takes[pass.group_of[k]] = true;
    }
  }
  opt.node_count = static_cast<std::int64_t>(fresh.size());
  if (opt.node_count == 0) return;
  pass.options.push_back(std::move(opt));
  pass.option_groups.push_back(std::move(takes));
}

}  // namespace eksim::autoscaling::cas
