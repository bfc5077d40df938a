#include "models/autoscaling/cas/core/static_autoscaler.hpp"

namespace eksim::autoscaling::cas {

StaticAutoscaler::StaticAutoscaler(Cluster& cluster, CasOptions options)
    : options_(std::move(options)),
      node_infos_(cluster.api),
      cloud_provider_(cluster, options_),
      ctx_{cluster, options_, cloud_provider_, node_infos_},
      templates_(ctx_, deletions_),
      cluster_state_(ctx_, deletions_),
      orchestrator_(ctx_, cluster_state_, deletions_, templates_),
      planner_(ctx_, deletions_),
      actuator_(ctx_, deletions_, planner_.unneeded()) {}

void StaticAutoscaler::run_once() {
  // The loop runs inside the cluster-autoscaler pod: none Running, no RunOnce.
  if (!ctx_.cluster.autoscaler_running()) return;
  node_infos_.collect();
  cloud_provider_.refresh();
  cluster_state_.update_node_groups();
  cluster_state_.backoff().remove_stale(ctx_.cluster.sim.now());
  if (cluster_state_.handle_failed_scale_ups()) actuator_.forget_failure();
  cluster_state_.handle_provision_timeouts();
  cluster_state_.remove_old_unregistered();
  auto nodes = cluster_state_.live_nodes();
  // updateClusterState's readiness stats, for the status the loop writes when it ends (a
  // deferred write upstream, which an early return does not skip).
  const auto ready = cluster_state_.status_enabled() ? cluster_state_.readiness(nodes) : ClusterStateRegistry::LoopReadiness{};
  if (!cluster_state_.healthy(nodes)) {
    // The loop stops here (no scale-up, no scale-down, unneeded timers cleared) and says so on
    // the status ConfigMap.
    planner_.unneeded().clear();
    ctx_.emit_status(k8s::EventType::Warning, "ClusterUnhealthy", "Cluster is unhealthy");
    write_status(ready, false);
    return;
  }
  cluster_state_.close_fulfilled_requests(nodes);
  if (!orchestrator_.scale_up(nodes)) scale_down();
  write_status(ready, true);
}

void StaticAutoscaler::scale_down() {
  const std::vector<LiveNode> nodes = cluster_state_.live_nodes();
  if (!options_.scale_down_enabled) return;
  planner_.update_cluster_state(nodes);
  // Actuation waits out the cool-downs (unneeded time keeps accruing meanwhile).
  if (scale_down_in_cooldown(ctx_.cluster.sim.now())) return;
  actuator_.start_deletion(planner_.nodes_to_delete());
}

bool StaticAutoscaler::scale_down_in_cooldown(engine::SimTime now) const {
  const CasOptions& o = options_;
  const engine::Duration after_delete = o.scale_down_delay_after_delete.value_or(o.scan_interval);
  const auto last_up = orchestrator_.last_scale_up(), last_fail = actuator_.last_failure(),
             last_delete = actuator_.last_delete();
  return (last_up && now < *last_up + o.scale_down_delay_after_add) ||
         (last_fail && now < *last_fail + o.scale_down_delay_after_failure) ||
         (last_delete && now < *last_delete + after_delete);
}

void StaticAutoscaler::write_status(const ClusterStateRegistry::LoopReadiness& readiness, bool healthy) {
  cluster_state_.write_status(readiness, healthy, {planner_.unneeded(), planner_.last_update()});
}

}  // namespace eksim::autoscaling::cas
