#include "models/k8s/scheduling/plugins/inter_pod_affinity.hpp"

#include <map>

namespace eksim::k8s::plugins {

void inter_pod_affinity_pre_filter(const Pod& pod, NodeInfoView all, std::optional<bool> any_existing_anti_affinity,
                                   PreFilterState& st) {
  const auto& a = pod.spec.affinity;
  const bool any_existing_anti =
      any_existing_anti_affinity ? *any_existing_anti_affinity
                                 : std::any_of(all.begin(), all.end(),
                                               [](const NodeInfo* n) { return n->pods_with_required_anti_affinity > 0; });
  if (!any_existing_anti && a.pod_affinity_required.empty() && a.pod_anti_affinity_required.empty())
    return;
  for (const NodeInfo* n : all) {
    for (const Pod* ep : n->pods) {
      if (n->pods_with_required_anti_affinity > 0) {
        for (const auto& term : ep->spec.affinity.pod_anti_affinity_required) {
          if (!term_matches(term, ep->meta.ns, pod)) continue;
          if (const std::string* v = label(n->node, term.topology_key))
            st.existing_anti_affinity[{term.topology_key, *v}]++;
        }
      }
      if (!a.pod_affinity_required.empty()) {
        bool all_match = std::all_of(a.pod_affinity_required.begin(), a.pod_affinity_required.end(),
                                     [&](const PodAffinityTerm& t) { return term_matches(t, pod.meta.ns, *ep); });
        if (all_match)
          for (const auto& t : a.pod_affinity_required)
            if (const std::string* v = label(n->node, t.topology_key)) st.affinity[{t.topology_key, *v}]++;
      }
      for (const auto& t : a.pod_anti_affinity_required)
        if (term_matches(t, pod.meta.ns, *ep))
          if (const std::string* v = label(n->node, t.topology_key)) st.anti_affinity[{t.topology_key, *v}]++;
    }
  }
}

FilterResult inter_pod_affinity_required(const Pod& pod, const PreFilterState& st, const Node& node) {
  const PodSpec& spec = pod.spec;
  const auto& a = spec.affinity;
  if (!a.pod_affinity_required.empty()) {
    bool pods_exist = true;
    for (const auto& t : a.pod_affinity_required) {
      const std::string* v = label(node, t.topology_key);
      if (!v) return fail(FilterCode::UnschedulableAndUnresolvable, "InterPodAffinity", kReasonPodAffinity);
      auto it = st.affinity.find({t.topology_key, *v});
      if (it == st.affinity.end() || it->second <= 0) pods_exist = false;
    }
    if (!pods_exist) {
      // The first pod of a group that selects itself may go anywhere.
      bool self = st.affinity.empty() &&
                  std::all_of(a.pod_affinity_required.begin(), a.pod_affinity_required.end(),
                              [&](const PodAffinityTerm& t) { return term_matches(t, pod.meta.ns, pod); });
      if (!self) return fail(FilterCode::UnschedulableAndUnresolvable, "InterPodAffinity", kReasonPodAffinity);
    }
  }
  for (const auto& t : a.pod_anti_affinity_required) {
    const std::string* v = label(node, t.topology_key);
    if (!v) continue;
    auto it = st.anti_affinity.find({t.topology_key, *v});
    if (it != st.anti_affinity.end() && it->second > 0)
      return fail(FilterCode::Unschedulable, "InterPodAffinity", kReasonPodAntiAffinity);
  }
  if (!st.existing_anti_affinity.empty()) {
    for (const auto& [k, v] : node.meta.labels) {
      auto it = st.existing_anti_affinity.find({k, v});
      if (it != st.existing_anti_affinity.end() && it->second > 0)
        return fail(FilterCode::Unschedulable, "InterPodAffinity", kReasonExistingAntiAffinity);
    }
  }
  return {};
}

namespace {

// interpodaffinity/scoring.go: topology pair -> summed weights.
std::map<TopologyPair, std::int64_t> inter_pod_affinity_topology_scores(const Pod& pod, NodeInfoView all) {
  std::map<TopologyPair, std::int64_t> scores;
  const auto& a = pod.spec.affinity;
  bool incoming_preferred = !a.pod_affinity_preferred.empty() || !a.pod_anti_affinity_preferred.empty();
  constexpr std::int64_t kHardPodAffinityWeight = 1;  // HardPodAffinityWeight default
  auto bump = [&](const Node& n, const std::string& key, std::int64_t w) {
    if (const std::string* v = label(n, key)) scores[{key, *v}] += w;
  };
  for (const NodeInfo* ni : all) {
    if (!incoming_preferred && ni->pods_with_affinity == 0) continue;
    for (const Pod* ep : ni->pods) {
      for (const auto& w : a.pod_affinity_preferred)
        if (term_matches(w.term, pod.meta.ns, *ep)) bump(ni->node, w.term.topology_key, w.weight);
      for (const auto& w : a.pod_anti_affinity_preferred)
        if (term_matches(w.term, pod.meta.ns, *ep)) bump(ni->node, w.term.topology_key, -w.weight);
      const auto& ea = ep->spec.affinity;
      for (const auto& t : ea.pod_affinity_required)
        if (term_matches(t, ep->meta.ns, pod)) bump(ni->node, t.topology_key, kHardPodAffinityWeight);
      for (const auto& w : ea.pod_affinity_preferred)
        if (term_matches(w.term, ep->meta.ns, pod)) bump(ni->node, w.term.topology_key, w.weight);
      for (const auto& w : ea.pod_anti_affinity_preferred)
        if (term_matches(w.term, ep->meta.ns, pod)) bump(ni->node, w.term.topology_key, -w.weight);
    }
  }
  return scores;
}

}  // namespace

void inter_pod_affinity_scores(const Pod& pod, const std::vector<const NodeInfo*>& feasible, NodeInfoView all,
                               std::vector<std::int64_t>& out) {
  auto topo = inter_pod_affinity_topology_scores(pod, all);
  out.assign(feasible.size(), 0);
  if (topo.empty()) return;
  for (std::size_t i = 0; i < feasible.size(); ++i)
    for (const auto& [k, v] : feasible[i]->node.meta.labels) {
      auto it = topo.find({k, v});
      if (it != topo.end()) out[i] += it->second;
    }
  std::int64_t mn = *std::min_element(out.begin(), out.end());
  std::int64_t mx = *std::max_element(out.begin(), out.end());
  for (auto& s : out) {
    double f = 0;
    if (mx - mn > 0)
      f = static_cast<double>(kMaxNodeScore) * (static_cast<double>(s - mn) / static_cast<double>(mx - mn));
    s = static_cast<std::int64_t>(f);
  }
}

}  // namespace eksim::k8s::plugins
