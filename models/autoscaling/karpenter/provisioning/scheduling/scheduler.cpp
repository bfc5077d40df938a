#include "models/autoscaling/karpenter/provisioning/scheduling/scheduler.hpp"
#include "models/autoscaling/karpenter/provisioning/scheduling/nodeclaim.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/k8s/api/quantity.hpp"
#include "models/k8s/scheduling/pod_classes.hpp"
#include "models/k8s/scheduling/predicates.hpp"
#include "sim/engine/saturating.hpp"

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
    for (const auto& c : spec.containers) total = engine::sat_add(total, c.requests.get(resource));
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


// Scheduler.Solve (scheduling/scheduler.go): each pod in Karpenter's order onto an existing node
// (addToExistingNode), else a NodeClaim planned earlier in this pass (addToInflightNode), else a
// new NodeClaim from the first template that takes it (addToNewNodeClaim).
class Scheduler {
 public:
  Scheduler(const std::vector<const k8s::Pod*>& pods, ExistingNodes& existing, std::vector<NodeClaimTemplate>& templates,
            LabelDomain domain, const k8s::SchedulerOptions& options)
      : existing_(existing), templates_(templates), wk_(well_known_labels(domain)), options_(options),
        topo_(pods, existing, templates) {}
  // `classes` (one per pod) when the caller keeps them, else existing.pod_class answers.
  // existing_only: stop at the first pod no existing node takes (SchedulingResults::stopped).
  SchedulingResults solve(const std::vector<const k8s::Pod*>& pods, const std::vector<std::uint32_t>* classes,
                          bool existing_only);

 private:
  bool add_to_existing_node(const k8s::Pod& pod);
  bool add_to_inflight_node(const k8s::Pod& pod, const k8s::ResourceList& reqs);
  bool add_to_new_node_claim(const k8s::Pod& pod, const k8s::ResourceList& reqs, std::vector<std::string>& errs);

  ExistingNodes& existing_;
  std::vector<NodeClaimTemplate>& templates_;
  const std::set<std::string>& wk_;
  const k8s::SchedulerOptions& options_;
  Topology topo_;
  SchedulingResults res_;
  std::size_t serial_ = 0;
  std::vector<std::size_t> claim_order_;  // res_.new_claims by fewest pods, stable
};

SchedulingResults Scheduler::solve(const std::vector<const k8s::Pod*>& pods, const std::vector<std::uint32_t>* classes,
                                   bool existing_only) {
  // A pod that finds no place changes nothing, so the next pod of its class finds none either,
  // with the same errors, until a pod is placed: 100,000 pending replicas past a NodePool's
  // limits cost one search, not 100,000.
  struct Failure {
    std::uint32_t pod_class;
    std::size_t placements, error;  // placements before it; its entry in res_.errors
  };
  std::optional<Failure> last_failure;
  std::size_t placements = 0;
  for (std::size_t at = 0; at < pods.size(); ++at) {
    const k8s::Pod* pod = pods[at];
    std::optional<std::uint32_t> pod_class;  // none while topology tracking is active
    if (!topo_.active() && !classes) pod_class = existing_.pod_class(*pod);
    if (!topo_.active() && classes && (*classes)[at] != kNoPodClass) pod_class = (*classes)[at];
    if (pod_class && last_failure && last_failure->pod_class == *pod_class && last_failure->placements == placements &&
        !existing_only) {
      res_.errors.emplace_back(pod, res_.errors[last_failure->error].second);
      continue;
    }
    if (add_to_existing_node(*pod)) {
      ++placements;
      continue;
    }
    if (existing_only) {
      res_.stopped = true;
      return std::move(res_);
    }
    const k8s::ResourceList reqs = karpenter_requests(*pod);
    std::vector<std::string> errs;
    if (add_to_inflight_node(*pod, reqs) || add_to_new_node_claim(*pod, reqs, errs)) {
      ++placements;
      continue;
    }
    if (pod_class) last_failure = Failure{*pod_class, placements, res_.errors.size()};
    res_.errors.emplace_back(pod, std::make_shared<const std::string>(fmt::format("{}", fmt::join(errs, "; "))));
  }
  in_claim_order(res_.new_claims, claim_order_);
  return std::move(res_);
}

bool Scheduler::add_to_existing_node(const k8s::Pod& pod) {
  // Without topology constraints the pod's class answers "the first node it fits"; with them
  // every node is checked against the counts.
  const bool constrained = topo_.constrains(pod);
  std::optional<std::size_t> hit;
  if (!constrained && existing_.first_fit(pod, options_, hit)) {
    if (!hit) return false;
    existing_.add_pod(*hit, pod);
    if (topo_.active()) {
      const k8s::NodeInfo& now = existing_.get(*hit).info;
      topo_.record(pod, now.node.meta.labels, now.name());
    }
    res_.existing.emplace_back(&pod, existing_.id(*hit));
    return true;
  }
  const k8s::NodeInfoView no_cluster{};
  for (std::size_t i = 0; i < existing_.size(); ++i) {
    if (existing_.excluded(i)) continue;
    const k8s::NodeInfo& info = existing_.get(i).info;
    if (constrained && !topo_.check_node(pod, info.node.meta.labels, info.name()).empty()) continue;
    if (k8s::fits(pod, info, no_cluster, options_).ok()) {
      existing_.add_pod(i, pod);
      const k8s::NodeInfo& now = existing_.get(i).info;
      if (topo_.active()) topo_.record(pod, now.node.meta.labels, now.name());
      res_.existing.emplace_back(&pod, existing_.id(i));
      return true;
    }
  }
  return false;
}

bool Scheduler::add_to_inflight_node(const k8s::Pod& pod, const k8s::ResourceList& reqs) {
  // addToInflightNode: "sort by fewest pods so we fill them evenly". Only the claim that took
  // the last pod (and any new one at the end) is out of place, so an insertion pass restores
  // the stable order in linear time, moving indices instead of claims.
  sort_by_fewest_pods(claim_order_, res_.new_claims);
  for (std::size_t i : claim_order_)
    if (add_to_claim(res_.new_claims[i], pod, reqs, wk_, /*quick_reject=*/true, topo_).empty()) return true;
  return false;
}

bool Scheduler::add_to_new_node_claim(const k8s::Pod& pod, const k8s::ResourceList& reqs, std::vector<std::string>& errs) {
  for (auto& t : templates_) {
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
    nc.serial = serial_;
    nc.requirements = t.requirements;
    nc.options = std::move(types);
    nc.requests = t.daemon_overhead;
    // The template's bound holds for any subset of its types (limits only take some away).
    nc.bound = t.bound;
    nc.bound_stale = false;
    std::string err = add_to_claim(nc, pod, reqs, wk_, /*quick_reject=*/false, topo_);
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
    claim_order_.push_back(res_.new_claims.size());
    res_.new_claims.push_back(std::move(nc));
    ++serial_;
    return true;
  }
  return false;
}

}  // namespace

SchedulingResults solve(std::vector<const k8s::Pod*> pods, ExistingNodes& existing,
                        std::vector<NodeClaimTemplate>& templates, LabelDomain domain, const k8s::SchedulerOptions& options,
                        bool existing_only) {
  order_pods(pods);
  return Scheduler(pods, existing, templates, domain, options).solve(pods, nullptr, existing_only);
}

SchedulingResults solve(const OrderedPods& pods, ExistingNodes& existing, std::vector<NodeClaimTemplate>& templates,
                        LabelDomain domain, const k8s::SchedulerOptions& options) {
  return Scheduler(pods.pods, existing, templates, domain, options).solve(pods.pods, &pods.classes, /*existing_only=*/false);
}

SchedulingResults solve(std::vector<const k8s::Pod*> pods, std::vector<ExistingNode>& existing,
                        std::vector<NodeClaimTemplate>& templates, LabelDomain domain, const k8s::SchedulerOptions& options) {
  ExistingNodeVector nodes(existing);
  return solve(std::move(pods), nodes, templates, domain, options);
}

}  // namespace eksim::autoscaling::karpenter
