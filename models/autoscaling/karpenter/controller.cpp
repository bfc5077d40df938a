// The Karpenter controller: settings, wiring to the cluster's notification bus, NodePool and
// NodeClass objects, events. The controllers it runs live in files named as upstream's
// (kubernetes-sigs/karpenter pkg/controllers, karpenter-provider-aws pkg/controllers):
//   provisioning/batcher.cpp, provisioning/provisioner.cpp, provisioning/scheduling/
//   nodeclaim/lifecycle/{launch,registration,initialization,liveness}.cpp
//   nodeclaim/garbagecollection/controller.cpp, node/termination/terminator.cpp
//   disruption/{controller,budgets,drift,helpers,consolidation,multinodeconsolidation}.cpp
//   interruption/controller.cpp (karpenter-provider-aws), state/cluster.cpp
#include "models/autoscaling/karpenter/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"
#include "sim/engine/numbers.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

namespace {

NodePool auto_mode_pool(const std::string& name, bool system) {
  // EKS Auto Mode built-in NodePools (docs.aws.amazon.com/eks/latest/userguide/set-builtin-node-pools.html):
  // on-demand C/M/R of generation > 4, expireAfter 336h, 10% budget.
  NodePool p;
  p.name = name;
  p.built_in = true;
  p.node_class_group = "eks.amazonaws.com";
  p.node_class_kind = "NodeClass";
  p.node_class_name = "default";
  p.requirements = {{kLabelCapacityType, "In", {"on-demand"}},
                    {"eks.amazonaws.com/instance-category", "In", {"c", "m", "r"}},
                    {"eks.amazonaws.com/instance-generation", "Gt", {"4"}},
                    {k8s::kLabelArch, "In", system ? std::vector<std::string>{"amd64", "arm64"} : std::vector<std::string>{"amd64"}},
                    {k8s::kLabelOs, "In", {"linux"}}};
  if (system) p.taints.push_back(k8s::Taint{"CriticalAddonsOnly", "", k8s::kNoSchedule});
  p.expire_after = Duration::hours(336);
  p.consolidate_after = Duration::seconds(30);
  return p;
}


}  // namespace

const char* to_string(NodeClaimPhase p) {
  switch (p) {
    case NodeClaimPhase::Launched: return "Launched";
    case NodeClaimPhase::Registered: return "Registered";
    case NodeClaimPhase::Initialized: return "Initialized";
    case NodeClaimPhase::Deleting: return "Deleting";
    case NodeClaimPhase::Deleted: return "Deleted";
  }
  return "";
}

Settings settings_from_flags(const std::map<std::string, std::string>& flags, bool auto_mode) {
  Settings s;
  s.auto_mode = auto_mode;
  if (auto it = flags.find("batch-idle-duration"); it != flags.end())
    if (auto d = engine::parse_duration(it->second)) s.batch_idle = *d;
  if (auto it = flags.find("batch-max-duration"); it != flags.end())
    if (auto d = engine::parse_duration(it->second)) s.batch_max = *d;
  if (auto it = flags.find("vm-memory-overhead-percent"); it != flags.end()) s.vm_memory_overhead_percent = engine::parse_real(it->second).value;
  if (auto it = flags.find("version"); it != flags.end()) s.version = it->second;
  if (auto it = flags.find("reserved-enis"); it != flags.end()) s.reserved_enis = engine::parse_integer<int>(it->second).value;
  if (auto it = flags.find("interruption-queue"); it != flags.end()) s.interruption_queue = it->second;
  if (auto it = flags.find("feature-gates"); it != flags.end())
    s.spot_to_spot_consolidation = it->second.find("SpotToSpotConsolidation=true") != std::string::npos;
  return s;
}

Controller::Controller(Cluster& cluster, Settings settings) : c_(cluster), settings_(std::move(settings)) {
  if (settings_.auto_mode) {
    NodeClass nc;
    nc.kind = "NodeClass";
    nc.name = "default";
    reconcile_node_class(nc, c_.ec2, c_.security_groups, c_.sim.now());
    classes_["default"] = nc;
    for (const char* name : {"system", "general-purpose"}) {
      NodePool p = auto_mode_pool(name, std::string(name) == "system");
      reconcile_node_pool_readiness(p, &classes_["default"], c_.sim.now());
      pools_[name] = std::move(p);
    }
  }
  // Events pass client-go's broadcaster (a queue of 1000) and Karpenter's kube client limits
  // (--kube-client-qps 200, --kube-client-burst 300). Auto Mode runs the same controllers; AWS
  // publishes no settings of its own for them.
  c_.log.limit_sink(source(), engine::SinkLimits{200, 300, 1000});
  auto& api = c_.api;
  // Pod and node notifications also keep the cluster state (state/cluster.cpp) current.
  api.on_pod_added.push_back([this](k8s::PodId id) {
    pending_.arrived(id);
    ++pending_version_;
    trigger();
  });
  // A pending pod's labels can change what a scheduling simulation plans (topology spread).
  api.on_pod_updated.push_back([this](k8s::PodId) { ++pending_version_; });
  api.on_pod_bound.push_back([this](k8s::PodId id) {
    state_changed(c_.api.pod(id).node);
    on_pod_moved(c_.api.pod(id).node);
  });
  api.on_pod_phase.push_back([this](k8s::PodId id) {
    const auto& r = c_.api.pod(id);
    state_changed(r.node);
    if (r.pod.status.phase == k8s::PodPhase::Succeeded || r.pod.status.phase == k8s::PodPhase::Failed) on_pod_moved(r.node);
  });
  api.on_pod_terminating.push_back([this](k8s::PodId id) { state_changed(c_.api.pod(id).node); });
  api.on_pod_deleted.push_back([this](k8s::PodId id) {
    pod_dedupe_.erase(std::uint64_t{id.v} << 1);  // its UID is gone with it
    pod_dedupe_.erase((std::uint64_t{id.v} << 1) | 1u);
    state_changed(c_.api.pod(id).node);
    on_pod_moved(c_.api.pod(id).node);
    trigger();
  });
  api.on_node.push_back([this](k8s::NodeId id, k8s::NodeChange ch) {
    state_changed(id);
    // A node can become marked for deletion by a taint (seen here) or by its NodeClaim deleting
    // (delete_claim, or here when its Node comes after).
    if (ch == k8s::NodeChange::Added || has_taint(c_.api.node(id).node.taints, kTaintDisrupted)) maybe_marked_.insert(id.v);
    on_node(id, ch);
  });
  c_.ec2.on_running.push_back([this](aws::Instance& i) { on_instance_running(i); });
  c_.ec2.on_terminated.push_back([this](aws::Instance& i) { on_instance_terminated(i); });
  c_.sim.every(kDisruptionPoll, [this] { disrupt(); });
}

// --- objects --------------------------------------------------------------------------------

void Controller::apply_node_pool(NodePool pool) {
  std::string name = pool.name;
  // A replaced NodePool keeps its status (an apply changes the spec only).
  auto old = pools_.find(name);
  if (old != pools_.end()) pool.conditions = old->second.conditions;
  NodePool& p = pools_[name] = std::move(pool);
  reconcile_node_pool_readiness(p, node_class_of(p), c_.sim.now());
  ++config_version_;
  trigger();
}

void Controller::apply_node_class(NodeClass node_class) {
  types_by_class_.erase(node_class.name);
  auto old = classes_.find(node_class.name);
  if (old != classes_.end()) node_class.conditions = old->second.conditions;
  std::string name = node_class.name;
  classes_[name] = std::move(node_class);
  reconcile_node_class_now(name);
  ++config_version_;
  trigger();
}

const NodeClass* Controller::node_class_of(const NodePool& p) const {
  auto it = classes_.find(p.node_class_name);
  if (it == classes_.end() || it->second.kind != p.node_class_kind) return nullptr;
  return &it->second;
}

void Controller::refresh_pool_readiness(const std::string& node_class) {
  for (auto& [name, p] : pools_)
    if (p.node_class_name == node_class) reconcile_node_pool_readiness(p, node_class_of(p), c_.sim.now());
}

// The nodeclass controller's reconcile of one NodeClass, then the readiness of the NodePools that
// use it. Not found subnets or groups requeue after a minute (subnet.go, securitygroup.go), so
// tags added later are picked up.
void Controller::reconcile_node_class_now(const std::string& name) {
  auto it = classes_.find(name);
  if (it == classes_.end()) return;
  NodeClass& nc = it->second;
  const std::vector<std::string> subnets_before = nc.subnet_ids;
  if (reconcile_node_class(nc, c_.ec2, c_.security_groups, c_.sim.now())) {
    if (nc.subnet_ids != subnets_before) types_by_class_.erase(name);  // offerings follow the zones
    ++config_version_;
    refresh_pool_readiness(name);
    trigger();
  }
  if (!nc.ready() && !requeued_classes_.count(name)) {
    requeued_classes_.insert(name);
    c_.sim.schedule(engine::Duration::minutes(1), [this, name] {
      requeued_classes_.erase(name);
      reconcile_node_class_now(name);
    });
  }
}

bool Controller::delete_node_pool(const std::string& name) {
  if (!pools_.erase(name)) return false;
  ++config_version_;
  // NodeClaims are owned by their NodePool: garbage collection deletes them.
  for (auto& c : claims_)
    if (c.node_pool == name && c.phase != NodeClaimPhase::Deleting && c.phase != NodeClaimPhase::Deleted)
      delete_claim(c, "", false);
  return true;
}


void Controller::event(EventType type, const std::string& reason, const engine::ObjectRef& obj, const std::string& msg,
                       Duration dedupe) {
  if (dedupe.us > 0) {
    std::string key = obj.str() + "|" + reason;
    auto [it, added] = dedupe_.try_emplace(std::move(key), c_.sim.now());
    if (!added) {
      if (c_.sim.now() - it->second < dedupe) return;
      it->second = c_.sim.now();
    }
  }
  c_.api.emit(type, reason, obj, msg, source());
}

engine::SimTime Controller::pod_event(const PodEvent& e) {
  // NominatePodEvent dedupes for the recorder's default 2 minutes, PodFailedToScheduleEvent for 5.
  const Duration window = e.failed ? Duration::minutes(5) : Duration::minutes(2);
  const SimTime now = c_.sim.now();
  auto [it, added] = pod_dedupe_.try_emplace((std::uint64_t{e.pod.v} << 1) | (e.failed ? 1u : 0u), now);
  if (!added) {
    if (now - it->second < window) return it->second + window;
    it->second = now;
  }
  // The dedupe cache is Karpenter's own, in front of client-go's recorder: an event the
  // broadcaster's queue then drops still counts as published.
  if (c_.log.accepts(source(), now))
    c_.api.emit(e.failed ? EventType::Warning : EventType::Normal, e.failed ? "FailedScheduling" : "Nominated",
                k8s::ApiServer::ref(c_.api.pod(e.pod).pod), *e.message, source());
  return now + window;
}

}  // namespace eksim::autoscaling::karpenter
