#pragma once
// Cluster Autoscaler (AWS provider) as a controller in the simulated cluster: the cluster-
// autoscaler Deployment's process, whose loop runs every --scan-interval.
//
// The code is laid out as upstream's cluster-autoscaler/ tree, under cas/:
//   config/autoscaling_options        typed options and defaults; config/flags the flag table
//   context/                          what the loop's parts share (cluster, options, events)
//   core/static_autoscaler            StaticAutoscaler, the RunOnce loop
//   core/podlistprocessor/            the pods a scale-up considers, filterOutSchedulable
//   core/scaleup/orchestrator         Orchestrator (ScaleUp's steps); expansion_options,
//                                     executor; equivalence/ (pod groups), resource/ (limits)
//   core/scaledown/planner            Planner (unneeded nodes, removal simulation); eligibility/,
//                                     unneeded/, unremovable/, budgets/, pdb/, deletiontracker/
//   core/scaledown/actuation          Actuator (taint, drain, delete)
//   clusterstate/                     ClusterStateRegistry: health, requests, status ConfigMap
//   cloudprovider/                    the NodeGroup and CloudProvider seam; aws/ behind it
//   simulator/                        cluster snapshot, utilization, drainability rules
//   processors/                       nodegroupset (balancing), nodeinfosprovider (templates),
//                                     status (pod events)
//   expander/, utils/backoff/
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/autoscaling/cas/core/static_autoscaler.hpp"
#include "models/cluster/cluster.hpp"

namespace eksim::autoscaling {

using cas::cluster_healthy;
using cas::go_float;
using cas::utilization_info_string;

class ClusterAutoscaler {
 public:
  ClusterAutoscaler(Cluster& cluster, CasOptions options);
  const char* name() const { return cas::kComponent; }

  // Where unschedulable pods come from (see Orchestrator::set_unschedulable_source).
  void set_unschedulable_source(std::function<std::vector<k8s::PodId>()> source, std::function<std::uint64_t()> version) {
    loop_.orchestrator().set_unschedulable_source(std::move(source), std::move(version));
  }
  void run_once() { loop_.run_once(); }

  const CasOptions& options() const { return loop_.options(); }
  // The ConfigMap kube-system/cluster-autoscaler-priority-expander as last applied: its parsed
  // rules, or nullopt and upstream's error text when `priorities` is invalid.
  void set_priority_config_map(std::optional<cas::PriorityConfig> config, std::string error) {
    loop_.orchestrator().set_priority_config_map(std::move(config), std::move(error));
  }
  // Nodes the last scale-down pass found unremovable, by name.
  using Unremovable = cas::UnremovableNode;
  const std::map<std::string, Unremovable>& unremovable() const;
  // How many nodes are unneeded now, and what the last planning pass simulated.
  std::size_t unneeded_count() const { return loop_.planner().unneeded().size(); }
  using PlanningStats = cas::PlanningStats;
  const PlanningStats& last_planning() const { return loop_.planner().last_planning(); }
  // The NodeInfos CA's informers keep (rebuilt only where something changed).
  const cas::NodeInfoCache& node_infos() const { return loop_.node_infos(); }

  // The status ConfigMap kube-system/cluster-autoscaler-status (--write-status-configmap):
  // written at the end of every loop once enabled. `eksim serve` enables it; a batch run has
  // no reader for it and keeps none.
  void enable_status_config_map() { loop_.cluster_state().enable_status(); }
  const std::optional<cas::api::ClusterAutoscalerStatus>& status_config_map() const { return loop_.cluster_state().status(); }
  // When the loop first wrote it (the ConfigMap's creationTimestamp).
  std::optional<engine::SimTime> status_config_map_created() const { return loop_.cluster_state().status_created(); }

 private:
  Cluster& c_;
  cas::StaticAutoscaler loop_;
};

// Builds the controller from cluster.spec().autoscaler (the flags typed at load) and subscribes
// it to the cluster; install_cluster_autoscaler (models/cluster/controllers.hpp) calls it.
std::unique_ptr<ClusterAutoscaler> make_cluster_autoscaler(Cluster& cluster);
// With the options its controller Deployment's command passes.
std::unique_ptr<ClusterAutoscaler> make_cluster_autoscaler(Cluster& cluster, CasOptions options);

}  // namespace eksim::autoscaling
