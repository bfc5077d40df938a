#pragma once
// Cluster Autoscaler's options with upstream defaults (cluster-autoscaler/config/
// autoscaling_options.go, the flags in config/flags/flags.go; FACTS.md). Typed: the scenario
// reader decodes the flags into them at load (sim/scenario/cas_flags.cpp); the model reads no text.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/autoscaling/cas/expander/expander.hpp"
#include "models/autoscaling/cas/simulator/drainability/rules.hpp"
#include "models/autoscaling/cas/utils/backoff/exponential_backoff.hpp"
#include "sim/engine/time.hpp"

namespace eksim::autoscaling {

namespace cas {

// --nodes MIN:MAX:NAME (config/dynamic NodeGroupSpec).
struct StaticNodeGroup {
  std::int64_t min_size = 0;
  std::int64_t max_size = 0;
  std::string name;
};

// --node-group-auto-discovery asg:tag=K1[=V1],K2[=V2] (the AWS provider's asgAutoDiscoveryConfig):
// an ASG is discovered when it carries every tag, with the given value where one is given.
struct AsgAutoDiscovery {
  std::vector<std::pair<std::string, std::optional<std::string>>> tags;
};

}  // namespace cas

struct CasOptions {
  engine::Duration scan_interval = engine::Duration::seconds(10);               // --scan-interval
  std::vector<cas::Expander> expander{cas::Expander::LeastWaste};              // --expander (default since 1.30)
  engine::Duration max_node_provision_time = engine::Duration::minutes(15);     // --max-node-provision-time
  bool scale_down_enabled = true;                                               // --scale-down-enabled
  engine::Duration scale_down_unneeded_time = engine::Duration::minutes(10);    // --scale-down-unneeded-time
  engine::Duration scale_down_unready_time = engine::Duration::minutes(20);     // --scale-down-unready-time
  bool scale_down_unready_enabled = true;                                        // --scale-down-unready-enabled
  engine::Duration scale_down_delay_after_add = engine::Duration::minutes(10);  // --scale-down-delay-after-add
  // --scale-down-delay-after-delete defaults to scan-interval.
  std::optional<engine::Duration> scale_down_delay_after_delete;
  engine::Duration scale_down_delay_after_failure = engine::Duration::minutes(3);  // --scale-down-delay-after-failure
  double scale_down_utilization_threshold = 0.5;                                 // --scale-down-utilization-threshold
  double scale_down_gpu_utilization_threshold = 0.5;                             // --scale-down-gpu-utilization-threshold
  bool balance_similar_node_groups = false;                                      // --balance-similar-node-groups
  std::vector<std::string> balancing_ignore_labels;                              // --balancing-ignore-label (repeatable)
  std::int64_t max_nodes_total = 0;                                              // --max-nodes-total, 0 = no limit
  std::vector<cas::AsgAutoDiscovery> node_group_auto_discovery;                  // --node-group-auto-discovery
  std::vector<cas::StaticNodeGroup> nodes;                                       // --nodes min:max:name
  cas::BackoffOptions backoff;                                                   // --*-node-group-backoff-*
  std::int64_t max_graceful_termination_sec = 600;                               // --max-graceful-termination-sec
  cas::DrainOptions drain;                                                       // --skip-nodes-with-*
  engine::Duration new_pod_scale_up_delay{};                                     // --new-pod-scale-up-delay 0s
  std::int64_t expendable_pods_priority_cutoff = -10;                            // --expendable-pods-priority-cutoff
  // The cluster is unhealthy, and CA does nothing but say so, while more than
  // ok-total-unready-count nodes AND more than max-total-unready-percentage of all nodes are
  // unready (clusterstate.IsClusterHealthy).
  double max_total_unready_percentage = 45;                                      // --max-total-unready-percentage
  std::int64_t ok_total_unready_count = 3;                                       // --ok-total-unready-count
  // false: its event recorder lets one event per reason and object through every 5 minutes
  // (utils/kubernetes/factory.go); true: client-go's default spam filter.
  bool record_duplicated_events = false;                                         // --record-duplicated-events

  // --- the bounds that keep a loop's cost independent of the cluster's size
  // Estimator limit: binpacking for one node group stops at this many new nodes (it is "strictly
  // for optimizing CA algorithm latency", the scale-up is capped by it).
  std::int64_t max_nodes_per_scale_up = 1000;                                    // --max-nodes-per-scaleup
  // Scale-down actuation budgets (core/scaledown/budgets): nodes deleted in parallel, empty or
  // drained, and of those the ones needing a drain. --max-empty-bulk-delete (deprecated) sets the
  // parallelism when --max-scale-down-parallelism is not given.
  std::int64_t max_scale_down_parallelism = 10;                                  // --max-scale-down-parallelism
  std::int64_t max_empty_bulk_delete = 10;                                       // --max-empty-bulk-delete
  std::int64_t max_drain_parallelism = 1;                                        // --max-drain-parallelism
  // Scale-down planning (core/scaledown/legacy UpdateUnneededNodes): at most this many non-empty
  // nodes found unneeded per loop beyond those already unneeded (<= 0: no limit) ...
  std::int64_t scale_down_non_empty_candidates_count = 30;                       // --scale-down-non-empty-candidates-count
  // ... looked for among the first max(ceil(nodes * ratio), min-count) new candidates.
  double scale_down_candidates_pool_ratio = 0.1;                                 // --scale-down-candidates-pool-ratio
  std::int64_t scale_down_candidates_pool_min_count = 50;                        // --scale-down-candidates-pool-min-count

  // eksim: whether CA's IAM policy allows eks:DescribeNodegroup (the lab policy does not).
  bool describe_nodegroup_allowed = false;
  // Priority expander rules when no ConfigMap cluster-autoscaler-priority-expander has been
  // applied (programmatic use; scenarios supply the ConfigMap as a manifest).
  cas::PriorityConfig priorities;
};

// A node that is not Ready counts as unready only once it is older than this; before, it is
// NotStarted (clusterstate.MaxNodeStartupTime, 15 minutes).
inline constexpr engine::Duration kMaxNodeStartupTime = engine::Duration::minutes(15);

}  // namespace eksim::autoscaling
