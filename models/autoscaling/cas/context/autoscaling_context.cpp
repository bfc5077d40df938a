#include "models/autoscaling/cas/context/autoscaling_context.hpp"

namespace eksim::autoscaling::cas {

const k8s::ObjectRef& status_config_map_ref() {
  static const k8s::ObjectRef ref{"ConfigMap", "kube-system", "cluster-autoscaler-status"};
  return ref;
}

void AutoscalingContext::emit_status(k8s::EventType type, const std::string& reason, const std::string& message) const {
  cluster.api.emit(type, reason, status_config_map_ref(), message, kComponent);
}

void AutoscalingContext::emit_node(k8s::NodeId node, k8s::EventType type, const std::string& reason,
                                   const std::string& message) const {
  cluster.api.emit(type, reason, k8s::ApiServer::ref(cluster.api.node(node).node), message, kComponent);
}

bool AutoscalingContext::emit_pod(k8s::PodId pod, k8s::EventType type, const std::string& reason,
                                  const std::string& message) const {
  if (!cluster.log.accepts(kComponent, cluster.sim.now())) return false;  // the broadcaster's queue is full
  cluster.api.emit(type, reason, k8s::ApiServer::ref(cluster.api.pod(pod).pod), message, kComponent);
  return true;
}

k8s::SchedulerOptions AutoscalingContext::scheduler_options() const {
  k8s::SchedulerOptions sched;
  sched.version = k8s::KubernetesVersion{cluster.spec().kubernetes_minor, -1};
  return sched;
}

}  // namespace eksim::autoscaling::cas
