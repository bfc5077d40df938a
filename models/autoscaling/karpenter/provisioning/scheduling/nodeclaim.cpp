// The planned NodeClaim (provisioning/scheduling/nodeclaim.go): NodeClaim.Add, which narrows its
// requirements and instance types to take one more pod, and the instance type filter with
// upstream's failure reasons.
#include "models/autoscaling/karpenter/provisioning/scheduling/nodeclaim.hpp"

namespace eksim::autoscaling::karpenter {

namespace {

struct FilterResults {
  std::vector<const InstanceTypeInfo*> remaining;
  bool requirements_met = false, fits = false, has_offering = false;
  bool requirements_and_fits = false, requirements_and_offering = false, fits_and_offering = false;

  // filterResults.FailureReason, word for word.
  std::string failure_reason() const {
    if (!remaining.empty()) return "";
    if (!requirements_met && !fits && !has_offering)
      return "no instance type met the scheduling requirements or had enough resources or had a required offering";
    if (!requirements_met && !fits) return "no instance type met the scheduling requirements or had enough resources";
    if (!requirements_met && !has_offering) return "no instance type met the scheduling requirements or had a required offering";
    if (!fits && !has_offering) return "no instance type had enough resources or had a required offering";
    if (!requirements_met) return "no instance type met all requirements";
    if (!fits) return "no instance type has enough resources";
    if (!has_offering) return "no instance type has the required offering";
    if (requirements_and_fits)
      return "no instance type which met the scheduling requirements and had enough resources, had a required offering";
    if (fits_and_offering)
      return "no instance type which had enough resources and the required offering met the scheduling requirements";
    if (requirements_and_offering)
      return "no instance type which met the scheduling requirements and the required offering had the required resources";
    if (!min_values_key.empty()) return "minValues requirement is not met for " + min_values_key;
    return "no instance type met the requirements/resources/offering tuple";
  }
  std::string min_values_key;  // a requirement whose minValues the remaining types do not reach
};

// IncompatibleReqAcrossInstanceTypes: over the cheapest 100 remaining types (what the launch path
// gets), every requirement with minValues needs that many distinct values; the first key (by
// name) that falls short, or "".
std::string min_values_violation(const Requirements& reqs, const std::vector<const InstanceTypeInfo*>& types) {
  constexpr std::size_t kMaxInstanceTypes = 100;  // scheduling.MaxInstanceTypes
  for (const auto& [key, r] : reqs.all()) {
    if (!r.min_values()) continue;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < types.size() && i < kMaxInstanceTypes; ++i) {
      const Requirement tr = types[i]->requirements.get(key);
      if (!tr.complement()) seen.insert(tr.values().begin(), tr.values().end());
      if (static_cast<std::int64_t>(seen.size()) >= *r.min_values()) break;
    }
    if (static_cast<std::int64_t>(seen.size()) < *r.min_values()) return key;
  }
  return "";
}

FilterResults filter_types(const std::vector<const InstanceTypeInfo*>& types, const Requirements& reqs,
                           const k8s::ResourceList& requests, bool check_requirements, bool min_values) {
  FilterResults r;
  for (const InstanceTypeInfo* it : types) {
    bool compat = !check_requirements || it->requirements.intersects(reqs).empty();
    bool fit = fits_in(requests, it->allocatable);
    bool offering = !check_requirements || it->has_offering(reqs);
    r.requirements_met |= compat;
    r.fits |= fit;
    r.has_offering |= offering;
    r.requirements_and_fits |= compat && fit && !offering;
    r.requirements_and_offering |= compat && offering && !fit;
    r.fits_and_offering |= fit && offering && !compat;
    if (compat && fit && offering) r.remaining.push_back(it);
  }
  if (min_values) {
    // If minValues is not met the remaining types cannot launch (filterInstanceTypesByRequirements).
    r.min_values_key = min_values_violation(reqs, r.remaining);
    if (!r.min_values_key.empty()) r.remaining.clear();
  }
  return r;
}

// Takes the types that `remaining` no longer has (it keeps the order of `options`) out of the
// bound; false when that may have lowered it.
bool drop_from_bound(AllocatableBound& bound, const std::vector<const InstanceTypeInfo*>& options,
                     const std::vector<const InstanceTypeInfo*>& remaining) {
  std::size_t j = 0;
  bool holds = true;
  for (const InstanceTypeInfo* it : options) {
    if (j < remaining.size() && remaining[j] == it) {
      ++j;
      continue;
    }
    holds = bound.drop(*it) && holds;
  }
  return holds;
}

// Every planned NodeClaim is its own hostname domain.
std::string claim_host(const PlannedNodeClaim& nc) { return "nodeclaim-" + std::to_string(nc.serial); }

}  // namespace

// NodeClaim.Add. Returns "" on success (the claim is updated), else the reason.
std::string add_to_claim(PlannedNodeClaim& nc, const k8s::Pod& pod, const k8s::ResourceList& pod_requests,
                         const std::set<std::string>& well_known, bool quick_reject, Topology& topo) {
  k8s::ResourceList requests = nc.requests;
  requests += pod_requests;
  if (quick_reject) {
    if (nc.bound_stale) {
      nc.bound = AllocatableBound::over(nc.options);
      nc.bound_stale = false;
    }
    if (!fits_in(requests, nc.bound.max)) return "no capacity";
  }
  std::string err = tolerates(nc.tmpl->taints, pod.spec.tolerations);
  if (!err.empty()) return err;
  Requirements pod_reqs = Requirements::from_pod(pod);
  const bool topology = topo.constrains(pod);
  Requirements merged;
  const Requirements* reqs = &nc.requirements;
  if (!pod_reqs.empty() || topology) {
    if (!pod_reqs.empty()) {
      err = nc.requirements.compatible(pod_reqs, well_known);
      if (!err.empty()) return "incompatible requirements, " + err;
    }
    merged = nc.requirements;
    merged.add(pod_reqs);
    if (topology) {
      err = topo.narrow_claim(pod, merged, claim_host(nc));
      if (!err.empty()) return err;
    }
    reqs = &merged;
  }
  const bool narrowed = !pod_reqs.empty() || topology;
  // minValues only comes from NodePool requirements.
  FilterResults f = filter_types(nc.options, *reqs, requests, narrowed, !nc.tmpl->pool->min_values.empty());
  if (f.remaining.empty()) {
    k8s::ResourceList cumulative = nc.tmpl->daemon_overhead;
    cumulative += pod_requests;
    return "no instance type satisfied resources " + resources_string(cumulative) + " and requirements " + reqs->str() +
           " (" + f.failure_reason() + ")";
  }
  nc.pods.push_back(&pod);
  if (f.remaining.size() != nc.options.size() && !nc.bound_stale)
    nc.bound_stale = !drop_from_bound(nc.bound, nc.options, f.remaining);
  nc.options = std::move(f.remaining);
  nc.requests = std::move(requests);
  if (narrowed) nc.requirements = std::move(merged);
  if (topo.active()) topo.record_claim(pod, nc.requirements, claim_host(nc));
  return "";
}

}  // namespace eksim::autoscaling::karpenter
