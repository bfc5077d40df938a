#pragma once
// The loop (cluster-autoscaler/core/static_autoscaler.go RunOnce): refresh the cloud provider's
// node groups and the cluster state (failed and timed-out scale-ups, unregistered nodes), stop
// if the cluster is unhealthy, scale up for unschedulable pods (Orchestrator), otherwise plan
// scale-down (Planner) and, out of the cool-downs, actuate it (Actuator); write the status.
#include <optional>

#include "models/autoscaling/cas/cloudprovider/aws/aws_cloud_provider.hpp"
#include "models/autoscaling/cas/clusterstate/clusterstate.hpp"
#include "models/autoscaling/cas/context/autoscaling_context.hpp"
#include "models/autoscaling/cas/core/scaledown/actuation/actuator.hpp"
#include "models/autoscaling/cas/core/scaledown/deletiontracker/node_deletion_tracker.hpp"
#include "models/autoscaling/cas/core/scaledown/planner/planner.hpp"
#include "models/autoscaling/cas/core/scaleup/orchestrator.hpp"
#include "models/autoscaling/cas/processors/nodeinfosprovider/template_node_info_provider.hpp"

namespace eksim::autoscaling::cas {

class StaticAutoscaler {
 public:
  StaticAutoscaler(Cluster& cluster, CasOptions options);
  StaticAutoscaler(const StaticAutoscaler&) = delete;
  StaticAutoscaler& operator=(const StaticAutoscaler&) = delete;

  void run_once();

  const CasOptions& options() const { return options_; }
  const NodeInfoCache& node_infos() const { return node_infos_; }
  ClusterStateRegistry& cluster_state() { return cluster_state_; }
  const ClusterStateRegistry& cluster_state() const { return cluster_state_; }
  Orchestrator& orchestrator() { return orchestrator_; }
  const Planner& planner() const { return planner_; }

 private:
  void scale_down();
  // scaleDownInCooldown: after a scale-up, a failed drain, a deletion.
  bool scale_down_in_cooldown(engine::SimTime now) const;
  void write_status(const ClusterStateRegistry::LoopReadiness& readiness, bool healthy);

  CasOptions options_;
  NodeInfoCache node_infos_;
  AwsCloudProvider cloud_provider_;
  AutoscalingContext ctx_;
  NodeDeletionTracker deletions_;
  TemplateNodeInfoProvider templates_;
  ClusterStateRegistry cluster_state_;
  Orchestrator orchestrator_;
  Planner planner_;
  Actuator actuator_;
};

}  // namespace eksim::autoscaling::cas
