#pragma once
// What Cluster Autoscaler writes to the ConfigMap kube-system/cluster-autoscaler-status each loop
// (cluster-autoscaler/clusterstate/api/types.go, the YAML format of 1.30 on): the cluster's and
// every node group's health, scale-up and scale-down conditions. Times are simulated; an unset
// time is Go's zero time, which the YAML leaves out.
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/time.hpp"

namespace eksim::autoscaling::cas::api {

using Time = std::optional<engine::SimTime>;

struct RegisteredUnreadyNodeCount {
  int total = 0;
  int resource_unready = 0;  // unready for a missing resource (a GPU node without nvidia.com/gpu)
};

struct RegisteredNodeCount {
  int total = 0;
  int ready = 0;
  int not_started = 0;     // not ready, created less than MaxNodeStartupTime (15 min) ago
  int being_deleted = 0;   // CA is deleting them
  RegisteredUnreadyNodeCount unready;
};

struct NodeCount {
  RegisteredNodeCount registered;
  int long_unregistered = 0;  // instances with no Node for longer than max-node-provision-time
  int unregistered = 0;
};

struct ClusterHealthCondition {
  std::string status;  // Healthy | Unhealthy
  NodeCount node_counts;
  Time last_probe_time, last_transition_time;
};

struct NodeGroupHealthCondition {
  std::string status;  // Healthy | Unhealthy
  NodeCount node_counts;
  int cloud_provider_target = 0;
  int min_size = 0, max_size = 0;
  Time last_probe_time, last_transition_time;
};

struct ClusterScaleUpCondition {
  std::string status;  // InProgress | NoActivity
  Time last_probe_time, last_transition_time;
};

struct BackoffInfo {
  std::string error_code;
  std::string error_message;  // truncated to 500 characters
};

struct NodeGroupScaleUpCondition {
  std::string status;  // InProgress | Unhealthy | Backoff | NoActivity
  BackoffInfo backoff_info;
  Time last_probe_time, last_transition_time;
};

struct ScaleDownCondition {
  std::string status;  // CandidatesPresent | NoCandidates
  int candidates = 0;
  Time last_probe_time, last_transition_time;
};

struct ClusterWideStatus {
  ClusterHealthCondition health;
  ClusterScaleUpCondition scale_up;
  ScaleDownCondition scale_down;
};

struct NodeGroupStatus {
  std::string name;
  NodeGroupHealthCondition health;
  NodeGroupScaleUpCondition scale_up;
  ScaleDownCondition scale_down;
};

struct ClusterAutoscalerStatus {
  engine::SimTime time;            // when the loop wrote it
  std::string autoscaler_status;   // Initializing | Running
  std::string message;
  ClusterWideStatus cluster_wide;
  std::vector<NodeGroupStatus> node_groups;
};

}  // namespace eksim::autoscaling::cas::api
