#pragma once
// What every part of the loop shares (cluster-autoscaler/context/autoscaling_context.go): the
// cluster it watches, the options, the cloud provider, the informers' NodeInfos and the event
// recorder, which speaks as "cluster-autoscaler".
#include <string>

#include "models/autoscaling/cas/cloudprovider/cloud_provider.hpp"
#include "models/autoscaling/cas/config/autoscaling_options.hpp"
#include "models/autoscaling/cas/simulator/cluster_snapshot.hpp"
#include "models/cluster/cluster.hpp"

namespace eksim::autoscaling::cas {

inline constexpr const char* kComponent = "cluster-autoscaler";
// The status ConfigMap kube-system/cluster-autoscaler-status, which CA's loop events are about.
const k8s::ObjectRef& status_config_map_ref();

struct AutoscalingContext {
  Cluster& cluster;
  const CasOptions& options;
  CloudProvider& cloud_provider;
  NodeInfoCache& node_infos;

  // Events on the status ConfigMap kube-system/cluster-autoscaler-status, on a node, on a pod.
  void emit_status(k8s::EventType type, const std::string& reason, const std::string& message) const;
  void emit_node(k8s::NodeId node, k8s::EventType type, const std::string& reason, const std::string& message) const;
  // False when the broadcaster's queue refused it: nothing more can be queued at this instant.
  bool emit_pod(k8s::PodId pod, k8s::EventType type, const std::string& reason, const std::string& message) const;
  // Per-pod events go out in turn until the broadcaster's queue refuses one; the rest are
  // counted as dropped at once, since the queue cannot drain before simulated time moves.
  template <class Emit>
  void emit_until_refused(std::size_t pods, Emit emit) const {
    for (std::size_t k = 0; k < pods; ++k)
      if (!emit(k)) {
        cluster.log.refused(pods - k - 1);
        return;
      }
  }
  // The scheduler's filters as CA runs them (the cluster's Kubernetes minor version).
  k8s::SchedulerOptions scheduler_options() const;
};

// A node as one loop sees it: its node group (nullptr: none CA manages) and whether it can take
// pods now (Ready, GPUs advertised, not being deleted).
struct LiveNode {
  k8s::NodeId id;
  NodeGroup* group = nullptr;
  bool usable = false;
};

}  // namespace eksim::autoscaling::cas
