// The unschedulable pods a scale-up considers (cluster-autoscaler/core/podlistprocessor:
// filter_out_daemon_sets.go, filter_out_expendable.go, and the pods preemption will place or
// too new for --new-pod-scale-up-delay), and where they come from by default.
#include "models/autoscaling/cas/core/scaleup/orchestrator.hpp"
#include "models/k8s/kubelet/node_lifecycle.hpp"

namespace eksim::autoscaling::cas {

std::vector<k8s::PodId> Orchestrator::default_unschedulable() const {
  const engine::SimTime now = ctx_.cluster.sim.now();
  std::vector<k8s::PodId> out;
  for (k8s::PodId id : ctx_.node_infos.live_pods()) {
    const k8s::PodRecord& r = ctx_.cluster.api.pod(id);
    if (r.deleted || r.terminating || r.node.valid() || !r.pod.spec.node_name.empty()) continue;
    if (r.pod.status.phase != k8s::PodPhase::Pending || r.pod.spec.scheduler_name != "default-scheduler") continue;
    // The scheduler tries a new pod within milliseconds; a pod older than a second that is still
    // unbound has been found unschedulable (PodScheduled=False, reason Unschedulable).
    if (now - r.pod.meta.creation_timestamp < engine::Duration::seconds(1)) continue;
    out.push_back(id);
  }
  return out;
}

std::vector<k8s::PodId> Orchestrator::pending_pods(const std::vector<k8s::PodId>& unschedulable, bool& delayed) const {
  const engine::SimTime now = ctx_.cluster.sim.now();
  const CasOptions& o = ctx_.options;
  std::vector<k8s::PodId> pending;
  for (k8s::PodId id : unschedulable) {
    const k8s::PodRecord& r = ctx_.cluster.api.pod(id);
    if (r.deleted || r.node.valid() || k8s::is_daemonset_pod(r.pod)) continue;  // DaemonSet pods are filtered out
    if (r.pod.spec.priority < o.expendable_pods_priority_cutoff) continue;       // expendable pods never scale up
    if (!r.pod.status.nominated_node_name.empty()) continue;                    // preemption will place it
    if (now - r.pod.meta.creation_timestamp < o.new_pod_scale_up_delay) {
      delayed = true;
      continue;
    }
    pending.push_back(id);
  }
  return pending;
}

}  // namespace eksim::autoscaling::cas
