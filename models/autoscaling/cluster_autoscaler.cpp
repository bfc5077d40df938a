#include "models/autoscaling/cluster_autoscaler.hpp"

namespace eksim::autoscaling {

ClusterAutoscaler::ClusterAutoscaler(Cluster& cluster, CasOptions options) : c_(cluster), loop_(cluster, std::move(options)) {
  // The first loop runs one scan interval after start, as the real deployment's first RunOnce
  // follows its start-up.
  c_.sim.every(loop_.options().scan_interval, [this] { run_once(); });
  // Its events go out through client-go's broadcaster and its kube client (--kube-client-qps 5,
  // --kube-client-burst 10: rest.DefaultQPS/DefaultBurst).
  c_.log.limit_sink(name(), k8s::SinkLimits{});
  if (!loop_.options().record_duplicated_events)
    c_.log.filter_spam(name(), k8s::SpamFilterOptions{.burst = 1,
                                                         .qps = 1.0 / 300,
                                                         .key_includes_reason = true,
                                                         .keyed_by_message = cas::status_config_map_ref(),
                                                         .lru_entries = 8192});
}

const std::map<std::string, ClusterAutoscaler::Unremovable>& ClusterAutoscaler::unremovable() const {
  return loop_.planner().unremovable().by_name(c_.api);
}

std::unique_ptr<ClusterAutoscaler> make_cluster_autoscaler(Cluster& cluster) {
  // A spec built in code rather than read from a scenario may name the kind alone: defaults.
  const auto& options = cluster.spec().autoscaler.cluster_autoscaler;
  return make_cluster_autoscaler(cluster, options ? *options : CasOptions{});
}

std::unique_ptr<ClusterAutoscaler> make_cluster_autoscaler(Cluster& cluster, CasOptions options) {
  return std::make_unique<ClusterAutoscaler>(cluster, std::move(options));
}

}  // namespace eksim::autoscaling
