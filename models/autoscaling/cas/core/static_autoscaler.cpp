// The loop (cluster-autoscaler/core/static_autoscaler.go RunOnce): refresh node groups and
// cluster state, stop if the cluster is unhealthy, scale up for unschedulable pods, otherwise
// plan and actuate scale-down.
#include "models/autoscaling/cluster_autoscaler.hpp"

namespace eksim::autoscaling {

namespace {

const engine::ObjectRef kStatusConfigMap{"ConfigMap", "kube-system", "cluster-autoscaler-status"};

}  // namespace

ClusterAutoscaler::ClusterAutoscaler(Cluster& cluster, CasOptions options)
    : c_(cluster), o_(std::move(options)), node_infos_(cluster.api), backoff_(o_.backoff) {
  // The first loop runs one scan interval after start, as the real deployment's first RunOnce
  // follows its start-up.
  c_.sim.every(o_.scan_interval, [this] { run_once(); });
  // A Node deleted while its instance runs on (kubectl delete node) leaves an instance the
  // cloud provider lists and the API does not: an unregistered node.
  c_.api.on_node.push_back([this](k8s::NodeId id, k8s::NodeChange change) {
    if (change != k8s::NodeChange::Deleted) return;
    const std::string& iid = c_.api.node(id).instance_id;
    const aws::Instance* inst = iid.empty() ? nullptr : c_.ec2.find(iid);
    if (inst && inst->alive())
      unregistered_since_.emplace(iid, std::nullopt);
  });
  // Its events go out through client-go's broadcaster and its kube client (--kube-client-qps 5,
  // --kube-client-burst 10: rest.DefaultQPS/DefaultBurst).
  c_.log.limit_sink(name(), engine::SinkLimits{});
  if (!o_.record_duplicated_events)
    c_.log.filter_spam(name(), engine::SpamFilterOptions{.burst = 1,
                                                         .qps = 1.0 / 300,
                                                         .key_includes_reason = true,
                                                         .keyed_by_message = kStatusConfigMap,
                                                         .lru_entries = 8192});
}

void ClusterAutoscaler::emit_status(engine::EventType type, const std::string& reason, const std::string& message) {
  c_.api.emit(type, reason, kStatusConfigMap, message, name());
}
void ClusterAutoscaler::emit_node(k8s::NodeId node, engine::EventType type, const std::string& reason, const std::string& message) {
  c_.api.emit(type, reason, k8s::ApiServer::ref(c_.api.node(node).node), message, name());
}
bool ClusterAutoscaler::emit_pod(k8s::PodId pod, engine::EventType type, const std::string& reason, const std::string& message) {
  if (!c_.log.accepts(name(), c_.sim.now())) return false;  // the broadcaster's queue is full
  c_.api.emit(type, reason, k8s::ApiServer::ref(c_.api.pod(pod).pod), message, name());
  return true;
}

void ClusterAutoscaler::set_priority_config_map(std::optional<cas::PriorityConfig> config, std::string error) {
  priority_cm_applied_ = true;
  priority_cm_ = std::move(config);
  priority_cm_error_ = std::move(error);
}

const cas::PriorityConfig& ClusterAutoscaler::effective_priorities() {
  static const cas::PriorityConfig kNone;
  if (!priority_cm_applied_) return o_.priorities;
  return priority_cm_ ? *priority_cm_ : kNone;
}

std::vector<k8s::PodId> ClusterAutoscaler::default_unschedulable() const {
  std::vector<k8s::PodId> out;
  for (k8s::PodId id : node_infos_.live_pods()) {
    const k8s::PodRecord& r = c_.api.pod(id);
    if (r.deleted || r.terminating || r.node.valid() || !r.pod.spec.node_name.empty()) continue;
    if (r.pod.status.phase != k8s::PodPhase::Pending || r.pod.spec.scheduler_name != "default-scheduler") continue;
    // The scheduler tries a new pod within milliseconds; a pod older than a second that is still
    // unbound has been found unschedulable (PodScheduled=False, reason Unschedulable).
    if (c_.sim.now() - r.pod.meta.creation_timestamp < engine::Duration::seconds(1)) continue;
    out.push_back(id);
  }
  return out;
}

// --- the loop -------------------------------------------------------------------------------

void ClusterAutoscaler::run_once() {
  // The loop runs inside the cluster-autoscaler pod: none Running, no RunOnce.
  if (!c_.autoscaler_running()) return;
  node_infos_.collect();
  refresh_groups();
  backoff_.remove_stale(c_.sim.now());
  for (auto& g : groups_) check_failed_activities(g);
  for (auto& g : groups_) check_provision_timeouts(g);
  remove_old_unregistered();
  auto nodes = live_nodes();
  // updateClusterState's readiness stats, for the status the loop writes when it ends (a
  // deferred write upstream, which an early return does not skip).
  const LoopReadiness ready = status_enabled_ ? readiness(nodes) : LoopReadiness{};
  if (!healthy(nodes)) {
    // static_autoscaler.go RunOnce: the loop stops here (no scale-up, no scale-down, unneeded
    // timers cleared) and says so on the status ConfigMap.
    unneeded_since_.clear();
    emit_status(engine::EventType::Warning, "ClusterUnhealthy", "Cluster is unhealthy");
    write_status(ready, false);
    return;
  }
  for (auto& g : groups_) {
    if (!g.scale_up_time) continue;
    if (registered_usable(g, nodes) >= g.scale_up_target) {
      g.scale_up_time.reset();
      backoff_.remove(g.id);
    }
  }
  bool scaled = scale_up(nodes);
  if (!scaled) scale_down(live_nodes());
  write_status(ready, true);
}

std::unique_ptr<Controller> make_cluster_autoscaler(Cluster& cluster) {
  return std::make_unique<ClusterAutoscaler>(cluster, cas_options_from_flags(cluster.spec().autoscaler.flags));
}

}  // namespace eksim::autoscaling
