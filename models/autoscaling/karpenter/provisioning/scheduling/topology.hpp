#pragma once
// Topology (provisioning/scheduling/topology.go) for the scheduler's simulation: internal to
// provisioning/scheduling (scheduler.cpp, nodeclaim.cpp).
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/autoscaling/karpenter/provisioning/scheduling/scheduler.hpp"
#include "models/k8s/scheduling/predicates.hpp"

namespace eksim::autoscaling::karpenter {

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

}  // namespace eksim::autoscaling::karpenter
