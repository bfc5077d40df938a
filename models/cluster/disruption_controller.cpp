// The disruption controller's PodDisruptionBudget status, kept from the API server's pod
// notifications: a pod's contribution is recomputed only when that pod changes, so reading a
// budget costs nothing however many pods the cluster runs.
#include "models/cluster/disruption_controller.hpp"

#include <algorithm>
#include <memory>

#include "models/cluster/cluster.hpp"
#include "models/k8s/scheduling/predicates.hpp"

namespace eksim {

std::int64_t disruptions_allowed(const PodDisruptionBudget& pdb, std::int64_t healthy, std::int64_t expected) {
  std::int64_t allowed = 0;
  if (pdb.min_available) allowed = healthy - *pdb.min_available;
  else if (pdb.max_unavailable) allowed = *pdb.max_unavailable - (expected - healthy);
  else allowed = healthy;  // the manifest reader requires one of the two
  return std::max<std::int64_t>(0, allowed);
}

DisruptionController::DisruptionController(k8s::ApiServer& api) : api_(api) {
  api_.on_pod_added.push_back([this](k8s::PodId p) { track(p); });
  api_.on_pod_phase.push_back([this](k8s::PodId p) { recount(p); });
  api_.on_pod_terminating.push_back([this](k8s::PodId p) { recount(p); });
  api_.on_pod_deleted.push_back([this](k8s::PodId p) { recount(p); });
}

bool DisruptionController::selects(const PodDisruptionBudget& pdb, const k8s::Pod& pod) {
  const std::string& ns = pod.meta.ns.empty() ? std::string("default") : pod.meta.ns;
  return pdb.ns == ns && k8s::label_selector_matches(pdb.selector, pod.meta.labels);
}

void DisruptionController::refresh_status(Budget& b) {
  PdbStatus& s = b.status;
  s.disruptions_allowed = disruptions_allowed(b.spec, s.current_healthy, s.expected_pods);
  // desiredHealthy as the status shows it: minAvailable, or expectedPods - maxUnavailable.
  if (b.spec.min_available) s.desired_healthy = *b.spec.min_available;
  else if (b.spec.max_unavailable) s.desired_healthy = std::max<std::int64_t>(0, s.expected_pods - *b.spec.max_unavailable);
  else s.desired_healthy = 0;
}

void DisruptionController::track(k8s::PodId id) {
  const k8s::PodRecord& rec = api_.pod(id);
  if (rec.deleted) return;
  Counted c;
  for (std::uint32_t i = 0; i < budgets_.size(); ++i)
    if (selects(budgets_[i].spec, rec.pod)) c.budgets.push_back(i);
  if (c.budgets.empty()) return;
  counted_.emplace(id.v, std::move(c));
  recount(id);
}

void DisruptionController::recount(k8s::PodId id) {
  auto it = counted_.find(id.v);
  if (it == counted_.end()) return;
  const k8s::PodRecord& rec = api_.pod(id);
  const k8s::PodPhase phase = rec.pod.status.phase;
  const bool expected = !rec.deleted && phase != k8s::PodPhase::Succeeded && phase != k8s::PodPhase::Failed;
  const bool healthy = expected && !rec.terminating && phase == k8s::PodPhase::Running;
  Counted& c = it->second;
  if (expected != c.expected || healthy != c.healthy) {
    const std::int64_t de = std::int64_t{expected} - std::int64_t{c.expected};
    const std::int64_t dh = std::int64_t{healthy} - std::int64_t{c.healthy};
    for (std::uint32_t i : c.budgets) {
      budgets_[i].status.expected_pods += de;
      budgets_[i].status.current_healthy += dh;
      refresh_status(budgets_[i]);
    }
    c.expected = expected;
    c.healthy = healthy;
  }
  if (rec.deleted) counted_.erase(it);
}

void DisruptionController::apply(PodDisruptionBudget pdb) {
  auto same = [&](const Budget& b) { return b.spec.ns == pdb.ns && b.spec.name == pdb.name; };
  auto it = std::find_if(budgets_.begin(), budgets_.end(), same);
  // A replaced budget goes to the end, as the list order was (create or replace = append).
  if (it != budgets_.end()) budgets_.erase(it);
  budgets_.push_back(Budget{std::move(pdb), {}});
  count_all();
}

bool DisruptionController::remove(const std::string& ns, const std::string& name) {
  auto it = std::find_if(budgets_.begin(), budgets_.end(),
                         [&](const Budget& b) { return b.spec.ns == ns && b.spec.name == name; });
  if (it == budgets_.end()) return false;
  budgets_.erase(it);
  count_all();
  return true;
}

// Budgets change rarely: count every live pod again against the new list.
void DisruptionController::count_all() {
  counted_.clear();
  for (Budget& b : budgets_) b.status = {};
  for (const auto& [key, id] : api_.live_pods()) track(id);
  for (Budget& b : budgets_) refresh_status(b);
}

bool DisruptionController::eviction_allowed(const k8s::Pod& pod) const {
  for (const Budget& b : budgets_)
    if (selects(b.spec, pod) && b.status.disruptions_allowed <= 0) return false;
  return true;
}

}  // namespace eksim
