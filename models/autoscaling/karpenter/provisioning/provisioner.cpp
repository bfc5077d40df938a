// Provisioner (pkg/controllers/provisioning/provisioner.go): pending pods and the pods of nodes
// being deleted, NodeClaimTemplates from the NodePools, one scheduling simulation, NodeClaims.
#include "models/autoscaling/karpenter/controller.hpp"

#include <algorithm>
#include <functional>

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

std::vector<InstanceTypeInfo>& Controller::instance_types_for(const NodeClass& nc) {
  auto it = types_by_class_.find(nc.name);
  if (it == types_by_class_.end()) {
    InstanceTypeOptions opts;
    opts.region = c_.spec().region;
    opts.prices = &c_.prices();
    opts.domain = domain();
    opts.vm_memory_overhead_percent = settings_.vm_memory_overhead_percent;
    opts.reserved_enis = settings_.reserved_enis;
    std::vector<std::string> zones;
    for (const auto& id : nc.subnet_ids)
      if (const aws::Subnet* s = c_.ec2.subnet(id))
        if (std::find(zones.begin(), zones.end(), s->az) == zones.end()) zones.push_back(s->az);
    std::sort(zones.begin(), zones.end());
    opts.zones = zones;
    std::vector<InstanceTypeInfo> types;
    // Types without an On-Demand price in the region have no offerings and can never launch
    // there (the pricing provider has nothing to offer): leave them out of every pass rather
    // than filter them again for each pod.
    std::vector<std::string> user_priced;
    for (const auto& p : c_.spec().pricing.prices)
      if (p.region == opts.region && !p.spot) user_priced.push_back(p.instance_type);
    for (const aws::InstanceType* t : c_.catalog().priced_in(opts.region, user_priced))
      types.push_back(build_instance_type(*t, opts, nc));
    it = types_by_class_.emplace(nc.name, std::move(types)).first;
  }
  ice_.apply(it->second, c_.sim.now());
  return it->second;
}


bool Controller::provisionable(const k8s::PodRecord& r) const {
  if (!unbound_pending(r)) return false;
  if (r.pod.spec.scheduler_name != "default-scheduler") return false;
  return !k8s::is_daemonset_pod(r.pod);
}

bool Controller::unbound_pending(const k8s::PodRecord& r) {
  if (r.deleted || r.terminating || r.node.valid() || !r.pod.spec.node_name.empty()) return false;
  return r.pod.status.phase == k8s::PodPhase::Pending;
}

PendingPods::Filter Controller::pending_filter() const {
  return {[this](const k8s::PodRecord& r) { return provisionable(r); }, &Controller::unbound_pending};
}

bool Controller::marked_for_deletion(std::uint32_t node_id) {
  const k8s::NodeRecord& rec = c_.api.node(k8s::NodeId{node_id});
  if (rec.deleted) return false;
  if (has_taint(rec.node.taints, kTaintDisrupted)) return true;
  const NodeClaimState* c = claim_of_node(node_id);
  return c && c->phase == NodeClaimPhase::Deleting;
}

const std::set<std::uint32_t>& Controller::marked_nodes() {
  // maybe_marked_ holds every node that could be marked (see its writers); the ones that are not
  // now are dropped, as only a taint or a NodeClaim deleting puts them back.
  for (auto it = maybe_marked_.begin(); it != maybe_marked_.end();)
    it = marked_for_deletion(*it) ? std::next(it) : maybe_marked_.erase(it);
  return maybe_marked_;
}

std::vector<k8s::Pod> Controller::deleting_node_pods(std::vector<k8s::PodId>* ids) {
  // pod.IsReschedulable: active (not terminal, not terminating) and not a DaemonSet's. (Terminating
  // StatefulSet pods count too upstream; eksim has no StatefulSets.)
  std::vector<k8s::Pod> out;
  auto& api = c_.api;
  for (std::uint32_t i : marked_nodes())
    for (k8s::PodId p : api.node(k8s::NodeId{i}).pods)
      if (reschedulable(api.pod(p))) {
        out.push_back(unbound(api.pod(p).pod));
        if (ids) ids->push_back(p);
      }
  return out;
}

bool Controller::any_deleting_node_pods() {
  auto& api = c_.api;
  for (std::uint32_t i : marked_nodes())
    for (k8s::PodId p : api.node(k8s::NodeId{i}).pods)
      if (reschedulable(api.pod(p))) return true;
  return false;
}

bool Controller::any_provisionable() {
  return pending_.any(c_.api, pending_filter());
}

std::vector<k8s::Pod> Controller::daemon_pods() const {
  std::vector<k8s::Pod> out;
  for (auto& ds : c_.api.daemon_sets()) {
    if (ds.deleted) continue;
    k8s::Pod p;
    p.meta.name = ds.meta.name;
    p.meta.ns = ds.meta.ns;
    p.meta.labels = ds.tmpl.meta.labels;
    p.spec = ds.tmpl.spec;
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<NodeClaimTemplate> Controller::templates(std::vector<k8s::Pod>& daemons) {
  std::vector<const NodePool*> order;
  for (const auto& [n, p] : pools_) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(), [](const NodePool* a, const NodePool* b) { return a->weight > b->weight; });
  std::vector<NodeClaimTemplate> out;
  for (const NodePool* p : order) {
    // NewScheduler: "ignoring nodepool, not ready" (its NodeClass missing or not Ready).
    if (!p->ready()) continue;
    auto nc = classes_.find(p->node_class_name);
    if (nc == classes_.end() || nc->second.kind != p->node_class_kind) continue;
    std::map<std::string, std::int64_t> usage;
    for (std::size_t i : live_claims()) {
      const NodeClaimState& c = claims_[i];
      if (c.node_pool != p->name) continue;
      for (const auto& [r, v] : c.capacity.items()) usage[r] += v;
    }
    out.push_back(make_template(*p, instance_types_for(nc->second), daemons, domain(), usage));
  }
  return out;
}

std::string Controller::template_signature() {
  std::string sig = std::to_string(config_version_) + "|" + std::to_string(ice_.marks()) + "|" +
                    std::to_string(ice_.size(c_.sim.now())) + "|";
  bool limits = false;
  for (const auto& [n, p] : pools_) limits |= !p.limits.empty();
  if (limits) sig += std::to_string(claims_version_);
  sig += "|";
  return sig + daemon_signature();
}

std::string Controller::daemon_signature() {
  // A DaemonSet is applied once and then only marked deleted (DaemonSetController), so which
  // ones are live says whether their pods changed; recomputing the classes took a copy of every
  // DaemonSet pod on every disruption pass.
  std::vector<bool> live;
  for (const auto& ds : c_.api.daemon_sets()) live.push_back(!ds.deleted);
  if (daemon_signature_ && daemon_signature_->first == live) return daemon_signature_->second;
  // make_template reads a DaemonSet pod's tolerations, nodeSelector, required node affinity and
  // requests: the class key of its pod covers exactly these.
  std::string sig;
  for (const auto& dp : daemon_pods()) {
    k8s::Pod p = dp;
    p.spec.topology_spread_constraints.clear();
    p.spec.affinity.pod_affinity_required.clear();
    p.spec.affinity.pod_anti_affinity_required.clear();
    for (auto* cs : {&p.spec.init_containers, &p.spec.containers})
      for (auto& c : cs->mut()) c.ports.clear();
    sig += std::to_string(*state_.classes.of(p)) + ",";
  }
  daemon_signature_.emplace(std::move(live), sig);
  return sig;
}

std::shared_ptr<Controller::TemplateSet> Controller::template_set() {
  // Rebuilt when what they are built from changed (template_signature).
  if (templates_pass_ != pass_ || pass_ == 0) {
    templates_pass_ = pass_;
    std::string sig = template_signature();
    if (!templates_ || sig != templates_signature_) {
      templates_ = std::make_shared<TemplateSet>();
      templates_->daemons = daemon_pods();
      templates_->templates = templates(templates_->daemons);
      templates_->generation = ++templates_generation_;
      templates_signature_ = std::move(sig);
    }
  } else if (templates_version_ != state_.version) {
    std::string sig = template_signature();
    if (sig != templates_signature_) {
      templates_ = std::make_shared<TemplateSet>();
      templates_->daemons = daemon_pods();
      templates_->templates = templates(templates_->daemons);
      templates_->generation = ++templates_generation_;
      templates_signature_ = std::move(sig);
    }
  }
  templates_version_ = state_.version;
  return templates_;
}

void Controller::republish(ProvisioningMemo& memo) {
  SimTime next{INT64_MAX};
  for (const PodEvent& e : memo.events) next = std::min(next, pod_event(e));
  memo.next_publish = next;
}

void Controller::provision() {
  // The provisioner runs inside the controller pods: with none Running, pending pods wait (the
  // disruption poll triggers again once one runs).
  if (!c_.autoscaler_running()) return;
  ++pass_;
  auto& api = c_.api;
  ProvisioningMemo& memo = provisioning_memo_;
  if (memo.valid && memo.pending_version == pending_version_ && memo.state_version == state_.version &&
      memo.claims_version == claims_version_ && template_set()->generation == memo.templates_generation) {
    if (c_.sim.now() >= memo.next_publish) republish(memo);
    return;
  }
  memo = ProvisioningMemo{};
  memo.pending_version = pending_version_;
  memo.state_version = state_.version;
  memo.claims_version = claims_version_;
  pending_.refresh(api, state_.classes, pending_filter());
  // Provisioner.Schedule: the pending pods plus the pods still on nodes marked for deletion
  // (nodes.Deleting().CurrentlyReschedulablePods), so that their capacity is launched before they
  // are evicted. Their nodes are not capacity (the cluster state leaves them out).
  std::vector<k8s::PodId> deleting_ids;
  std::vector<k8s::Pod> deleting = deleting_node_pods(&deleting_ids);
  std::vector<k8s::PodId> pod_ids;
  const OrderedPods pods = pending_.ordered(api, state_.classes, deleting, deleting_ids, pod_ids);
  // The events name pods by id; the scheduler answers with Pod pointers. `existing` and `errors`
  // come in the order it took the pods, so a cursor walking the ordered pods finds each id.
  auto in_order = [&](std::size_t& at, const k8s::Pod* pod) {
    while (pods.pods[at] != pod) ++at;  // every pod solve answers about was given to it
    return pod_ids[at];
  };
  std::shared_ptr<TemplateSet> set = pods.pods.empty() ? nullptr : template_set();
  // "no nodepools found": nothing to provision with.
  if (pods.pods.empty() || set->templates.empty()) {
    memo.valid = deleting.empty() && set;
    if (set) memo.templates_generation = set->generation;
    memo.next_publish = SimTime{INT64_MAX};
    return;
  }
  std::vector<NodeClaimTemplate>& tmpls = set->templates;
  memo.templates_generation = set->generation;
  state::SimulationNodes existing(snapshot(), state_.classes);
  k8s::SchedulerOptions opts;
  opts.version.minor = c_.spec().kubernetes_minor;
  SchedulingResults res = solve(pods, existing, tmpls, domain(), opts);
  log_provisioning(pods, res);
  // Karpenter's event recorder dedupes per pod (Nominated and FailedScheduling carry the pod UID
  // as dedupe value; see pod_event).
  std::size_t at = 0;
  for (const auto& [pod, idx] : res.existing) {
    const ExistingNode& e = existing.base(idx);
    std::string where;
    if (!e.nodeclaim.empty()) where = "nodeclaim/" + e.nodeclaim;
    if (!e.node_name.empty()) where += (where.empty() ? "" : ", ") + std::string("node/") + e.node_name;
    memo.events.push_back({in_order(at, pod), false, std::make_shared<const std::string>("Pod should schedule on: " + where)});
  }
  SimTime next{INT64_MAX};
  for (const PodEvent& e : memo.events) next = std::min(next, pod_event(e));
  // NodeClaims take pods from anywhere in the order: a pass that plans some looks their pods up
  // in one sorted vector (not a hash map node per pod: 100,000 pending pods).
  std::vector<std::pair<const k8s::Pod*, k8s::PodId>> by_address;
  if (!res.new_claims.empty()) {
    by_address.reserve(pod_ids.size());
    for (std::size_t i = 0; i < pod_ids.size(); ++i) by_address.emplace_back(pods.pods[i], pod_ids[i]);
    std::sort(by_address.begin(), by_address.end(),
              [](const auto& a, const auto& b) { return std::less<>{}(a.first, b.first); });
  }
  auto claimed_id = [&by_address](const k8s::Pod* pod) {
    auto it = std::lower_bound(by_address.begin(), by_address.end(), pod,
                               [](const auto& e, const k8s::Pod* p) { return std::less<>{}(e.first, p); });
    return it->second;
  };
  for (const auto& planned : res.new_claims) {
    int idx = launch(planned, false);
    if (idx < 0) continue;
    auto text = std::make_shared<const std::string>("Pod should schedule on: nodeclaim/" + claims_[idx].name);
    for (const k8s::Pod* pod : planned.pods) pod_event({claimed_id(pod), false, text});
  }
  std::shared_ptr<const std::string> text;  // the last error's, reused while pods share it
  const std::string* text_of = nullptr;
  at = 0;
  for (auto& [pod, err] : res.errors) {
    if (err->empty()) continue;
    if (text_of != err.get()) text = std::make_shared<const std::string>("Failed to schedule pod, " + *err);
    text_of = err.get();
    memo.events.push_back({in_order(at, pod), true, text});
    next = std::min(next, pod_event(memo.events.back()));
  }
  memo.next_publish = next;
  // A pass that launched or nominated pods off deleting nodes changed what the next one sees.
  memo.valid = res.new_claims.empty() && deleting.empty() && memo.state_version == state_.version;
  if (!memo.valid) memo.events.clear();
}

}  // namespace eksim::autoscaling::karpenter
