#include "models/k8s/scheduling/schedule.hpp"

#include <algorithm>
#include <cassert>
#include <climits>
#include <iterator>
#include <optional>
#include <set>

#include "models/k8s/scheduling/predicates.hpp"

namespace eksim::k8s {

std::string format_reason_histogram(const std::map<std::string, std::int64_t>& histogram) {
  std::vector<std::string> entries;
  entries.reserve(histogram.size());
  for (const auto& [reason, count] : histogram) entries.push_back(std::to_string(count) + " " + reason);
  std::sort(entries.begin(), entries.end());  // as strings: "10 ..." sorts before "2 ..."
  std::string out;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (i) out += ", ";
    out += entries[i];
  }
  return out;
}

std::string failed_scheduling_message(std::size_t num_nodes, const std::map<std::string, std::int64_t>& histogram,
                                      std::string_view post_filter) {
  std::string msg = "0/" + std::to_string(num_nodes) + " nodes are available";
  msg += ":";
  if (!histogram.empty()) msg += " " + format_reason_histogram(histogram) + ".";
  if (!post_filter.empty()) {
    msg += " ";
    msg += post_filter;
    msg += ".";
  }
  return msg;
}

namespace {

// Nodes that behave identically for the pod: one representative is filtered and scored.
// Either one node, or an equivalence class whose members are listed in `members_by_name`.
struct Group {
  const NodeInfo* rep = nullptr;  // the member with the smallest name
  std::size_t count = 1;
  const std::map<std::string, const NodeInfo*>* members_by_name = nullptr;

  template <typename F>
  void for_each_member(F&& f) const {
    if (!members_by_name) {
      f(rep);
      return;
    }
    for (const auto& [name, n] : *members_by_name) f(n);
  }
};

bool needs_full_state(const Pod& pod, const PodSchedulingInfo& info) {
  return info.has_pod_affinity || !pod.spec.topology_spread_constraints.empty();
}

// MoreImportantPod: higher priority first, then the one that started earlier.
bool more_important(const Pod* a, const Pod* b) {
  if (a->spec.priority != b->spec.priority) return a->spec.priority > b->spec.priority;
  auto sa = a->status.started_at.value_or(engine::SimTime::max());
  auto sb = b->status.started_at.value_or(engine::SimTime::max());
  if (sa != sb) return sa < sb;
  return std::tie(a->meta.ns, a->meta.name) < std::tie(b->meta.ns, b->meta.name);
}

struct Candidate {
  const NodeInfo* node = nullptr;
  std::vector<const Pod*> victims;  // most important first
};

// SelectVictimsOnNode (defaultpreemption) without PodDisruptionBudgets: remove every pod of
// lower priority; if the pod then fits, add back (reprieve) as many as possible, most important
// first. Returns the victims, or the status that explains why the node cannot help.
std::optional<Candidate> select_victims(const Pod& pod, const PodSchedulingInfo& info, const NodeInfo& node,
                                        NodeInfoView all, const PreFilterState& state, bool full_state,
                                        const SchedulerOptions& options, FilterResult& why) {
  why = {};
  if (node.min_pod_priority >= pod.spec.priority) {
    why.code = FilterCode::UnschedulableAndUnresolvable;
    why.reasons = {kNoPreemptionVictims};
    return std::nullopt;
  }
  std::vector<const Pod*> potential;
  for (const Pod* p : node.pods)
    if (p->spec.priority < pod.spec.priority) potential.push_back(p);
  std::sort(potential.begin(), potential.end(), more_important);
  NodeInfo trial = node;
  for (const Pod* p : potential) remove_pod(trial, *p);

  std::vector<const NodeInfo*> view;
  auto filter = [&]() {
    if (!full_state) return run_filters(pod, info, state, trial, options);
    view.assign(all.begin(), all.end());
    for (auto& v : view)
      if (v->name() == trial.name()) v = &trial;
    return run_filters(pod, info, pre_filter(pod, info, view), trial, options);
  };
  FilterResult r = filter();
  if (!r.ok()) {
    why = std::move(r);
    return std::nullopt;
  }
  Candidate c;
  c.node = &node;
  for (const Pod* p : potential) {
    add_pod(trial, *p);
    if (!filter().ok()) {
      remove_pod(trial, *p);
      c.victims.push_back(p);
    }
  }
  return c;
}

// pickOneNodeForPreemption without PDBs and start times: lowest highest-priority victim, then
// lowest priority sum (each victim offset by MaxInt32+1 so fewer victims win), then fewer
// victims, then node name.
bool better_candidate(const Candidate& a, const Candidate& b) {
  auto highest = [](const Candidate& c) { return c.victims.empty() ? INT32_MIN : c.victims.front()->spec.priority; };
  if (highest(a) != highest(b)) return highest(a) < highest(b);
  auto sum = [](const Candidate& c) {
    std::int64_t s = 0;
    for (const Pod* p : c.victims) s += static_cast<std::int64_t>(p->spec.priority) + INT32_MAX + 1;
    return s;
  };
  if (sum(a) != sum(b)) return sum(a) < sum(b);
  if (a.victims.size() != b.victims.size()) return a.victims.size() < b.victims.size();
  return a.node->name() < b.node->name();
}

// Nodes the PreFilter left out of the search (PreFilterResult.NodeNames): how many, and the
// status the FitError gives them.
struct AbsentNodes {
  std::int64_t count = 0;
  const char* reason = nullptr;  // nullptr: not in the diagnosis at all (before 1.28)
};

ScheduleResult run_cycle(const Pod& pod, const PodSchedulingInfo& info, const PreFilterState& state,
                         bool full_state, const std::vector<Group>& groups, NodeInfoView all,
                         NodeInfoView score_view, std::size_t num_nodes, const SchedulerOptions& options,
                         AbsentNodes absent = {}) {
  ScheduleResult res;
  if (num_nodes == 0) {
    res.message = kNoNodesAvailable;
    return res;
  }
  if (absent.count > 0 && absent.reason) {
    res.reasons[absent.reason] += absent.count;
    res.unschedulable_plugins.insert("NodeAffinity");
  }
  std::vector<const Group*> feasible;
  std::vector<std::pair<const Group*, FilterResult>> failed;
  for (const auto& g : groups) {
    FilterResult r = run_filters(pod, info, state, *g.rep, options);
    if (r.ok()) {
      feasible.push_back(&g);
      continue;
    }
    for (const auto& reason : r.reasons) res.reasons[reason] += static_cast<std::int64_t>(g.count);
    res.unschedulable_plugins.insert(r.plugin);
    failed.emplace_back(&g, std::move(r));
  }
  if (!feasible.empty()) {
    std::vector<const NodeInfo*> reps;
    reps.reserve(feasible.size());
    for (const Group* g : feasible) reps.push_back(g->rep);
    auto scores = score_nodes(pod, info, reps, score_view, options);
    std::size_t best = 0;
    for (std::size_t i = 1; i < reps.size(); ++i)
      if (scores[i] > scores[best] || (scores[i] == scores[best] && reps[i]->name() < reps[best]->name()))
        best = i;
    res.node_name = reps[best]->name();
    res.score = scores[best];
    res.reasons.clear();
    res.unschedulable_plugins.clear();
    return res;
  }

  std::string post;
  if (options.preemption) {
    std::map<std::string, std::int64_t> post_hist;
    std::optional<Candidate> chosen;
    std::int64_t no_victims = 0;  // the common answer, counted apart from the histogram's map
    // Absent nodes are UnschedulableAndUnresolvable.
    if (absent.count > 0 && absent.reason) post_hist[kPreemptionNotHelpful] += absent.count;
    for (const auto& [g, r] : failed) {
      if (r.code == FilterCode::UnschedulableAndUnresolvable) {
        post_hist[kPreemptionNotHelpful] += static_cast<std::int64_t>(g->count);
        continue;
      }
      g->for_each_member([&](const NodeInfo* n) {
        if (n->min_pod_priority >= pod.spec.priority) {  // select_victims' first test
          ++no_victims;
          return;
        }
        FilterResult why;
        auto c = select_victims(pod, info, *n, all, state, full_state, options, why);
        if (c) {
          if (!chosen || better_candidate(*c, *chosen)) chosen = std::move(c);
        } else {
          for (const auto& reason : why.reasons) post_hist[reason]++;
        }
      });
    }
    if (no_victims > 0) post_hist[kNoPreemptionVictims] += no_victims;
    if (chosen) {
      res.preemption = PreemptionPlan{chosen->node->name(), chosen->victims};
      res.message = failed_scheduling_message(num_nodes, res.reasons, "");
      return res;
    }
    post = "preemption: 0/" + std::to_string(num_nodes) + " nodes are available: " + format_reason_histogram(post_hist);
  }
  // The DynamicResources PostFilter runs before DefaultPreemption; DRA is on by default from 1.34.
  if (options.version.minor >= 34) post = post.empty() ? kNoNewClaimsToDeallocate : std::string(kNoNewClaimsToDeallocate) + ", " + post;
  res.message = failed_scheduling_message(num_nodes, res.reasons, post);
  return res;
}

bool refers_to_hostname(const NodeSelectorTerm& t) {
  if (!t.match_fields.empty()) return true;
  return std::any_of(t.match_expressions.begin(), t.match_expressions.end(),
                     [](const NodeSelectorRequirement& r) { return r.key == kLabelHostname; });
}

// Whether a term of a pod in namespace owner_ns selects `target` (interpodaffinity: namespaces
// empty = the owner's own).
bool selects(const PodAffinityTerm& t, const std::string& owner_ns, const Pod& target) {
  bool ns_ok = t.namespaces.empty() ? target.meta.ns == owner_ns
                                    : std::find(t.namespaces.begin(), t.namespaces.end(), target.meta.ns) != t.namespaces.end();
  return ns_ok && label_selector_matches(t.label_selector, target.meta.labels);
}

// Whether some bound pod's (anti-)affinity terms select `pod`: only then do they change its
// InterPodAffinity filter or score. CoreDNS's anti-affinity selects CoreDNS pods only, so a batch
// pod still schedules per equivalence class on a cluster running CoreDNS. Cost: one counter per
// node, and the terms of the few pods that have any.
bool existing_affinity_selects(const Pod& pod, NodeInfoView nodes, std::int64_t with_affinity) {
  for (const NodeInfo* ni : nodes) {
    if (with_affinity <= 0) break;  // every pod with terms seen
    if (ni->pods_with_affinity == 0) continue;
    with_affinity -= ni->pods_with_affinity;
    for (const Pod* ep : ni->pods) {
      const auto& a = ep->spec.affinity;
      const std::string& ns = ep->meta.ns;
      for (const auto& t : a.pod_affinity_required)
        if (selects(t, ns, pod)) return true;
      for (const auto& t : a.pod_anti_affinity_required)
        if (selects(t, ns, pod)) return true;
      for (const auto& w : a.pod_affinity_preferred)
        if (selects(w.term, ns, pod)) return true;
      for (const auto& w : a.pod_anti_affinity_preferred)
        if (selects(w.term, ns, pod)) return true;
    }
  }
  return false;
}

// nodeaffinity PreFilter: when every required term names nodes by metadata.name In [...], the
// union of those names (each term's names intersected); nullopt when some term names none, so
// every node stays a candidate.
std::optional<std::set<std::string>> node_names_required(const Pod& pod) {
  const auto& req = pod.spec.affinity.node_required;
  if (!req || req->empty()) return std::nullopt;
  std::set<std::string> names;
  for (const NodeSelectorTerm& t : *req) {
    std::optional<std::set<std::string>> term_names;
    for (const NodeSelectorRequirement& r : t.match_fields) {
      if (r.key != kFieldMetadataName || r.op != "In") continue;
      std::set<std::string> s(r.values.begin(), r.values.end());
      if (!term_names) {
        term_names = std::move(s);
      } else {
        std::set<std::string> both;
        std::set_intersection(term_names->begin(), term_names->end(), s.begin(), s.end(),
                              std::inserter(both, both.end()));
        term_names = std::move(both);
      }
    }
    if (!term_names) return std::nullopt;
    names.insert(term_names->begin(), term_names->end());
  }
  return names;
}

// True when every node of an equivalence class gives this pod the same filter result and score.
bool class_eligible(const Pod& pod, const PodSchedulingInfo& info, const SchedulingSnapshot& snap,
                    std::int64_t pods_with_affinity) {
  if (needs_full_state(pod, info) || !pod.spec.node_name.empty()) return false;
  if (snap.any_pod_affinity() && existing_affinity_selects(pod, snap.nodes(), pods_with_affinity)) return false;
  if (pod.spec.node_selector.count(kLabelHostname)) return false;
  const auto& a = pod.spec.affinity;
  if (a.node_required && std::any_of(a.node_required->begin(), a.node_required->end(), refers_to_hostname))
    return false;
  for (const auto& p : a.node_preferred)
    if (refers_to_hostname(p.preference)) return false;
  return true;
}

std::string class_key(const NodeInfo& n) {
  constexpr char kSep = '\x1f';
  std::string k;
  k.reserve(256);
  auto put = [&](std::string_view s) {
    k.append(s);
    k.push_back(kSep);
  };
  for (const auto& [lk, lv] : n.node.meta.labels) {
    if (lk == kLabelHostname) continue;
    put(lk);
    put(lv);
  }
  put("|t");
  for (const auto& t : n.node.taints) {
    put(t.key);
    put(t.value);
    put(t.effect);
  }
  put(n.node.unschedulable ? "U" : "S");
  put("|a");
  for (const auto& [r, v] : n.node.allocatable.items()) {
    put(r);
    put(std::to_string(v));
  }
  put("|r");
  for (const auto& [r, v] : n.requested.items()) {
    if (v == 0) continue;
    put(r);
    put(std::to_string(v));
  }
  put(std::to_string(n.non_zero_cpu));
  put(std::to_string(n.non_zero_memory));
  put(std::to_string(n.pod_count()));
  put("|p");
  for (const auto& hp : n.used_ports) {
    put(hp.protocol);
    put(std::to_string(hp.port));
  }
  return k;
}

}  // namespace

ScheduleResult schedule_one(const Pod& pod, NodeInfoView nodes, const SchedulerOptions& options) {
  PodSchedulingInfo info = pod_scheduling_info(pod);
  PreFilterState state = pre_filter(pod, info, nodes);
  std::vector<Group> groups;
  groups.reserve(nodes.size());
  std::vector<const NodeInfo*> sorted(nodes.begin(), nodes.end());
  std::sort(sorted.begin(), sorted.end(), [](const NodeInfo* a, const NodeInfo* b) { return a->name() < b->name(); });
  for (const NodeInfo* n : sorted) groups.push_back(Group{n, 1, nullptr});
  return run_cycle(pod, info, state, true, groups, nodes, nodes, nodes.size(), options);
}

// --- SchedulingSnapshot -----------------------------------------------------------------------

void SchedulingSnapshot::unclassify(const Entry& e) {
  auto it = classes_.find(e.class_key);
  if (it == classes_.end()) return;
  it->second.erase(e.info.name());
  if (it->second.empty()) classes_.erase(it);
}

void SchedulingSnapshot::reclassify(Entry& e) {
  ++generation_;
  unclassify(e);
  e.class_key = class_key(e.info);
  classes_[e.class_key].emplace(e.info.name(), &e.info);
}

void SchedulingSnapshot::set_node(const Node& node) {
  auto it = entries_.find(node.meta.name);
  if (it == entries_.end()) {
    it = entries_.emplace(node.meta.name, Entry{make_node_info(node), {}}).first;
    view_dirty_ = true;
  } else {
    it->second.info.node = node;
  }
  reclassify(it->second);
}

void SchedulingSnapshot::remove_node(std::string_view name) {
  auto it = entries_.find(name);
  if (it == entries_.end()) return;
  unclassify(it->second);
  ++generation_;
  pods_with_affinity_ -= it->second.info.pods_with_affinity;
  pods_with_required_anti_affinity_ -= it->second.info.pods_with_required_anti_affinity;
  entries_.erase(it);
  view_dirty_ = true;
}

bool SchedulingSnapshot::bind(const Pod& pod, std::string_view node_name) {
  auto it = entries_.find(node_name);
  if (it == entries_.end()) return false;
  NodeInfo& info = it->second.info;
  const int before = info.pods_with_affinity, anti_before = info.pods_with_required_anti_affinity;
  add_pod(info, pod);
  pods_with_affinity_ += info.pods_with_affinity - before;
  pods_with_required_anti_affinity_ += info.pods_with_required_anti_affinity - anti_before;
  reclassify(it->second);
  return true;
}

bool SchedulingSnapshot::unbind(const Pod& pod, std::string_view node_name) {
  auto it = entries_.find(node_name);
  if (it == entries_.end()) return false;
  NodeInfo& info = it->second.info;
  const int before = info.pods_with_affinity, anti_before = info.pods_with_required_anti_affinity;
  if (!remove_pod(info, pod)) return false;
  pods_with_affinity_ += info.pods_with_affinity - before;
  pods_with_required_anti_affinity_ += info.pods_with_required_anti_affinity - anti_before;
  reclassify(it->second);
  return true;
}

const NodeInfo* SchedulingSnapshot::find(std::string_view name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second.info;
}

NodeInfoView SchedulingSnapshot::nodes() const {
  if (view_dirty_) {
    view_.clear();
    view_.reserve(entries_.size());
    for (const auto& [name, e] : entries_) view_.push_back(&e.info);
    view_dirty_ = false;
  }
  return view_;
}

ScheduleResult schedule_one(const Pod& pod, const SchedulingSnapshot& snap, const SchedulerOptions& options) {
  PodSchedulingInfo info = pod_scheduling_info(pod);
  auto names = snap.size() > 0 ? node_names_required(pod) : std::nullopt;
  if (names && !names->empty()) {  // an empty set is the plugin's own "conflict" rejection
    // NodeAffinity's PreFilterResult (a DaemonSet pod names its node): only the named nodes are
    // filtered, found by name in O(log n); the rest get the FitError's absent-nodes status.
    std::vector<const NodeInfo*> named;
    for (const auto& n : *names)
      if (const NodeInfo* ni = snap.find(n)) named.push_back(ni);
    AbsentNodes absent{static_cast<std::int64_t>(snap.size() - named.size()), nullptr};
    if (options.version.minor >= 31) absent.reason = "node(s) didn't satisfy plugin(s) [NodeAffinity]";
    else if (options.version.minor >= 28) absent.reason = "node is filtered out by the prefilter result";
    PreFilterState state = pre_filter(pod, info, snap.nodes(), snap.any_required_anti_affinity());
    std::vector<Group> groups;
    for (const NodeInfo* n : named) groups.push_back(Group{n, 1, nullptr});
    return run_cycle(pod, info, state, true, groups, snap.nodes(), snap.nodes(), snap.size(), options, absent);
  }
  if (!class_eligible(pod, info, snap, snap.pods_with_affinity_)) return schedule_one(pod, snap.nodes(), options);
  std::vector<Group> groups;
  groups.reserve(snap.classes_.size());
  for (const auto& [key, members] : snap.classes_)
    groups.push_back(Group{members.begin()->second, members.size(), &members});
  // No bound pod's (anti-)affinity selects this pod and it has no spread or affinity terms of its
  // own, so the PreFilter state is empty and InterPodAffinity scoring has nothing to look at.
  PreFilterState empty;
  return run_cycle(pod, info, empty, false, groups, snap.nodes(), NodeInfoView{}, snap.size(), options);
}

}  // namespace eksim::k8s
