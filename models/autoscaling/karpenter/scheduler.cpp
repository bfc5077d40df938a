#include "models/autoscaling/karpenter/scheduler.hpp"

#include <algorithm>

#include "models/k8s/quantity.hpp"
#include "models/k8s/scheduling/predicates.hpp"

namespace eksim::autoscaling::karpenter {

namespace {

bool fits_in(const k8s::ResourceList& requests, const k8s::ResourceList& allocatable) {
  for (const auto& [name, amount] : requests.items())
    if (amount > allocatable.get(name)) return false;
  return true;
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

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
    return "no instance type met the requirements/resources/offering tuple";
  }
};

FilterResults filter_types(const std::vector<const InstanceTypeInfo*>& types, const Requirements& reqs,
                           const k8s::ResourceList& requests, bool check_requirements) {
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
  return r;
}

k8s::ResourceList max_allocatable(const std::vector<const InstanceTypeInfo*>& types) {
  k8s::ResourceList m;
  for (const auto* t : types) m.max_with(t->allocatable);
  return m;
}

// NodeClaim.Add. Returns "" on success (the claim is updated), else the reason.
std::string add_to_claim(PlannedNodeClaim& nc, const k8s::Pod& pod, const k8s::ResourceList& pod_requests,
                         const std::set<std::string>& well_known, bool quick_reject) {
  k8s::ResourceList requests = nc.requests;
  requests += pod_requests;
  if (quick_reject && !fits_in(requests, nc.max_allocatable)) return "no capacity";
  std::string err = tolerates(nc.tmpl->taints, pod.spec.tolerations);
  if (!err.empty()) return err;
  Requirements pod_reqs = Requirements::from_pod(pod);
  Requirements merged;
  const Requirements* reqs = &nc.requirements;
  if (!pod_reqs.empty()) {
    err = nc.requirements.compatible(pod_reqs, well_known);
    if (!err.empty()) return "incompatible requirements, " + err;
    merged = nc.requirements;
    merged.add(pod_reqs);
    reqs = &merged;
  }
  FilterResults f = filter_types(nc.options, *reqs, requests, !pod_reqs.empty());
  if (f.remaining.empty()) {
    k8s::ResourceList cumulative = nc.tmpl->daemon_overhead;
    cumulative += pod_requests;
    return "no instance type satisfied resources " + resources_string(cumulative) + " and requirements " + reqs->str() +
           " (" + f.failure_reason() + ")";
  }
  nc.pods.push_back(&pod);
  if (f.remaining.size() != nc.options.size()) nc.max_allocatable = max_allocatable(f.remaining);
  nc.options = std::move(f.remaining);
  nc.requests = std::move(requests);
  if (!pod_reqs.empty()) nc.requirements = std::move(merged);
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

void order_pods(std::vector<const k8s::Pod*>& pods) {
  struct Key {
    std::int64_t cpu, mem;
    const k8s::Pod* p;
  };
  std::vector<Key> keys;
  keys.reserve(pods.size());
  for (const auto* p : pods) {
    auto r = k8s::pod_requests(p->spec);
    keys.push_back(Key{r.get(k8s::kCpu), r.get(k8s::kMemory), p});
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.cpu != b.cpu) return a.cpu > b.cpu;
    if (a.mem != b.mem) return a.mem > b.mem;
    if (a.p->meta.creation_timestamp != b.p->meta.creation_timestamp)
      return a.p->meta.creation_timestamp < b.p->meta.creation_timestamp;
    if (a.p->meta.ns != b.p->meta.ns) return a.p->meta.ns < b.p->meta.ns;
    return a.p->meta.name < b.p->meta.name;
  });
  for (std::size_t i = 0; i < pods.size(); ++i) pods[i] = keys[i].p;
}

NodeClaimTemplate make_template(const NodePool& pool, const std::vector<InstanceTypeInfo>& types,
                                const std::vector<k8s::Pod>& daemon_pods, LabelDomain domain,
                                const std::map<std::string, std::int64_t>& usage) {
  NodeClaimTemplate t;
  t.pool = &pool;
  t.requirements = Requirements::from_node_selector(pool.requirements);
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
    if (!t.requirements.compatible(Requirements::from_pod(dp), wk).empty()) continue;
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

SchedulingResults solve(std::vector<const k8s::Pod*> pods, std::vector<ExistingNode>& existing,
                        std::vector<NodeClaimTemplate>& templates, LabelDomain domain, const k8s::SchedulerOptions& options) {
  SchedulingResults res;
  order_pods(pods);
  const auto& wk = well_known_labels(domain);
  // Initialized nodes first, then by name (calculateExistingNodeClaims).
  std::vector<std::size_t> order(existing.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (existing[a].initialized != existing[b].initialized) return existing[a].initialized;
    return existing[a].info.name() < existing[b].info.name();
  });
  const k8s::NodeInfoView no_cluster{};
  for (const k8s::Pod* pod : pods) {
    const k8s::ResourceList reqs = karpenter_requests(*pod);
    bool placed = false;
    for (std::size_t i : order) {
      if (k8s::fits(*pod, existing[i].info, no_cluster, options).ok()) {
        k8s::add_pod(existing[i].info, *pod);
        res.existing.emplace_back(pod, i);
        placed = true;
        break;
      }
    }
    if (placed) continue;
    std::stable_sort(res.new_claims.begin(), res.new_claims.end(),
                     [](const PlannedNodeClaim& a, const PlannedNodeClaim& b) { return a.pods.size() < b.pods.size(); });
    for (auto& nc : res.new_claims) {
      if (add_to_claim(nc, *pod, reqs, wk, /*quick_reject=*/true).empty()) {
        placed = true;
        break;
      }
    }
    if (placed) continue;
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
      nc.requirements = t.requirements;
      nc.options = std::move(types);
      nc.requests = t.daemon_overhead;
      nc.max_allocatable = max_allocatable(nc.options);
      std::string err = add_to_claim(nc, *pod, reqs, wk, /*quick_reject=*/false);
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
      res.new_claims.push_back(std::move(nc));
      placed = true;
      break;
    }
    if (!placed) res.errors.emplace_back(pod, join(errs, "; "));
  }
  return res;
}

}  // namespace eksim::autoscaling::karpenter
