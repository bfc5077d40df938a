#include "models/invariants/invariant_checker.hpp"

#include <algorithm>
#include <set>

#include "models/autoscaling/karpenter/controller.hpp"
#include "models/k8s/scheduling/predicates.hpp"

namespace eksim::invariants {

namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

bool finished(const k8s::PodRecord& r) {
  return r.pod.status.phase == k8s::PodPhase::Succeeded || r.pod.status.phase == k8s::PodPhase::Failed;
}

bool shut_down(const aws::Instance& i) {
  return !i.alive();
}

std::string pod_name(const k8s::PodRecord& r) { return "pod " + r.pod.meta.ns + "/" + r.pod.meta.name; }

std::string node_name(const k8s::NodeRecord& n) { return "node " + n.node.meta.name; }

template <class V, class T>
void grow(V& v, std::size_t n, const T& fill) {
  if (v.size() < n) v.resize(n, fill);
}

std::string wide_text(__int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  std::string out;
  for (; v != 0; v /= 10) out.insert(out.begin(), static_cast<char>('0' + (negative ? -(v % 10) : v % 10)));
  return negative ? "-" + out : out;
}

}  // namespace

__int128 WideRequests::get(k8s::ResourceId id) const {
  for (const auto& [rid, v] : amounts)
    if (rid == id) return v;
  return 0;
}

void WideRequests::add(k8s::ResourceId id, __int128 v) {
  for (auto& [rid, have] : amounts)
    if (rid == id) {
      have += v;
      return;
    }
  amounts.emplace_back(id, v);
}

void WideRequests::max_with(k8s::ResourceId id, __int128 v) {
  for (auto& [rid, have] : amounts)
    if (rid == id) {
      have = std::max(have, v);
      return;
    }
  amounts.emplace_back(id, v);
}

WideRequests wide_pod_requests(const k8s::PodSpec& spec) {
  // Each container's amount is an int64 checked when it was read; at most 2^32 of them fit
  // far inside 128 bits.
  WideRequests out;
  for (const auto& c : spec.containers)
    for (const auto& e : c.requests) out.add(e.id, e.amount);
  for (const auto& c : spec.init_containers)
    for (const auto& e : c.requests) out.max_with(e.id, e.amount);
  return out;
}

Violation::Violation(engine::SimTime t, const std::string& what)
    : std::runtime_error("eksim: invariant violated at " + engine::format_clock(t) + ": " + what), at(t) {}

InvariantChecker::InvariantChecker(Cluster& c) : c_(c) {
  c_.api.on_pod_bound.push_back([this](k8s::PodId p) { on_bound(p); });
  c_.api.on_pod_phase.push_back([this](k8s::PodId p) {
    if (finished(c_.api.pod(p))) uncount(p);
  });
  c_.api.on_pod_deleted.push_back([this](k8s::PodId p) {
    uncount(p);
    if (p.v < bound_to_.size()) bound_to_[p.v] = kNone;
    dirty_pods_.push_back(p);
  });
  if (c_.scheduler) c_.scheduler->on_scheduled.push_back([this](k8s::PodId p, k8s::NodeId n) { on_scheduled(p, n); });
  c_.ec2.on_terminated.push_back([this](aws::Instance& i) {
    shut_down_at_[i.id] = c_.sim.now();
    terminated_now_.push_back(i.id);
    if (auto it = in_use_.find(i.id); it != in_use_.end()) {
      vcpus_in_use_[{i.type->quota_bucket, i.spot}] -= it->second;
      in_use_.erase(it);
    }
  });
  c_.sim.set_after_event([this] { after_event(); });
}

void InvariantChecker::fail(const std::string& what) const { throw Violation(c_.sim.now(), what); }

void InvariantChecker::check_clock(engine::SimTime now) {
  if (now < last_time_)
    fail("simulated time went back from " + engine::format_clock(last_time_) + " to " + engine::format_clock(now));
  last_time_ = now;
}

// --- pods and nodes ---------------------------------------------------------------------------

void InvariantChecker::on_bound(k8s::PodId p) {
  const k8s::PodRecord& r = c_.api.pod(p);
  grow(bound_to_, p.v + 1, kNone);
  if (bound_to_[p.v] != kNone && bound_to_[p.v] != r.node.v)
    fail(pod_name(r) + " was bound to " + node_name(c_.api.node(r.node)) + " while bound to " +
         node_name(c_.api.node(k8s::NodeId{bound_to_[p.v]})));
  if (bound_to_[p.v] == r.node.v) fail(pod_name(r) + " was bound twice to " + node_name(c_.api.node(r.node)));
  bound_to_[p.v] = r.node.v;
  if (c_.api.node_deleted(r.node)) fail(pod_name(r) + " was bound to deleted " + node_name(c_.api.node(r.node)));
  dirty_pods_.push_back(p);
  if (finished(r) || r.deleted) return;
  grow(requested_, c_.api.node_slots(), WideRequests{});
  grow(counted_pods_, c_.api.node_slots(), std::int64_t{0});
  WideRequests req = wide_pod_requests(r.pod.spec);
  for (const auto& [id, v] : req.amounts) requested_[r.node.v].add(id, v);
  ++counted_pods_[r.node.v];
  counted_[p.v] = std::move(req);
}

void InvariantChecker::uncount(k8s::PodId p) {
  auto it = counted_.find(p.v);
  if (it == counted_.end()) return;
  const std::uint32_t n = bound_to_[p.v];
  for (const auto& [id, v] : it->second.amounts) requested_[n].add(id, -v);
  --counted_pods_[n];
  counted_.erase(it);
}

void InvariantChecker::on_scheduled(k8s::PodId p, k8s::NodeId n) {
  const k8s::PodRecord& r = c_.api.pod(p);
  const k8s::NodeRecord& node = c_.api.node(n);
  // TaintToleration and NodeUnschedulable, as the scheduler's filters see the node at the bind.
  if (auto t = k8s::find_untolerated_taint(node.node.taints, r.pod.spec.tolerations))
    fail("the scheduler bound " + pod_name(r) + " to " + node_name(node) + " whose taint {" + t->key +
         (t->value.empty() ? "" : "=" + t->value) + ":" + t->effect + "} it does not tolerate");
  static const k8s::Taint kUnschedulable{"node.kubernetes.io/unschedulable", "", k8s::kNoSchedule};
  if (node.node.unschedulable && !k8s::tolerations_tolerate_taint(r.pod.spec.tolerations, kUnschedulable))
    fail("the scheduler bound " + pod_name(r) + " to cordoned " + node_name(node));
  // NodeResourcesFit: every resource the pod requests, and the pod count. The node's other pods
  // only: the kubelet may already have rejected this one (OutOfcpu) inside the bind.
  grow(requested_, c_.api.node_slots(), WideRequests{});
  grow(counted_pods_, c_.api.node_slots(), std::int64_t{0});
  const bool counted = counted_.count(p.v) > 0;
  for (const auto& [id, amount] : wide_pod_requests(r.pod.spec).amounts) {
    if (amount <= 0) continue;
    const __int128 used = requested_[n.v].get(id) + (counted ? 0 : amount);
    const std::int64_t alloc = node.node.allocatable.get(id);
    if (used > alloc)
      fail("the scheduler bound " + pod_name(r) + " to " + node_name(node) + ": its pods request " +
           wide_text(used) + " " + k8s::resource_name(id) + ", allocatable is " + std::to_string(alloc));
  }
  const std::int64_t pods = counted_pods_[n.v] + (counted ? 0 : 1);
  const std::int64_t max_pods = node.node.allocatable.get(k8s::kPods);
  if (pods > max_pods)
    fail("the scheduler bound " + pod_name(r) + " to " + node_name(node) + ": " + std::to_string(pods) +
         " pods, allocatable pods is " + std::to_string(max_pods));
}

void InvariantChecker::check_pod_in_node_list(k8s::PodId p) {
  const k8s::PodRecord& r = c_.api.pod(p);
  if (!r.node.valid()) return;
  const k8s::NodeRecord& node = c_.api.node(r.node);
  const auto n = std::count(node.pods.begin(), node.pods.end(), p);
  if (r.deleted) {
    if (n != 0) fail(pod_name(r) + " was removed from the API but is still listed on " + node_name(node));
    return;
  }
  if (node.deleted) return;  // the node's removal takes its pods with it (pod GC)
  if (n != 1)
    fail(pod_name(r) + " is bound to " + node_name(node) + ", which lists it " + std::to_string(n) + " times");
  if (r.pod.spec.node_name != node.node.meta.name)
    fail(pod_name(r) + " is bound to " + node_name(node) + " but its nodeName is \"" + r.pod.spec.node_name + "\"");
}

// --- instances --------------------------------------------------------------------------------

void InvariantChecker::check_new_instances() {
  const auto& all = c_.ec2.instances();
  for (; instances_seen_ < all.size(); ++instances_seen_) {
    const aws::Instance& i = all[instances_seen_];
    if (shut_down(i)) continue;  // launched and terminated within the event
    const std::pair<std::string, bool> bucket{i.type->quota_bucket, i.spot};
    in_use_[i.id] = i.type->vcpu;
    const std::int64_t used = vcpus_in_use_[bucket] += i.type->vcpu;
    // An instance the account already ran at the start is never refused (adopt_running_instance).
    const bool adopted = i.running_at && *i.running_at == i.launched_at;
    if (adopted) continue;
    if (auto quota = c_.ec2.quotas().quota(i.type->quota_bucket, i.spot); quota && used > *quota)
      fail("EC2 accepted " + i.id + " (" + i.type->name + (i.spot ? ", spot" : "") + "): pending and running " +
           i.type->quota_bucket + " instances hold " + std::to_string(used) + " vCPUs, the quota is " +
           std::to_string(*quota));
  }
}

void InvariantChecker::check_instance_billing(const aws::Instance& i, engine::SimTime shutting_down_at) const {
  if (!shut_down(i)) fail(i.id + " began shutting down but is " + aws::to_string(i.state));
  if (!i.terminated_at)
    fail(i.id + " began shutting down at " + engine::format_clock(shutting_down_at) + " but is still billed");
  if (*i.terminated_at > shutting_down_at)
    fail(i.id + " is billed until " + engine::format_clock(*i.terminated_at) + ", after it began shutting down at " +
         engine::format_clock(shutting_down_at));
  if (*i.terminated_at < i.launched_at) fail(i.id + " was terminated before it was launched");
}

// --- every event ------------------------------------------------------------------------------

void InvariantChecker::after_event() {
  check_clock(c_.sim.now());
  for (k8s::PodId p : dirty_pods_) check_pod_in_node_list(p);
  dirty_pods_.clear();
  check_new_instances();
  for (const std::string& id : terminated_now_) {
    const aws::Instance* i = c_.ec2.find(id);
    if (!i) fail("terminated instance " + id + " is not in EC2");
    check_instance_billing(*i, shut_down_at_.at(id));
    if (auto node = c_.node_of_instance(id); node && !c_.api.node_deleted(*node))
      fail(node_name(c_.api.node(*node)) + " is still in the API after its instance " + id + " began shutting down");
  }
  terminated_now_.clear();
  if (++events_since_sweep_ >= sweep_every_) sweep();
}

// --- the sweep --------------------------------------------------------------------------------

void InvariantChecker::sweep() {
  events_since_sweep_ = 0;
  ++sweeps_;
  sweep_nodes_and_pods();
  sweep_instances();
  sweep_node_claims();
  // The next sweep after at least as many events as this one visited objects.
  sweep_every_ = std::max<std::uint64_t>(4096, c_.api.node_slots() + c_.api.live_pods().size() + c_.ec2.instances().size());
}

void InvariantChecker::sweep_nodes_and_pods() {
  std::set<std::uint32_t> listed;
  for (std::size_t i = 0; i < c_.api.node_slots(); ++i) {
    const k8s::NodeId id{static_cast<std::uint32_t>(i)};
    if (c_.api.node_deleted(id)) continue;
    const k8s::NodeRecord& node = c_.api.node(id);
    for (k8s::PodId p : node.pods) {
      const k8s::PodRecord& r = c_.api.pod(p);
      if (!listed.insert(p.v).second) fail(pod_name(r) + " is listed on two nodes (or twice on " + node_name(node) + ")");
      if (r.deleted) fail(node_name(node) + " lists " + pod_name(r) + ", which was removed from the API");
      if (r.node != id) fail(node_name(node) + " lists " + pod_name(r) + ", which is bound elsewhere");
      if (r.pod.spec.node_name != node.node.meta.name)
        fail(node_name(node) + " lists " + pod_name(r) + " whose nodeName is \"" + r.pod.spec.node_name + "\"");
    }
    if (!node.instance_id.empty()) {
      const aws::Instance* inst = c_.ec2.find(node.instance_id);
      if (!inst) fail(node_name(node) + " is backed by instance " + node.instance_id + ", which EC2 does not know");
      if (shut_down(*inst))
        fail(node_name(node) + " is still in the API, its instance " + inst->id + " is " + aws::to_string(inst->state));
    }
  }
  for (const auto& [key, p] : c_.api.live_pods()) {
    const k8s::PodRecord& r = c_.api.pod(p);
    if (r.node.valid() && !c_.api.node_deleted(r.node) && !listed.count(p.v))
      fail(pod_name(r) + " is bound to " + node_name(c_.api.node(r.node)) + ", which does not list it");
  }
}

void InvariantChecker::sweep_instances() {
  std::map<std::pair<std::string, bool>, std::int64_t> in_use;
  for (const aws::Instance& i : c_.ec2.instances()) {
    if (!shut_down(i)) {
      in_use[{i.type->quota_bucket, i.spot}] += i.type->vcpu;
      if (i.terminated_at) fail(i.id + " is " + aws::to_string(i.state) + " but has a termination time (billing stopped)");
      continue;
    }
    auto at = shut_down_at_.find(i.id);
    check_instance_billing(i, at == shut_down_at_.end() ? *i.terminated_at : at->second);
  }
  // EC2's quota ledger (what refuses launches) must count exactly the pending and running ones.
  for (const auto& line : c_.ec2.quotas().lines()) {
    auto it = in_use.find({line.bucket, line.spot});
    const std::int64_t counted = it == in_use.end() ? 0 : it->second;
    if (line.usage != counted)
      fail("EC2's " + line.bucket + (line.spot ? " spot" : "") + " vCPU usage is " + std::to_string(line.usage) +
           ", its pending and running instances hold " + std::to_string(counted));
  }
}

std::string node_claims_problem(const std::vector<autoscaling::karpenter::NodeClaimState>& claims, const Cluster& c) {
  std::map<std::string, const autoscaling::karpenter::NodeClaimState*> by_instance;
  for (const auto& claim : claims) {
    if (claim.phase == autoscaling::karpenter::NodeClaimPhase::Deleted || claim.instance_id.empty()) continue;
    const std::string who = "NodeClaim " + claim.name;
    const aws::Instance* inst = c.ec2.find(claim.instance_id);
    if (!inst) return who + " points at instance " + claim.instance_id + ", which EC2 does not know";
    auto [it, fresh] = by_instance.emplace(claim.instance_id, &claim);
    if (!fresh) return who + " and NodeClaim " + it->second->name + " both hold instance " + claim.instance_id;
    if (claim.node_name.empty()) continue;
    auto node = c.api.find_node(claim.node_name);
    if (node && c.api.node(*node).instance_id != claim.instance_id)
      return who + " (instance " + claim.instance_id + ") names node " + claim.node_name + ", backed by instance " +
             c.api.node(*node).instance_id;
  }
  return {};
}

void InvariantChecker::sweep_node_claims() {
  const autoscaling::karpenter::Controller* karpenter = c_.controllers.karpenter.get();
  if (!karpenter) return;
  if (std::string problem = node_claims_problem(karpenter->node_claims(), c_); !problem.empty()) fail(problem);
}

}  // namespace eksim::invariants
