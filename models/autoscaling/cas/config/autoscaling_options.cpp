#include "models/autoscaling/cas/config/autoscaling_options.hpp"

#include <sstream>
#include "sim/engine/numbers.hpp"

namespace eksim::autoscaling {

namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string line;
  while (std::getline(ss, line, '\n'))
    if (!line.empty()) out.push_back(line);
  return out;
}

}  // namespace

CasOptions cas_options_from_flags(const std::map<std::string, std::string>& flags) {
  CasOptions o;
  auto dur = [&](const char* name, engine::Duration& out) {
    if (auto it = flags.find(name); it != flags.end())
      if (auto d = engine::parse_duration(it->second)) out = *d;
  };
  auto num = [&](const char* name, double& out) {
    // The scenario loader has range-checked every number flag.
    if (auto it = flags.find(name); it != flags.end()) out = engine::parse_real(it->second).value;
  };
  auto boolean = [&](const char* name, bool& out) {
    if (auto it = flags.find(name); it != flags.end()) out = it->second == "true";
  };
  dur("scan-interval", o.scan_interval);
  if (auto it = flags.find("expander"); it != flags.end()) o.expander = it->second;
  dur("max-node-provision-time", o.max_node_provision_time);
  boolean("scale-down-enabled", o.scale_down_enabled);
  dur("scale-down-unneeded-time", o.scale_down_unneeded_time);
  dur("scale-down-unready-time", o.scale_down_unready_time);
  boolean("scale-down-unready-enabled", o.scale_down_unready_enabled);
  dur("scale-down-delay-after-add", o.scale_down_delay_after_add);
  if (flags.count("scale-down-delay-after-delete")) {
    engine::Duration d{};
    dur("scale-down-delay-after-delete", d);
    o.scale_down_delay_after_delete = d;
  }
  dur("scale-down-delay-after-failure", o.scale_down_delay_after_failure);
  num("scale-down-utilization-threshold", o.scale_down_utilization_threshold);
  num("scale-down-gpu-utilization-threshold", o.scale_down_gpu_utilization_threshold);
  boolean("balance-similar-node-groups", o.balance_similar_node_groups);
  if (auto it = flags.find("balancing-ignore-label"); it != flags.end()) o.balancing_ignore_labels = split_list(it->second);
  double max_total = 0;
  num("max-nodes-total", max_total);
  o.max_nodes_total = static_cast<std::int64_t>(max_total);
  if (auto it = flags.find("node-group-auto-discovery"); it != flags.end()) o.node_group_auto_discovery = split_list(it->second);
  if (auto it = flags.find("nodes"); it != flags.end()) o.nodes = split_list(it->second);
  dur("initial-node-group-backoff-duration", o.backoff.initial);
  dur("max-node-group-backoff-duration", o.backoff.max);
  dur("node-group-backoff-reset-timeout", o.backoff.reset);
  double grace = static_cast<double>(o.max_graceful_termination_sec);
  num("max-graceful-termination-sec", grace);
  o.max_graceful_termination_sec = static_cast<std::int64_t>(grace);
  boolean("skip-nodes-with-local-storage", o.drain.skip_nodes_with_local_storage);
  boolean("skip-nodes-with-system-pods", o.drain.skip_nodes_with_system_pods);
  dur("new-pod-scale-up-delay", o.new_pod_scale_up_delay);
  double cutoff = static_cast<double>(o.expendable_pods_priority_cutoff);
  num("expendable-pods-priority-cutoff", cutoff);
  o.expendable_pods_priority_cutoff = static_cast<std::int64_t>(cutoff);
  auto integer = [&](const char* name, std::int64_t& out) {
    double v = static_cast<double>(out);
    num(name, v);
    out = static_cast<std::int64_t>(v);
  };
  integer("max-nodes-per-scaleup", o.max_nodes_per_scale_up);
  // flags.go: the deprecated --max-empty-bulk-delete stands in for --max-scale-down-parallelism
  // when only it is given.
  integer("max-empty-bulk-delete", o.max_scale_down_parallelism);
  integer("max-scale-down-parallelism", o.max_scale_down_parallelism);
  integer("max-drain-parallelism", o.max_drain_parallelism);
  integer("scale-down-non-empty-candidates-count", o.scale_down_non_empty_candidates_count);
  num("scale-down-candidates-pool-ratio", o.scale_down_candidates_pool_ratio);
  integer("scale-down-candidates-pool-min-count", o.scale_down_candidates_pool_min_count);
  boolean("describe-nodegroup-allowed", o.describe_nodegroup_allowed);
  boolean("record-duplicated-events", o.record_duplicated_events);
  num("max-total-unready-percentage", o.max_total_unready_percentage);
  double ok_unready = static_cast<double>(o.ok_total_unready_count);
  num("ok-total-unready-count", ok_unready);
  o.ok_total_unready_count = static_cast<std::int64_t>(ok_unready);
  return o;
}

}  // namespace eksim::autoscaling
