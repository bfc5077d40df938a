#include "models/autoscaling/karpenter/provisioning/scheduling/scheduler.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/k8s/quantity.hpp"
#include "models/k8s/scheduling/pod_classes.hpp"
#include "models/k8s/scheduling/predicates.hpp"

namespace eksim::autoscaling::karpenter {

bool fits_in(const k8s::ResourceList& requests, const k8s::ResourceList& allocatable) {
  for (const auto& e : requests)
    if (e.amount > allocatable.get(e.id)) return false;
  return true;
}

namespace {

// Quantity.String() in canonical form: cpu "310m" or "2"; byte amounts with the largest binary
// suffix that divides them; counts as integers.
std::string canonical(const std::string& name, std::int64_t v) {
  if (name == k8s::kCpu) {
    if (v % 1000 != 0) return k8s::format_cpu(v);
    std::int64_t cores = v / 1000;
    if (cores != 0 && cores % 1000000 == 0) return std::to_string(cores / 1000000) + "M";
    if (cores != 0 && cores % 1000 == 0) return std::to_string(cores / 1000) + "k";
    return std::to_string(cores);
  }
  if (name == k8s::kMemory || name == k8s::kEphemeralStorage || name == "hugepages-2Mi") {
    static const char* suffixes[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    if (v == 0) return "0";
    int best = -1;
    std::int64_t div = 1;
    for (int i = 0; i < 6; ++i) {
      div *= 1024;
      if (v % div == 0) best = i;
      else break;
    }
    if (best < 0) return std::to_string(v);
    std::int64_t d = 1;
    for (int i = 0; i <= best; ++i) d *= 1024;
    return std::to_string(v / d) + suffixes[best];
  }
  return std::to_string(v);
}

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

// Karpenter's topology tracking (provisioning/scheduling/topology.go, topologygroup.go) for what
// decides where new NodeClaims go: DoNotSchedule topology spread constraints and required pod
// anti-affinity (the pod's own terms and the inverse: pods already placed whose anti-affinity
// selects it), on any topology key, zone and hostname in practice. Counts come from the pods on
// existing nodes and the pods placed earlier in this pass; every NodeClaim is its own hostname
// domain. Required pod affinity is left to the kube-scheduler's filters on existing nodes.
class Topology {
 public:
  Topology(const std::vector<const k8s::Pod*>& pods, const ExistingNodes& existing,
           const std::vector<NodeClaimTemplate>& templates) {
    for (const auto* p : pods) note_keys(*p, /*incoming=*/true);
    // Existing pods only contribute keys through required anti-affinity, and only when a term
    // selects one of the pods being placed (Karpenter's own controller pods select each other
    // only; with them running, other pods keep the unconstrained path).
    if (const auto* owners = existing.anti_affinity_pods()) {
      for (const auto& [i, p] : *owners)
        if (!existing.excluded(i) && anti_affinity_selects_any(*p, pods)) note_keys(*p, /*incoming=*/false);
    } else if (existing.any_required_anti_affinity()) {
      for (std::size_t i = 0; i < existing.size(); ++i)
        if (!existing.excluded(i))
          for (const auto* p : existing.get(i).info.pods)
            if (anti_affinity_selects_any(*p, pods)) note_keys(*p, /*incoming=*/false);
    }
    if (keys_.empty()) return;
    for (std::size_t i = 0; i < existing.size(); ++i) {
      if (existing.excluded(i)) continue;
      const ExistingNode& e = existing.get(i);
      for (const auto& key : keys_) {
        std::string d = domain_of(e.info.node.meta.labels, key, e.info.name());
        if (!d.empty()) universe_[key].insert(d);
      }
      for (const auto* p : e.info.pods) record(*p, e.info.node.meta.labels, e.info.name());
    }
    for (const auto& t : templates) {
      for (const auto& key : keys_) {
        if (key == k8s::kLabelHostname) continue;
        const Requirement r = t.requirements.get(key);
        for (const auto* it : t.instance_types) {
          if (key == k8s::kLabelZone) {
            for (const auto& o : it->offerings)
              if (r.has(o.zone)) universe_[key].insert(o.zone);
          } else {
            const Requirement ir = it->requirements.get(key);
            for (const auto& v : ir.values())
              if (r.has(v)) universe_[key].insert(v);
          }
        }
        if (!r.complement())
          for (const auto& v : r.values()) universe_[key].insert(v);
      }
    }
  }

  bool active() const { return !keys_.empty(); }
  // Whether the pod takes part: constraints of its own, or anti-affinity of others may select it.
  bool constrains(const k8s::Pod& pod) const {
    return active() && (has_own_terms(pod) || any_anti_affinity_);
  }

  // An existing node (fixed labels): "" when the pod may go there.
  std::string check_node(const k8s::Pod& pod, const k8s::Labels& labels, const std::string& host) const {
    for (const auto& c : pod.spec.topology_spread_constraints) {
      if (c.when_unsatisfiable == "ScheduleAnyway") continue;
      std::string d = domain_of(labels, c.topology_key, host);
      if (d.empty()) return "missing label " + c.topology_key;
      auto counts = spread_counts(pod, c);
      std::int64_t self = k8s::label_selector_matches(c.label_selector, pod.meta.labels) ? 1 : 0;
      if (count_in(counts, d) + self - min_count(pod, c, counts) > c.max_skew) return "skew";
    }
    for (const auto& t : pod.spec.affinity.pod_anti_affinity_required) {
      std::string d = domain_of(labels, t.topology_key, host);
      if (!d.empty() && count_in(anti_counts(pod, t), d) > 0) return "anti-affinity";
    }
    for (const auto& [key, blocked] : inverse_blocked(pod)) {
      std::string d = domain_of(labels, key, host);
      if (!d.empty() && blocked.count(d)) return "inverse anti-affinity";
    }
    return "";
  }

  // A NodeClaim: narrows reqs on the topology keys (nextDomainTopologySpread picks the domain
  // with the fewest matching pods, ties by name; anti-affinity keeps the empty domains). Returns
  // "" or upstream's topologyError text.
  std::string narrow_claim(const k8s::Pod& pod, Requirements& reqs, const std::string& host) const {
    const Requirements pod_reqs = Requirements::from_pod(pod);
    for (const auto& c : pod.spec.topology_spread_constraints) {
      if (c.when_unsatisfiable == "ScheduleAnyway") continue;
      auto counts = spread_counts(pod, c);
      std::int64_t self = k8s::label_selector_matches(c.label_selector, pod.meta.labels) ? 1 : 0;
      std::int64_t mn = min_count(pod, c, counts);
      if (c.topology_key == k8s::kLabelHostname) {
        if (count_in(counts, host) + self - mn > c.max_skew)
          return error("topology spread", c.topology_key, counts, pod_reqs, reqs);
        continue;
      }
      const Requirement node_domains = reqs.get(c.topology_key);
      std::string best;
      std::int64_t best_count = INT64_MAX;
      for (const auto& d : universe(c.topology_key)) {
        if (!node_domains.has(d)) continue;
        std::int64_t n = count_in(counts, d) + self;
        if (n - mn <= c.max_skew && n < best_count) {
          best = d;
          best_count = n;
        }
      }
      if (best.empty()) return error("topology spread", c.topology_key, counts, pod_reqs, reqs);
      reqs.add(Requirement(c.topology_key, "In", {best}));
    }
    for (const auto& t : pod.spec.affinity.pod_anti_affinity_required) {
      auto counts = anti_counts(pod, t);
      if (t.topology_key == k8s::kLabelHostname) {
        if (count_in(counts, host) > 0) return error("pod anti-affinity", t.topology_key, counts, pod_reqs, reqs);
        continue;
      }
      const Requirement node_domains = reqs.get(t.topology_key);
      std::vector<std::string> options;
      for (const auto& d : universe(t.topology_key))
        if (node_domains.has(d) && count_in(counts, d) == 0) options.push_back(d);
      if (options.empty()) return error("pod anti-affinity", t.topology_key, counts, pod_reqs, reqs);
      reqs.add(Requirement(t.topology_key, "In", options));
    }
    for (const auto& [key, blocked] : inverse_blocked(pod)) {
      if (key == k8s::kLabelHostname) {
        if (blocked.count(host)) return error("pod anti-affinity", key, {}, pod_reqs, reqs);
        continue;
      }
      std::vector<std::string> b(blocked.begin(), blocked.end());
      reqs.add(Requirement(key, "NotIn", b));
      if (reqs.get(key).len() == 0) return error("pod anti-affinity", key, {}, pod_reqs, reqs);
    }
    return "";
  }

  // Records a placed pod: node labels, or the claim's requirements (a domain counts only when
  // the requirement has a single value) with the claim's own hostname.
  void record(const k8s::Pod& pod, const k8s::Labels& labels, const std::string& host) {
    Placed pl{&pod, {}};
    for (const auto& key : keys_) {
      std::string d = domain_of(labels, key, host);
      if (!d.empty()) pl.domains[key] = d;
    }
    placed_.push_back(std::move(pl));
  }
  void record_claim(const k8s::Pod& pod, const Requirements& reqs, const std::string& host) {
    Placed pl{&pod, {}};
    for (const auto& key : keys_) {
      if (key == k8s::kLabelHostname) {
        pl.domains[key] = host;
        continue;
      }
      const Requirement r = reqs.get(key);
      if (!r.complement() && r.values().size() == 1) pl.domains[key] = *r.values().begin();
    }
    placed_.push_back(std::move(pl));
  }

 private:
  struct Placed {
    const k8s::Pod* pod;
    std::map<std::string, std::string> domains;
  };
  using Counts = std::map<std::string, std::int64_t>;

  static bool has_own_terms(const k8s::Pod& pod) {
    for (const auto& c : pod.spec.topology_spread_constraints)
      if (c.when_unsatisfiable != "ScheduleAnyway") return true;
    return !pod.spec.affinity.pod_anti_affinity_required.empty();
  }
  static bool anti_affinity_selects_any(const k8s::Pod& owner, const std::vector<const k8s::Pod*>& pods) {
    for (const auto& t : owner.spec.affinity.pod_anti_affinity_required)
      for (const auto* p : pods) {
        bool ns_ok = t.namespaces.empty() ? p->meta.ns == owner.meta.ns
                                          : std::find(t.namespaces.begin(), t.namespaces.end(), p->meta.ns) != t.namespaces.end();
        if (ns_ok && k8s::label_selector_matches(t.label_selector, p->meta.labels)) return true;
      }
    return false;
  }
  void note_keys(const k8s::Pod& pod, bool incoming) {
    if (incoming)
      for (const auto& c : pod.spec.topology_spread_constraints)
        if (c.when_unsatisfiable != "ScheduleAnyway") keys_.insert(c.topology_key);
    for (const auto& t : pod.spec.affinity.pod_anti_affinity_required) {
      keys_.insert(t.topology_key);
      any_anti_affinity_ = true;
    }
  }
  static std::string domain_of(const k8s::Labels& labels, const std::string& key, const std::string& host) {
    auto it = labels.find(key);
    if (it != labels.end()) return it->second;
    return key == k8s::kLabelHostname ? host : "";
  }
  static std::int64_t count_in(const Counts& c, const std::string& d) {
    auto it = c.find(d);
    return it == c.end() ? 0 : it->second;
  }
  const std::set<std::string>& universe(const std::string& key) const {
    static const std::set<std::string> none;
    auto it = universe_.find(key);
    return it == universe_.end() ? none : it->second;
  }
  Counts spread_counts(const k8s::Pod& pod, const k8s::TopologySpreadConstraint& c) const {
    Counts counts;
    for (const auto& d : universe(c.topology_key)) counts[d] = 0;
    for (const auto& pl : placed_) {
      if (pl.pod->meta.ns != pod.meta.ns || !k8s::label_selector_matches(c.label_selector, pl.pod->meta.labels)) continue;
      auto it = pl.domains.find(c.topology_key);
      if (it != pl.domains.end()) ++counts[it->second];
    }
    return counts;
  }
  // domainMinCount: hostname domains always have an empty candidate (a new node); otherwise the
  // fewest matching pods over the domains the pod's own requirements allow.
  std::int64_t min_count(const k8s::Pod& pod, const k8s::TopologySpreadConstraint& c, const Counts& counts) const {
    if (c.topology_key == k8s::kLabelHostname) return 0;
    const Requirement allowed = Requirements::from_pod(pod).get(c.topology_key);
    std::int64_t mn = INT64_MAX;
    std::int64_t domains = 0;
    for (const auto& [d, n] : counts)
      if (allowed.has(d)) {
        mn = std::min(mn, n);
        ++domains;
      }
    if (domains == 0 || (c.min_domains && domains < *c.min_domains)) return 0;
    return mn;
  }
  static bool term_selects(const k8s::PodAffinityTerm& t, const std::string& owner_ns, const k8s::Pod& target) {
    bool ns_ok = t.namespaces.empty() ? target.meta.ns == owner_ns
                                      : std::find(t.namespaces.begin(), t.namespaces.end(), target.meta.ns) != t.namespaces.end();
    return ns_ok && k8s::label_selector_matches(t.label_selector, target.meta.labels);
  }
  Counts anti_counts(const k8s::Pod& pod, const k8s::PodAffinityTerm& t) const {
    Counts counts;
    for (const auto& pl : placed_) {
      if (!term_selects(t, pod.meta.ns, *pl.pod)) continue;
      auto it = pl.domains.find(t.topology_key);
      if (it != pl.domains.end()) ++counts[it->second];
    }
    return counts;
  }
  std::map<std::string, std::set<std::string>> inverse_blocked(const k8s::Pod& pod) const {
    std::map<std::string, std::set<std::string>> out;
    if (!any_anti_affinity_) return out;
    for (const auto& pl : placed_)
      for (const auto& t : pl.pod->spec.affinity.pod_anti_affinity_required) {
        if (!term_selects(t, pl.pod->meta.ns, pod)) continue;
        auto it = pl.domains.find(t.topology_key);
        if (it != pl.domains.end()) out[t.topology_key].insert(it->second);
      }
    return out;
  }
  // topologyError.Error(), word for word (its format string has no closing parenthesis).
  static std::string error(const char* type, const std::string& key, const Counts& counts, const Requirements& pod_reqs,
                           const Requirements& node_reqs) {
    std::string c;
    int n = 0;
    for (const auto& [d, v] : counts) {
      if (n++ == 25) break;  // pretty.Map(domains, 25)
      if (!c.empty()) c += ", ";
      c += d + ": " + std::to_string(v);
    }
    return std::string("unsatisfiable topology constraint for ") + type + ", key=" + key + " (counts = " + c +
           ", podDomains = " + pod_reqs.get(key).str() + ", nodeDomains = " + node_reqs.get(key).str();
  }

  std::set<std::string> keys_;
  bool any_anti_affinity_ = false;
  std::map<std::string, std::set<std::string>> universe_;
  std::vector<Placed> placed_;
};

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

}  // namespace

k8s::ResourceList karpenter_requests(const k8s::Pod& pod) {
  k8s::ResourceList r = k8s::pod_requests(pod.spec);
  r.add(k8s::kPods, 1);
  return r;
}

std::string resources_string(const k8s::ResourceList& r) {
  std::string out = "{";
  bool first = true;
  for (const auto& [name, amount] : r.items()) {
    if (amount == 0) continue;  // absent and zero are one amount here (ResourceList)
    if (!first) out += ",";
    first = false;
    out += "\"" + name + "\":\"" + canonical(name, amount) + "\"";
  }
  return out + "}";
}

PodOrder PodOrder::of(const k8s::Pod& pod) {
  // One resource of pod_requests, without building the whole list.
  auto requested = [](const k8s::PodSpec& spec, std::string_view resource) {
    std::int64_t total = 0;
    for (const auto& c : spec.containers) total += c.requests.get(resource);
    for (const auto& c : spec.init_containers) total = std::max(total, c.requests.get(resource));
    return total;
  };
  return PodOrder{requested(pod.spec, k8s::kCpu), requested(pod.spec, k8s::kMemory), pod.meta.creation_timestamp,
                  k8s::uid_serial(pod.meta.uid)};
}

bool goes_before(const PodOrder& a, const k8s::Pod& pa, const PodOrder& b, const k8s::Pod& pb) {
  if (a.cpu != b.cpu) return a.cpu > b.cpu;
  if (a.mem != b.mem) return a.mem > b.mem;
  if (a.created != b.created) return a.created < b.created;
  if (a.uid >= 0 && b.uid >= 0) return a.uid < b.uid;
  return pa.meta.uid < pb.meta.uid;
}

void order_pods(std::vector<const k8s::Pod*>& pods) {
  if (pods.size() < 2) return;
  std::vector<std::pair<PodOrder, const k8s::Pod*>> keys;
  keys.reserve(pods.size());
  for (const auto* p : pods) keys.emplace_back(PodOrder::of(*p), p);
  std::sort(keys.begin(), keys.end(),
            [](const auto& a, const auto& b) { return goes_before(a.first, *a.second, b.first, *b.second); });
  for (std::size_t i = 0; i < pods.size(); ++i) pods[i] = keys[i].second;
}

NodeClaimTemplate make_template(const NodePool& pool, const std::vector<InstanceTypeInfo>& types,
                                const std::vector<k8s::Pod>& daemon_pods, LabelDomain domain,
                                const std::map<std::string, std::int64_t>& usage) {
  NodeClaimTemplate t;
  t.pool = &pool;
  t.requirements = Requirements::from_node_selector(pool.requirements);
  for (const auto& [key, n] : pool.min_values) {
    if (!t.requirements.has(key)) continue;
    Requirement r = t.requirements.get(key);
    r.set_min_values(n);
    t.requirements.erase(key);
    t.requirements.add(r);
  }
  t.requirements.add(Requirements::from_labels(pool.labels));
  t.requirements.add(Requirement(kLabelNodePool, "In", {pool.name}));
  // Without a capacity-type requirement Karpenter launches on-demand (the AWS provider's
  // NodePool default).
  if (!t.requirements.has(kLabelCapacityType)) t.requirements.add(Requirement(kLabelCapacityType, "In", {"on-demand"}));
  t.taints = pool.taints;
  const auto& wk = well_known_labels(domain);
  for (const auto& dp : daemon_pods) {
    // isDaemonPodCompatible: PreferNoSchedule taints never keep a daemon away.
    std::vector<k8s::Taint> hard;
    for (const auto& taint : pool.taints)
      if (taint.effect != k8s::kPreferNoSchedule) hard.push_back(taint);
    if (!tolerates(hard, dp.spec.tolerations).empty()) continue;
    if (!t.requirements.is_compatible(Requirements::from_pod(dp), wk)) continue;
    t.daemon_overhead += karpenter_requests(dp);
  }
  std::vector<std::pair<double, const InstanceTypeInfo*>> priced;
  for (const auto& it : types) {
    if (!it.requirements.intersects(t.requirements).empty()) continue;
    double p = it.cheapest(t.requirements);
    if (p < 0) continue;
    if (!fits_in(t.daemon_overhead, it.allocatable)) continue;
    priced.emplace_back(p, &it);
  }
  std::stable_sort(priced.begin(), priced.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return a.second->name() < b.second->name();
  });
  for (const auto& [p, it] : priced) t.instance_types.push_back(it);
  t.bound = AllocatableBound::over(t.instance_types);
  if (!pool.limits.empty()) {
    std::map<std::string, std::int64_t> rem;
    for (const auto& [name, limit] : pool.limits) {
      auto u = usage.find(name);
      rem[name] = limit - (u == usage.end() ? 0 : u->second);
    }
    t.remaining = std::move(rem);
  }
  return t;
}

AllocatableBound AllocatableBound::over(const std::vector<const InstanceTypeInfo*>& types) {
  AllocatableBound b;
  for (const InstanceTypeInfo* t : types)
    for (const auto& e : t->allocatable) {
      if (e.amount <= 0) continue;
      const std::int64_t cur = b.max.get(e.id);
      if (e.amount > cur) {
        b.max.set(e.id, e.amount);
        b.attained.set(e.id, 1);
      } else if (e.amount == cur) {
        b.attained.add(e.id, 1);
      }
    }
  return b;
}

bool AllocatableBound::drop(const InstanceTypeInfo& t) {
  bool holds = true;
  for (const auto& e : t.allocatable) {
    if (e.amount <= 0 || e.amount != max.get(e.id)) continue;
    attained.add(e.id, -1);
    if (attained.get(e.id) <= 0) holds = false;
  }
  return holds;
}

ExistingNodeVector::ExistingNodeVector(std::vector<ExistingNode>& nodes) : nodes_(nodes), order_(nodes.size()) {
  // Initialized nodes first, then by name (calculateExistingNodeClaims).
  for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = i;
  std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
    if (nodes_[a].initialized != nodes_[b].initialized) return nodes_[a].initialized;
    return nodes_[a].info.name() < nodes_[b].info.name();
  });
}

void ExistingNodeVector::add_pod(std::size_t i, const k8s::Pod& pod) { k8s::add_pod(nodes_[order_[i]].info, pod); }

bool ExistingNodeVector::any_required_anti_affinity() const {
  return std::any_of(nodes_.begin(), nodes_.end(), [](const ExistingNode& e) { return e.info.pods_with_required_anti_affinity > 0; });
}

namespace {

// Insertion sort: stable, so it gives exactly what std::stable_sort gives on the same order.
void sort_by_fewest_pods(std::vector<std::size_t>& order, const std::vector<PlannedNodeClaim>& claims) {
  for (std::size_t i = 1; i < order.size(); ++i) {
    const std::size_t moving = order[i];
    const std::size_t pods = claims[moving].pods.size();
    std::size_t j = i;
    for (; j > 0 && claims[order[j - 1]].pods.size() > pods; --j) order[j] = order[j - 1];
    order[j] = moving;
  }
}

// Puts the claims in the order the last pod saw them (the order the result always had).
void in_claim_order(std::vector<PlannedNodeClaim>& claims, const std::vector<std::size_t>& order) {
  std::vector<PlannedNodeClaim> sorted;
  sorted.reserve(claims.size());
  for (std::size_t i : order) sorted.push_back(std::move(claims[i]));
  claims = std::move(sorted);
}


// The scheduling loop over pods in Karpenter's order; `classes` (one per pod) when the caller
// keeps them, else existing.pod_class answers.
SchedulingResults solve_in_order(const std::vector<const k8s::Pod*>& pods, const std::vector<std::uint32_t>* classes,
                                 ExistingNodes& existing, std::vector<NodeClaimTemplate>& templates, LabelDomain domain,
                                 const k8s::SchedulerOptions& options, bool existing_only) {
  SchedulingResults res;
  const auto& wk = well_known_labels(domain);
  const k8s::NodeInfoView no_cluster{};
  Topology topo(pods, existing, templates);
  std::size_t serial = 0;
  std::vector<std::size_t> claim_order;  // res.new_claims by fewest pods, stable
  // A pod that finds no place changes nothing, so the next pod of its class finds none either,
  // with the same errors, until a pod is placed: 100,000 pending replicas past a NodePool's
  // limits cost one search, not 100,000.
  struct Failure {
    std::uint32_t pod_class;
    std::size_t placements, error;  // placements before it; its entry in res.errors
  };
  std::optional<Failure> last_failure;
  std::size_t placements = 0;
  for (std::size_t at = 0; at < pods.size(); ++at) {
    const k8s::Pod* pod = pods[at];
    std::optional<std::uint32_t> pod_class;  // none while topology tracking is active
    if (!topo.active() && !classes) pod_class = existing.pod_class(*pod);
    if (!topo.active() && classes && (*classes)[at] != kNoPodClass) pod_class = (*classes)[at];
    if (pod_class && last_failure && last_failure->pod_class == *pod_class && last_failure->placements == placements &&
        !existing_only) {
      res.errors.emplace_back(pod, res.errors[last_failure->error].second);
      continue;
    }
    const bool constrained = topo.constrains(*pod);
    bool placed = false;
    std::optional<std::size_t> hit;
    if (!constrained && existing.first_fit(*pod, options, hit)) {
      if (hit) {
        existing.add_pod(*hit, *pod);
        if (topo.active()) {
          const k8s::NodeInfo& now = existing.get(*hit).info;
          topo.record(*pod, now.node.meta.labels, now.name());
        }
        res.existing.emplace_back(pod, existing.id(*hit));
        placed = true;
      }
    } else {
      for (std::size_t i = 0; i < existing.size(); ++i) {
        if (existing.excluded(i)) continue;
        const k8s::NodeInfo& info = existing.get(i).info;
        if (constrained && !topo.check_node(*pod, info.node.meta.labels, info.name()).empty()) continue;
        if (k8s::fits(*pod, info, no_cluster, options).ok()) {
          existing.add_pod(i, *pod);
          const k8s::NodeInfo& now = existing.get(i).info;
          if (topo.active()) topo.record(*pod, now.node.meta.labels, now.name());
          res.existing.emplace_back(pod, existing.id(i));
          placed = true;
          break;
        }
      }
    }
    if (placed) {
      ++placements;
      continue;
    }
    if (existing_only) {
      res.stopped = true;
      return res;
    }
    const k8s::ResourceList reqs = karpenter_requests(*pod);
    // addToInflightNode: "sort by fewest pods so we fill them evenly". Only the claim that took
    // the last pod (and any new one at the end) is out of place, so an insertion pass restores
    // the stable order in linear time, moving indices instead of claims.
    sort_by_fewest_pods(claim_order, res.new_claims);
    for (std::size_t i : claim_order) {
      if (add_to_claim(res.new_claims[i], *pod, reqs, wk, /*quick_reject=*/true, topo).empty()) {
        placed = true;
        break;
      }
    }
    if (placed) {
      ++placements;
      continue;
    }
    std::vector<std::string> errs;
    for (auto& t : templates) {
      if (t.instance_types.empty()) continue;  // "skipping, nodepool requirements filtered out all instance types"
      std::vector<const InstanceTypeInfo*> types = t.instance_types;
      if (t.remaining) {
        std::erase_if(types, [&](const InstanceTypeInfo* it) {
          for (const auto& [name, left] : *t.remaining)
            if (it->capacity.get(name) > left) return true;
          return false;
        });
        if (types.empty()) {
          errs.push_back("all available instance types exceed limits for nodepool: \"" + t.pool->name + "\"");
          continue;
        }
      }
      PlannedNodeClaim nc;
      nc.tmpl = &t;
      nc.serial = serial;
      nc.requirements = t.requirements;
      nc.options = std::move(types);
      nc.requests = t.daemon_overhead;
      // The template's bound holds for any subset of its types (limits only take some away).
      nc.bound = t.bound;
      nc.bound_stale = false;
      std::string err = add_to_claim(nc, *pod, reqs, wk, /*quick_reject=*/false, topo);
      if (!err.empty()) {
        errs.push_back("incompatible with nodepool \"" + t.pool->name + "\", daemonset overhead=" +
                       resources_string(t.daemon_overhead) + ", " + err);
        continue;
      }
      if (t.remaining) {
        // subtractMax: assume the largest candidate is what launches.
        k8s::ResourceList biggest;
        for (const auto* it : nc.options) biggest.max_with(it->capacity);
        for (auto& [name, left] : *t.remaining) left -= biggest.get(name);
      }
      claim_order.push_back(res.new_claims.size());
      res.new_claims.push_back(std::move(nc));
      ++serial;
      ++placements;
      placed = true;
      break;
    }
    if (!placed) {
      if (pod_class) last_failure = Failure{*pod_class, placements, res.errors.size()};
      res.errors.emplace_back(pod, std::make_shared<const std::string>(fmt::format("{}", fmt::join(errs, "; "))));
    }
  }
  in_claim_order(res.new_claims, claim_order);
  return res;
}

}  // namespace

SchedulingResults solve(std::vector<const k8s::Pod*> pods, ExistingNodes& existing,
                        std::vector<NodeClaimTemplate>& templates, LabelDomain domain, const k8s::SchedulerOptions& options,
                        bool existing_only) {
  order_pods(pods);
  return solve_in_order(pods, nullptr, existing, templates, domain, options, existing_only);
}

SchedulingResults solve(const OrderedPods& pods, ExistingNodes& existing, std::vector<NodeClaimTemplate>& templates,
                        LabelDomain domain, const k8s::SchedulerOptions& options) {
  return solve_in_order(pods.pods, &pods.classes, existing, templates, domain, options, /*existing_only=*/false);
}

SchedulingResults solve(std::vector<const k8s::Pod*> pods, std::vector<ExistingNode>& existing,
                        std::vector<NodeClaimTemplate>& templates, LabelDomain domain, const k8s::SchedulerOptions& options) {
  ExistingNodeVector nodes(existing);
  return solve(std::move(pods), nodes, templates, domain, options);
}

}  // namespace eksim::autoscaling::karpenter
