#include "models/k8s/scheduling/plugins/pod_topology_spread.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace eksim::k8s::plugins {

namespace {

bool has_all_keys(const Node& node, const std::vector<const TopologySpreadConstraint*>& cs) {
  for (const auto* c : cs)
    if (!label(node, c->topology_key)) return false;
  return true;
}

std::vector<const TopologySpreadConstraint*> constraints_of(const Pod& pod, bool hard) {
  std::vector<const TopologySpreadConstraint*> out;
  for (const auto& c : pod.spec.topology_spread_constraints) {
    bool is_hard = c.when_unsatisfiable != "ScheduleAnyway";
    if (is_hard == hard) out.push_back(&c);
  }
  return out;
}

}  // namespace

void pod_topology_spread_pre_filter(const Pod& pod, NodeInfoView all, PreFilterState& st) {
  // PodTopologySpread (DoNotSchedule constraints).
  auto hard = constraints_of(pod, true);
  for (const auto* c : hard) {
    SpreadConstraintState cs;
    cs.constraint = c;
    cs.self_match = label_selector_matches(c->label_selector, pod.meta.labels);
    st.spread.push_back(std::move(cs));
  }
  if (!hard.empty()) {
    for (const NodeInfo* n : all) {
      // nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore (the defaults).
      if (!pod_matches_node_selector_and_affinity(pod.spec, n->node)) continue;
      if (!has_all_keys(n->node, hard)) continue;
      for (auto& cs : st.spread)
        cs.counts[*label(n->node, cs.constraint->topology_key)] +=
            count_matching(*n, cs.constraint->label_selector, pod.meta.ns);
    }
    for (auto& cs : st.spread) {
      std::int64_t mn = std::numeric_limits<std::int64_t>::max();
      for (const auto& [v, c] : cs.counts) mn = std::min(mn, c);
      if (cs.counts.empty()) mn = 0;
      if (cs.constraint->min_domains && static_cast<std::int64_t>(cs.counts.size()) < *cs.constraint->min_domains)
        mn = 0;
      cs.min_match = mn;
    }
  }
}

void pod_topology_spread_scores(const Pod& pod, const std::vector<const NodeInfo*>& feasible, NodeInfoView all,
                                std::vector<std::int64_t>& out) {
  out.assign(feasible.size(), 0);
  auto soft = constraints_of(pod, false);
  if (soft.empty()) return;
  std::vector<bool> ignored(feasible.size());
  std::vector<std::map<std::string, std::int64_t>> counts(soft.size());
  std::vector<std::set<std::string>> sizes(soft.size());
  std::size_t n_ignored = 0;
  for (std::size_t i = 0; i < feasible.size(); ++i) {
    if (!has_all_keys(feasible[i]->node, soft)) { ignored[i] = true; ++n_ignored; continue; }
    for (std::size_t c = 0; c < soft.size(); ++c) {
      const std::string& v = *label(feasible[i]->node, soft[c]->topology_key);
      counts[c].emplace(v, 0);
      sizes[c].insert(v);
    }
  }
  for (const NodeInfo* n : all) {
    if (!pod_matches_node_selector_and_affinity(pod.spec, n->node) || !has_all_keys(n->node, soft)) continue;
    for (std::size_t c = 0; c < soft.size(); ++c) {
      if (soft[c]->topology_key == kLabelHostname) continue;
      auto it = counts[c].find(*label(n->node, soft[c]->topology_key));
      if (it != counts[c].end()) it->second += count_matching(*n, soft[c]->label_selector, pod.meta.ns);
    }
  }
  std::vector<double> weight(soft.size());
  for (std::size_t c = 0; c < soft.size(); ++c) {
    std::size_t sz = soft[c]->topology_key == kLabelHostname ? feasible.size() - n_ignored : sizes[c].size();
    weight[c] = std::log(static_cast<double>(sz + 2));
  }
  std::int64_t mn = std::numeric_limits<std::int64_t>::max(), mx = 0;
  for (std::size_t i = 0; i < feasible.size(); ++i) {
    if (ignored[i]) continue;
    double s = 0;
    for (std::size_t c = 0; c < soft.size(); ++c) {
      std::int64_t cnt = soft[c]->topology_key == kLabelHostname
                             ? count_matching(*feasible[i], soft[c]->label_selector, pod.meta.ns)
                             : counts[c][*label(feasible[i]->node, soft[c]->topology_key)];
      s += static_cast<double>(cnt) * weight[c] + static_cast<double>(soft[c]->max_skew - 1);
    }
    out[i] = static_cast<std::int64_t>(std::round(s));
    mn = std::min(mn, out[i]);
    mx = std::max(mx, out[i]);
  }
  for (std::size_t i = 0; i < feasible.size(); ++i) {
    if (ignored[i]) { out[i] = 0; continue; }
    out[i] = mx == 0 ? kMaxNodeScore : kMaxNodeScore * (mx + mn - out[i]) / mx;
  }
}

}  // namespace eksim::k8s::plugins
