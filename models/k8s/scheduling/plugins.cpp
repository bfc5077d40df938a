#include "models/k8s/scheduling/plugins.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "models/k8s/scheduling/predicates.hpp"

namespace eksim::k8s {

namespace {

// The taint the node lifecycle controller puts on cordoned nodes; a pod tolerating it may land
// on an unschedulable node (nodeunschedulable plugin).
const Taint kUnschedulableTaint{"node.kubernetes.io/unschedulable", "", kNoSchedule};

const std::string* label(const Node& node, const std::string& key) {
  auto it = node.meta.labels.find(key);
  return it == node.meta.labels.end() ? nullptr : &it->second;
}

bool in_namespaces(const PodAffinityTerm& term, const std::string& term_owner_ns, const Pod& target) {
  if (term.namespaces.empty()) return target.meta.ns == term_owner_ns;
  return std::find(term.namespaces.begin(), term.namespaces.end(), target.meta.ns) != term.namespaces.end();
}

// Does `target` match `term` declared by a pod in namespace owner_ns?
bool term_matches(const PodAffinityTerm& term, const std::string& owner_ns, const Pod& target) {
  return in_namespaces(term, owner_ns, target) && label_selector_matches(term.label_selector, target.meta.labels);
}

std::int64_t count_matching(const NodeInfo& n, const LabelSelector& sel, const std::string& ns) {
  std::int64_t c = 0;
  for (const Pod* p : n.pods)
    if (p->meta.ns == ns && label_selector_matches(sel, p->meta.labels)) ++c;
  return c;
}

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

bool ports_conflict(const std::vector<HostPort>& want, const std::vector<HostPort>& used) {
  for (const auto& hp : want)
    if (std::binary_search(used.begin(), used.end(), hp)) return true;
  return false;
}

FilterResult fail(FilterCode code, const char* plugin, std::string reason) {
  FilterResult r;
  r.code = code;
  r.plugin = plugin;
  r.reasons.push_back(std::move(reason));
  return r;
}

}  // namespace

std::string untolerated_taint_reason(const Taint& taint, const KubernetesVersion& v) {
  bool hidden = v.minor > 34 || (v.minor == 34 && (v.patch < 0 || v.patch >= 2));
  if (hidden) return "node(s) had untolerated taint(s)";
  return "node(s) had untolerated taint {" + taint.key + ": " + taint.value + "}";
}

PreFilterState pre_filter(const Pod& pod, const PodSchedulingInfo& info, NodeInfoView all,
                          std::optional<bool> any_existing_anti_affinity) {
  PreFilterState st;
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
  // InterPodAffinity.
  const auto& a = pod.spec.affinity;
  const bool any_existing_anti =
      any_existing_anti_affinity ? *any_existing_anti_affinity
                                 : std::any_of(all.begin(), all.end(),
                                               [](const NodeInfo* n) { return n->pods_with_required_anti_affinity > 0; });
  if (!any_existing_anti && a.pod_affinity_required.empty() && a.pod_anti_affinity_required.empty())
    return st;
  (void)info;
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
  return st;
}

FilterResult run_filters(const Pod& pod, const PodSchedulingInfo& info, const PreFilterState& st,
                         const NodeInfo& ni, const SchedulerOptions& options) {
  const Node& node = ni.node;
  const PodSpec& spec = pod.spec;
  // NodeUnschedulable
  if (node.unschedulable && !tolerations_tolerate_taint(spec.tolerations, kUnschedulableTaint))
    return fail(FilterCode::UnschedulableAndUnresolvable, "NodeUnschedulable", kReasonUnschedulable);
  // NodeName
  if (!spec.node_name.empty() && spec.node_name != node.meta.name)
    return fail(FilterCode::UnschedulableAndUnresolvable, "NodeName", kReasonNodeName);
  // TaintToleration
  if (auto t = find_untolerated_taint(node.taints, spec.tolerations))
    return fail(FilterCode::UnschedulableAndUnresolvable, "TaintToleration",
                untolerated_taint_reason(*t, options.version));
  // NodeAffinity
  if (!pod_matches_node_selector_and_affinity(spec, node))
    return fail(FilterCode::UnschedulableAndUnresolvable, "NodeAffinity", kReasonNodeAffinity);
  // NodePorts
  if (!info.host_ports.empty() && ports_conflict(info.host_ports, ni.used_ports))
    return fail(FilterCode::Unschedulable, "NodePorts", kReasonNodePorts);
  // NodeResourcesFit (fitsRequest): every shortage is reported.
  {
    FilterResult r;
    auto pods_allowed = node.allocatable.get(kPods);
    if (ni.pod_count() + 1 > pods_allowed) r.reasons.emplace_back(kReasonTooManyPods);
    for (const auto& [name, amount] : info.requests.items()) {
      if (amount <= 0) continue;
      if (amount > node.allocatable.get(name) - ni.requested.get(name))
        r.reasons.push_back("Insufficient " + name);
    }
    if (!r.reasons.empty()) {
      r.code = FilterCode::Unschedulable;
      r.plugin = "NodeResourcesFit";
      return r;
    }
  }
  // PodTopologySpread
  for (const auto& cs : st.spread) {
    const std::string* v = label(node, cs.constraint->topology_key);
    if (!v) return fail(FilterCode::UnschedulableAndUnresolvable, "PodTopologySpread", kReasonSpreadMissingLabel);
    auto it = cs.counts.find(*v);
    std::int64_t match = it == cs.counts.end() ? 0 : it->second;
    std::int64_t skew = match + (cs.self_match ? 1 : 0) - cs.min_match;
    if (skew > cs.constraint->max_skew)
      return fail(FilterCode::Unschedulable, "PodTopologySpread", kReasonSpread);
  }
  // InterPodAffinity
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

FilterResult fits(const Pod& pod, const PodSchedulingInfo& info, const NodeInfo& node, NodeInfoView all,
                  const SchedulerOptions& options) {
  return run_filters(pod, info, pre_filter(pod, info, all), node, options);
}

FilterResult fits(const Pod& pod, const NodeInfo& node, NodeInfoView all, const SchedulerOptions& options) {
  return fits(pod, pod_scheduling_info(pod), node, all, options);
}

// --- scoring --------------------------------------------------------------------------------

void default_normalize_score(std::vector<std::int64_t>& scores, bool reverse) {
  std::int64_t mx = 0;
  for (auto s : scores) mx = std::max(mx, s);
  if (mx == 0) {
    if (reverse) std::fill(scores.begin(), scores.end(), kMaxNodeScore);
    return;
  }
  for (auto& s : scores) {
    s = kMaxNodeScore * s / mx;
    if (reverse) s = kMaxNodeScore - s;
  }
}

namespace {

std::int64_t least_requested(std::int64_t requested, std::int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return (capacity - requested) * kMaxNodeScore / capacity;
}

}  // namespace

std::int64_t least_allocated_score(const PodSchedulingInfo& pod, const NodeInfo& n) {
  // noderesources/least_allocated.go with the default resources cpu:1, memory:1; a resource
  // the node does not have is left out of the average.
  std::int64_t total = 0, weights = 0;
  auto add = [&](std::int64_t req, std::int64_t alloc) {
    if (alloc == 0) return;
    total += least_requested(req, alloc);
    weights += 1;
  };
  add(n.non_zero_cpu + pod.non_zero_cpu, n.node.allocatable.get(kCpu));
  add(n.non_zero_memory + pod.non_zero_memory, n.node.allocatable.get(kMemory));
  return weights == 0 ? 0 : total / weights;
}

std::int64_t balanced_allocation_score(const PodSchedulingInfo& pod, const NodeInfo& n) {
  // noderesources/balanced_allocation.go: 100 * (1 - standard deviation of the requested
  // fractions), on actual requests. Pods requesting neither cpu nor memory skip the plugin.
  std::int64_t pc = pod.requests.get(kCpu), pm = pod.requests.get(kMemory);
  if (pc == 0 && pm == 0) return 0;
  std::vector<double> fr;
  auto add = [&](std::int64_t req, std::int64_t alloc) {
    if (alloc == 0) return;
    fr.push_back(std::min(1.0, static_cast<double>(req) / static_cast<double>(alloc)));
  };
  add(n.requested.get(kCpu) + pc, n.node.allocatable.get(kCpu));
  add(n.requested.get(kMemory) + pm, n.node.allocatable.get(kMemory));
  double sd = fr.size() == 2 ? std::abs((fr[0] - fr[1]) / 2) : 0.0;
  return static_cast<std::int64_t>((1 - sd) * static_cast<double>(kMaxNodeScore));
}

std::int64_t node_affinity_raw_score(const Pod& pod, const Node& node) {
  std::int64_t s = 0;
  for (const auto& p : pod.spec.affinity.node_preferred)
    if (p.weight != 0 && node_selector_term_matches(p.preference, node)) s += p.weight;
  return s;
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

// podtopologyspread/scoring.go for ScheduleAnyway constraints (system default constraints
// are not modelled: they need the Services/ReplicaSets that select the pod).
void topology_spread_scores(const Pod& pod, const std::vector<const NodeInfo*>& feasible, NodeInfoView all,
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

}  // namespace

std::vector<std::int64_t> score_nodes(const Pod& pod, const PodSchedulingInfo& info,
                                      const std::vector<const NodeInfo*>& feasible, NodeInfoView all,
                                      const SchedulerOptions& options) {
  const auto& w = options.weights;
  std::size_t n = feasible.size();
  std::vector<std::int64_t> total(n, 0), tmp(n);
  // TaintToleration: fewer untolerated PreferNoSchedule taints is better.
  for (std::size_t i = 0; i < n; ++i)
    tmp[i] = count_untolerated_prefer_no_schedule(feasible[i]->node.taints, pod.spec.tolerations);
  default_normalize_score(tmp, true);
  for (std::size_t i = 0; i < n; ++i) total[i] += w.taint_toleration * tmp[i];
  // NodeAffinity (preferred terms).
  if (!pod.spec.affinity.node_preferred.empty()) {
    for (std::size_t i = 0; i < n; ++i) tmp[i] = node_affinity_raw_score(pod, feasible[i]->node);
    default_normalize_score(tmp, false);
    for (std::size_t i = 0; i < n; ++i) total[i] += w.node_affinity * tmp[i];
  }
  for (std::size_t i = 0; i < n; ++i) {
    total[i] += w.node_resources_fit * least_allocated_score(info, *feasible[i]);
    total[i] += w.balanced_allocation * balanced_allocation_score(info, *feasible[i]);
  }
  if (!pod.spec.topology_spread_constraints.empty()) {
    topology_spread_scores(pod, feasible, all, tmp);
    for (std::size_t i = 0; i < n; ++i) total[i] += w.pod_topology_spread * tmp[i];
  }
  inter_pod_affinity_scores(pod, feasible, all, tmp);
  for (std::size_t i = 0; i < n; ++i) total[i] += w.inter_pod_affinity * tmp[i];
  return total;
}

}  // namespace eksim::k8s
