#include "models/autoscaling/cas/core/scaledown/actuation/actuator.hpp"

#include <algorithm>

#include "models/autoscaling/cas/core/scaledown/actuation/drain.hpp"
#include "models/autoscaling/cas/core/scaledown/budgets/budgets.hpp"

namespace eksim::autoscaling::cas {

namespace {

bool pods_to_move(const k8s::ApiServer& api, const k8s::NodeRecord& rec) {
  return std::any_of(rec.pods.begin(), rec.pods.end(),
                     [&](k8s::PodId p) { return !api.pod(p).deleted && pod_needs_move(api.pod(p).pod); });
}

}  // namespace

std::size_t Actuator::draining() const {
  // A drain counts as in progress while pods it evicts are still on the node; once they are
  // gone the node is deleted at the drain's next 5 s check (waitPodsToDisappear), whatever this
  // loop decides.
  std::size_t n = 0;
  for (const std::string& name : deletions_.drain)
    if (auto id = ctx_.cluster.api.find_node(name)) n += pods_to_move(ctx_.cluster.api, ctx_.cluster.api.node(*id));
  return n;
}

void Actuator::start_deletion(const std::vector<NodeToDelete>& nodes) {
  std::size_t empty_count = 0, drain_count = 0;
  for (const auto& n : nodes) (n.empty ? empty_count : drain_count)++;
  const CasOptions& o = ctx_.options;
  ScaleDownBudget budget = crop_nodes(o.max_scale_down_parallelism, o.max_drain_parallelism, deletions_.empty.size(),
                                      draining(), empty_count, drain_count);
  for (const auto& n : nodes) {
    std::size_t& left = n.empty ? budget.empty : budget.drain;
    if (left == 0) continue;
    --left;
    start(n);
  }
}

// Texts: core/scaledown/actuation/actuator.go (ScaleDownEmpty, ScaleDown "Scale-down: removing
// node ...", taintNode "marked the node as toBeDeleted/unschedulable"), drain.go (evictPod
// "deleting pod for node scale down", waitPodsToDisappear), delete_in_batch.go
// (RegisterAndRecordSuccessfulScaleDownEvent, CleanUpAndRecordFailedScaleDownEvent).
void Actuator::start(const NodeToDelete& n) {
  k8s::NodeRecord& rec = ctx_.cluster.api.node(n.node);
  std::string name = rec.node.meta.name;
  deletions_.deleting[name] = n.group->id();
  (n.empty ? deletions_.empty : deletions_.drain).insert(name);
  unneeded_.erase(name);
  last_delete_ = ctx_.cluster.sim.now();
  std::vector<k8s::PodId> to_move;
  std::string pod_names;
  for (k8s::PodId p : rec.pods)
    if (!ctx_.cluster.api.pod(p).deleted && pod_needs_move(ctx_.cluster.api.pod(p).pod)) {
      to_move.push_back(p);
      pod_names += (pod_names.empty() ? "" : ",") + ctx_.cluster.api.pod(p).pod.meta.name;
    }
  if (n.empty) ctx_.emit_status(k8s::EventType::Normal, "ScaleDownEmpty", "Scale-down: removing empty node \"" + name + "\"");
  else
    ctx_.emit_status(k8s::EventType::Normal, "ScaleDown",
                     "Scale-down: removing node " + name + ", utilization: " + utilization_info_string(n.utilization) +
                         ", pods to reschedule: " + pod_names);
  // MarkToBeDeleted: the taint's value is the Unix time it was added.
  rec.node.taints.push_back(k8s::Taint{kTaintToBeDeleted,
                                       std::to_string(ctx_.cluster.start_epoch_seconds() + ctx_.cluster.sim.now().us / 1000000),
                                       k8s::kNoSchedule});
  ctx_.cluster.api.node_changed(n.node, k8s::NodeChange::Updated);
  ctx_.emit_node(n.node, k8s::EventType::Normal, "ScaleDown", "marked the node as toBeDeleted/unschedulable");
  if (n.empty) finish_deletion(n.node, false);
  else evict(n.node, std::move(name), to_move);
}

void Actuator::evict(k8s::NodeId node, std::string name, const std::vector<k8s::PodId>& pods) {
  // Evictions with the pod's grace period capped at --max-graceful-termination-sec; CA then waits
  // up to that cap plus DefaultPodEvictionHeadroom (30 s) for the pods to go, checking every 5 s.
  const std::int64_t cap = ctx_.options.max_graceful_termination_sec;
  for (k8s::PodId p : pods) {
    ctx_.emit_pod(p, k8s::EventType::Normal, "ScaleDown", "deleting pod for node scale down");
    ctx_.cluster.kubelet->delete_pod(p, eviction_grace_seconds(ctx_.cluster.api.pod(p).pod, cap));
  }
  engine::SimTime deadline =
      ctx_.cluster.sim.now() + engine::Duration::seconds(cap) + engine::Duration::seconds(kPodEvictionHeadroomSeconds);
  wait_drained(node, std::move(name), pods, deadline);
}

void Actuator::wait_drained(k8s::NodeId node, std::string name, std::vector<k8s::PodId> pods, engine::SimTime deadline) {
  const k8s::NodeRecord& rec = ctx_.cluster.api.node(node);
  if (rec.deleted) {
    deletions_.deleting.erase(name);
    deletions_.end(name);
    return;
  }
  bool gone = std::all_of(pods.begin(), pods.end(), [&](k8s::PodId p) {
    const k8s::PodRecord& r = ctx_.cluster.api.pod(p);
    return r.deleted || r.node != node;
  });
  if (gone) {
    finish_deletion(node, true);
    return;
  }
  if (ctx_.cluster.sim.now() >= deadline) {
    drain_failed(node, name);
    return;
  }
  ctx_.cluster.sim.schedule(engine::Duration::seconds(5), [this, node, name = std::move(name), pods = std::move(pods), deadline] {
    wait_drained(node, name, pods, deadline);
  });
}

void Actuator::drain_failed(k8s::NodeId node, const std::string& name) {
  ctx_.emit_node(node, k8s::EventType::Warning, "ScaleDownFailed",
                 "failed to drain and delete node: Failed to drain node /" + name + ": pods remaining after timeout");
  k8s::NodeRecord& r = ctx_.cluster.api.node(node);
  std::erase_if(r.node.taints, [](const k8s::Taint& t) { return t.key == kTaintToBeDeleted; });
  ctx_.cluster.api.node_changed(node, k8s::NodeChange::Updated);
  deletions_.deleting.erase(name);
  deletions_.end(name);
  last_failure_ = ctx_.cluster.sim.now();
}

void Actuator::finish_deletion(k8s::NodeId node, bool drain) {
  const k8s::NodeRecord& rec = ctx_.cluster.api.node(node);
  std::string name = rec.node.meta.name;
  // delete_in_batch: the deletion is over once the cloud provider has the node (the instance
  // terminates and the Node goes away after).
  deletions_.end(name);
  if (rec.deleted) return;
  std::string instance = rec.instance_id;
  ctx_.emit_node(node, k8s::EventType::Normal, "ScaleDown", "nodes removed by cluster autoscaler");
  if (drain) ctx_.emit_status(k8s::EventType::Normal, "ScaleDown", "Scale-down: node " + name + " removed with drain");
  else ctx_.emit_status(k8s::EventType::Normal, "ScaleDownEmpty", "Scale-down: empty node " + name + " removed");
  ctx_.cloud_provider.delete_instance(instance);
}

}  // namespace eksim::autoscaling::cas
