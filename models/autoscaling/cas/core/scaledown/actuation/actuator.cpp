// Scale-down actuation (cluster-autoscaler/core/scaledown/actuation): taint the node
// ToBeDeletedByClusterAutoscaler, evict its pods with the capped grace period and wait for them
// (drain.go), then delete the node through the cloud provider (delete_in_batch.go). The
// deletions in progress feed the parallelism budgets.
#include <algorithm>

#include "models/autoscaling/cas/core/scaledown/actuation/drain.hpp"
#include "models/autoscaling/cluster_autoscaler.hpp"

namespace eksim::autoscaling {

// Texts: core/scaledown/actuation/actuator.go (ScaleDownEmpty, ScaleDown "Scale-down: removing
// node ...", taintNode "marked the node as toBeDeleted/unschedulable"), drain.go (evictPod
// "deleting pod for node scale down", waitPodsToDisappear), delete_in_batch.go
// (RegisterAndRecordSuccessfulScaleDownEvent, CleanUpAndRecordFailedScaleDownEvent).
void ClusterAutoscaler::start_deletion(k8s::NodeId node, GroupState& g, bool empty, const cas::Utilization& util) {
  k8s::NodeRecord& rec = c_.api.node(node);
  std::string name = rec.node.meta.name;
  deleting_[name] = g.id;
  (empty ? in_progress_.empty : in_progress_.drain).insert(name);
  unneeded_since_.erase(name);
  last_scale_down_delete_ = c_.sim.now();
  std::vector<k8s::PodId> to_move;
  std::string pod_names;
  for (k8s::PodId p : rec.pods)
    if (!c_.api.pod(p).deleted && cas::pod_needs_move(c_.api.pod(p).pod)) {
      to_move.push_back(p);
      pod_names += (pod_names.empty() ? "" : ",") + c_.api.pod(p).pod.meta.name;
    }
  if (empty) emit_status(engine::EventType::Normal, "ScaleDownEmpty", "Scale-down: removing empty node \"" + name + "\"");
  else
    emit_status(engine::EventType::Normal, "ScaleDown",
                "Scale-down: removing node " + name + ", utilization: " + utilization_info_string(util) +
                    ", pods to reschedule: " + pod_names);
  // MarkToBeDeleted: the taint's value is the Unix time it was added.
  rec.node.taints.push_back(k8s::Taint{cas::kTaintToBeDeleted,
                                       std::to_string(c_.start_epoch_seconds() + c_.sim.now().us / 1000000),
                                       k8s::kNoSchedule});
  c_.api.node_changed(node, k8s::NodeChange::Updated);
  emit_node(node, engine::EventType::Normal, "ScaleDown", "marked the node as toBeDeleted/unschedulable");
  if (empty) {
    finish_deletion(node, false);
    return;
  }
  // Evictions with the pod's grace period capped at --max-graceful-termination-sec; CA then waits
  // up to that cap plus DefaultPodEvictionHeadroom (30 s) for the pods to go, checking every 5 s.
  for (k8s::PodId p : to_move) {
    emit_pod(p, engine::EventType::Normal, "ScaleDown", "deleting pod for node scale down");
    c_.kubelet->delete_pod(p, cas::eviction_grace_seconds(c_.api.pod(p).pod, o_.max_graceful_termination_sec));
  }
  engine::SimTime deadline =
      c_.sim.now() + engine::Duration::seconds(o_.max_graceful_termination_sec) +
      engine::Duration::seconds(cas::kPodEvictionHeadroomSeconds);
  wait_drained(node, name, std::move(to_move), deadline);
}

void ClusterAutoscaler::wait_drained(k8s::NodeId node, std::string name, std::vector<k8s::PodId> pods,
                                     engine::SimTime deadline) {
  const k8s::NodeRecord& rec = c_.api.node(node);
  if (rec.deleted) {
    deleting_.erase(name);
    end_deletion(name);
    return;
  }
  bool gone = std::all_of(pods.begin(), pods.end(), [&](k8s::PodId p) {
    const k8s::PodRecord& r = c_.api.pod(p);
    return r.deleted || r.node != node;
  });
  if (gone) {
    finish_deletion(node, true);
    return;
  }
  if (c_.sim.now() >= deadline) {
    emit_node(node, engine::EventType::Warning, "ScaleDownFailed",
              "failed to drain and delete node: Failed to drain node /" + name + ": pods remaining after timeout");
    k8s::NodeRecord& r = c_.api.node(node);
    std::erase_if(r.node.taints, [](const k8s::Taint& t) { return t.key == cas::kTaintToBeDeleted; });
    c_.api.node_changed(node, k8s::NodeChange::Updated);
    deleting_.erase(name);
    end_deletion(name);
    last_scale_down_fail_ = c_.sim.now();
    return;
  }
  c_.sim.schedule(engine::Duration::seconds(5), [this, node, name = std::move(name), pods = std::move(pods), deadline] {
    wait_drained(node, name, pods, deadline);
  });
}

void ClusterAutoscaler::end_deletion(const std::string& name) {
  in_progress_.empty.erase(name);
  in_progress_.drain.erase(name);
}

void ClusterAutoscaler::finish_deletion(k8s::NodeId node, bool drain) {
  const k8s::NodeRecord& rec = c_.api.node(node);
  std::string name = rec.node.meta.name;
  // delete_in_batch: the deletion is over once the cloud provider has the node (the instance
  // terminates and the Node goes away after).
  end_deletion(name);
  if (rec.deleted) return;
  std::string instance = rec.instance_id;
  emit_node(node, engine::EventType::Normal, "ScaleDown", "nodes removed by cluster autoscaler");
  if (drain) emit_status(engine::EventType::Normal, "ScaleDown", "Scale-down: node " + name + " removed with drain");
  else emit_status(engine::EventType::Normal, "ScaleDownEmpty", "Scale-down: empty node " + name + " removed");
  c_.auto_scaling.terminate_instance(instance, /*decrement_desired=*/true);
}

}  // namespace eksim::autoscaling
