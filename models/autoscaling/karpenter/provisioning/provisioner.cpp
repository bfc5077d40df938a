// Provisioner (pkg/controllers/provisioning/provisioner.go): pending pods and the pods of nodes
// being deleted, one scheduling simulation, NodeClaims and the pods' events. The templates it
// simulates with are in provisioning/templates.cpp.
#include "models/autoscaling/karpenter/provisioning/provisioner.hpp"

#include <algorithm>
#include <functional>

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

namespace {

// The events name pods by id; the scheduler answers with Pod pointers. `existing` and `errors`
// come in the order it took the pods, so a cursor walking the ordered pods finds each id.
struct InOrder {
  const OrderedPods& pods;
  const std::vector<k8s::PodId>& ids;
  std::size_t at = 0;
  k8s::PodId operator()(const k8s::Pod* pod) {
    while (pods.pods[at] != pod) ++at;  // every pod solve answers about was given to it
    return ids[at];
  }
};

}  // namespace

bool Provisioner::provisionable(const k8s::PodRecord& r) const {
  if (!unbound_pending(r)) return false;
  if (r.pod.spec.scheduler_name != "default-scheduler") return false;
  return !k8s::is_daemonset_pod(r.pod);
}

bool Provisioner::unbound_pending(const k8s::PodRecord& r) {
  if (r.deleted || r.terminating || r.node.valid() || !r.pod.spec.node_name.empty()) return false;
  return r.pod.status.phase == k8s::PodPhase::Pending;
}

PendingPods::Filter Provisioner::pending_filter() const {
  return {[this](const k8s::PodRecord& r) { return provisionable(r); }, &Provisioner::unbound_pending};
}

void Provisioner::pod_added(k8s::PodId id) {
  pending_.arrived(id);
  ++pending_version_;
  ctx_.batcher.trigger();
}

bool Provisioner::any_provisionable() { return pending_.any(ctx_.world.api, pending_filter()); }

bool Provisioner::memo_holds() {
  ProvisioningMemo& memo = memo_;
  if (!(memo.valid && memo.pending_version == pending_version_ && memo.state_version == ctx_.state.version &&
        memo.claims_version == ctx_.state.claims_version && template_set()->generation == memo.templates_generation))
    return false;
  if (ctx_.world.sim.now() >= memo.next_publish) {
    SimTime next{INT64_MAX};
    for (const PodEvent& e : memo.events) next = std::min(next, ctx_.recorder.publish(e));
    memo.next_publish = next;
  }
  return true;
}

// Nothing tells a user why pods stay Pending when Karpenter's own pods cannot schedule (the
// FailedScheduling is on the controller's pod, not theirs): eksim says so once per outage.
void Provisioner::hint_not_running() {
  const ControllerReplicas* replicas = ctx_.world.autoscaler_replicas.get();
  if (not_running_hinted_ || !replicas || !replicas->unschedulable_replica() || !any_provisionable()) return;
  not_running_hinted_ = true;
  auto& api = ctx_.world.api;
  const k8s::Deployment& d = api.deployments()[replicas->deployment()];
  const k8s::Pod& pod = api.pod(*replicas->unschedulable_replica()).pod;
  ctx_.world.hint("ControllerNotRunning", {"Deployment", d.meta.ns, d.meta.name},
                  "Karpenter provisions nothing while none of its controller pods runs: " + pod.meta.ns + "/" +
                      pod.meta.name + " is Pending (" + replicas->unschedulable_message() +
                      "); pending pods wait until a replica is scheduled and running");
}

void Provisioner::provision() {
  // The provisioner runs inside the controller pods: with none Running, pending pods wait (the
  // disruption poll triggers again once one runs).
  if (!ctx_.world.autoscaler_running()) {
    hint_not_running();
    return;
  }
  not_running_hinted_ = false;
  ++ctx_.state.pass;
  if (memo_holds()) return;
  auto& api = ctx_.world.api;
  state::Cluster& state = ctx_.state;
  memo_ = ProvisioningMemo{};
  memo_.pending_version = pending_version_;
  memo_.state_version = state.version;
  memo_.claims_version = state.claims_version;
  pending_.refresh(api, state.classes, pending_filter());
  // Provisioner.Schedule: the pending pods plus the pods still on nodes marked for deletion
  // (nodes.Deleting().CurrentlyReschedulablePods), so that their capacity is launched before they
  // are evicted. Their nodes are not capacity (the cluster state leaves them out).
  std::vector<k8s::PodId> deleting_ids;
  std::vector<k8s::Pod> deleting = state.deleting_node_pods(&deleting_ids);
  std::vector<k8s::PodId> pod_ids;
  const OrderedPods pods = pending_.ordered(api, state.classes, deleting, deleting_ids, pod_ids);
  std::shared_ptr<TemplateSet> set = pods.pods.empty() ? nullptr : template_set();
  // "no nodepools found": nothing to provision with.
  if (pods.pods.empty() || set->templates.empty()) {
    memo_.valid = deleting.empty() && set;
    if (set) memo_.templates_generation = set->generation;
    memo_.next_publish = SimTime{INT64_MAX};
    return;
  }
  memo_.templates_generation = set->generation;
  state::SimulationNodes existing(state.snapshot(), state.classes);
  k8s::SchedulerOptions opts;
  opts.version.minor = ctx_.world.spec().kubernetes_minor;
  SchedulingResults res = solve(pods, existing, set->templates, ctx_.settings.domain(), opts);
  ctx_.log.provisioning(pods, res);
  // Karpenter's event recorder dedupes per pod (Nominated and FailedScheduling carry the pod UID
  // as dedupe value; see Recorder).
  SimTime next = nominate_existing(pods, pod_ids, existing, res);
  launch_new_claims(pods, pod_ids, res);
  memo_.next_publish = std::min(next, fail_unschedulable(pods, pod_ids, res));
  // A pass that launched or nominated pods off deleting nodes changed what the next one sees.
  memo_.valid = res.new_claims.empty() && deleting.empty() && memo_.state_version == state.version;
  if (!memo_.valid) memo_.events.clear();
}

SimTime Provisioner::nominate_existing(const OrderedPods& pods, const std::vector<k8s::PodId>& ids,
                                       const ExistingNodes& existing, const SchedulingResults& res) {
  InOrder in_order{pods, ids};
  for (const auto& [pod, idx] : res.existing) {
    const ExistingNode& e = existing.base(idx);
    std::string where;
    if (!e.nodeclaim.empty()) where = "nodeclaim/" + e.nodeclaim;
    if (!e.node_name.empty()) where += (where.empty() ? "" : ", ") + std::string("node/") + e.node_name;
    memo_.events.push_back({in_order(pod), false, std::make_shared<const std::string>("Pod should schedule on: " + where)});
  }
  SimTime next{INT64_MAX};
  for (const PodEvent& e : memo_.events) next = std::min(next, ctx_.recorder.publish(e));
  return next;
}

void Provisioner::launch_new_claims(const OrderedPods& pods, const std::vector<k8s::PodId>& ids,
                                    const SchedulingResults& res) {
  // NodeClaims take pods from anywhere in the order: a pass that plans some looks their pods up
  // in one sorted vector (not a hash map node per pod: 100,000 pending pods).
  std::vector<std::pair<const k8s::Pod*, k8s::PodId>> by_address;
  if (!res.new_claims.empty()) {
    by_address.reserve(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) by_address.emplace_back(pods.pods[i], ids[i]);
    std::sort(by_address.begin(), by_address.end(),
              [](const auto& a, const auto& b) { return std::less<>{}(a.first, b.first); });
  }
  auto claimed_id = [&by_address](const k8s::Pod* pod) {
    auto it = std::lower_bound(by_address.begin(), by_address.end(), pod,
                               [](const auto& e, const k8s::Pod* p) { return std::less<>{}(e.first, p); });
    return it->second;
  };
  for (const auto& planned : res.new_claims) {
    int idx = lifecycle_.launch(planned, false);
    if (idx < 0) continue;
    auto text = std::make_shared<const std::string>("Pod should schedule on: nodeclaim/" + ctx_.state.node_claims[idx].name);
    for (const k8s::Pod* pod : planned.pods) ctx_.recorder.publish(PodEvent{claimed_id(pod), false, text});
  }
}

SimTime Provisioner::fail_unschedulable(const OrderedPods& pods, const std::vector<k8s::PodId>& ids,
                                        const SchedulingResults& res) {
  InOrder in_order{pods, ids};
  SimTime next{INT64_MAX};
  std::shared_ptr<const std::string> text;  // the last error's, reused while pods share it
  const std::string* text_of = nullptr;
  for (auto& [pod, err] : res.errors) {
    if (err->empty()) continue;
    if (text_of != err.get()) text = std::make_shared<const std::string>("Failed to schedule pod, " + *err);
    text_of = err.get();
    memo_.events.push_back({in_order(pod), true, text});
    next = std::min(next, ctx_.recorder.publish(memo_.events.back()));
  }
  return next;
}

}  // namespace eksim::autoscaling::karpenter
