#include "models/cluster/controller_replicas.hpp"

#include <algorithm>

namespace eksim {

ControllerReplicas::ControllerReplicas(k8s::ApiServer& api, const k8s::DeploymentController& deployments,
                                       k8s::SchedulerController& scheduler, std::size_t deployment,
                                       LeaderElectionConfig election)
    : api_(api), deployments_(deployments), deployment_(deployment), election_(election) {
  retarget(deployment);
  api_.on_pod_phase.push_back([this](k8s::PodId id) { on_phase(id); });
  // SIGTERM: the manager stops and, with ReleaseOnCancel, gives the Lease back.
  api_.on_pod_terminating.push_back([this](k8s::PodId id) { on_gone(id, election_.release_on_cancel); });
  api_.on_pod_deleted.push_back([this](k8s::PodId id) { on_gone(id, false); });
  scheduler.on_unschedulable.push_back([this](k8s::PodId id, const k8s::ScheduleResult& r) {
    if (!owned(id)) return;
    unschedulable_replica_ = id;
    unschedulable_message_ = r.message;
  });
  api_.on_pod_bound.push_back([this](k8s::PodId id) {
    if (unschedulable_replica_ != id) return;
    unschedulable_replica_.reset();
    unschedulable_message_.clear();
  });
}

void ControllerReplicas::retarget(std::size_t deployment) {
  deployment_ = deployment;
  running_.clear();
  unschedulable_replica_.reset();
  unschedulable_message_.clear();
  // Replicas already Running (watched after its pods started).
  for (k8s::PodId p : deployments_.pods(deployment_)) {
    const k8s::PodRecord& r = api_.pod(p);
    if (!r.deleted && !r.terminating && r.pod.status.phase == k8s::PodPhase::Running) running_.push_back(p);
  }
  // The old replicas' Lease stays until it expires or they release it (on_gone set when).
  if (leader_ && std::find(running_.begin(), running_.end(), *leader_) == running_.end()) leader_.reset();
  if (!leader_) elect(lease_free_at_);
}

bool ControllerReplicas::acting(engine::SimTime now) const {
  if (!election_.enabled) return !running_.empty();
  return leader_ && now >= leading_since_;
}

// The pod's controller is the Deployment's ReplicaSet (<name>-<pod-template-hash>).
bool ControllerReplicas::owned(k8s::PodId id) const {
  const k8s::Pod& p = api_.pod(id).pod;
  const k8s::Deployment& d = api_.deployments()[deployment_];
  if (d.deleted || p.meta.ns != d.meta.ns) return false;
  const std::string rs = deployments_.replica_set_name(deployment_);
  return std::any_of(p.meta.owner_references.begin(), p.meta.owner_references.end(),
                     [&](const k8s::OwnerReference& o) { return o.kind == "ReplicaSet" && o.name == rs; });
}

void ControllerReplicas::on_phase(k8s::PodId id) {
  const k8s::PodRecord& r = api_.pod(id);
  const bool listed = std::find(running_.begin(), running_.end(), id) != running_.end();
  if (r.pod.status.phase == k8s::PodPhase::Running) {
    if (listed || r.terminating || r.deleted || !owned(id)) return;
    running_.push_back(id);
    // A candidate that starts while the Lease is free takes it at its first try; an abandoned
    // one only once it expired.
    if (!leader_) elect(lease_free_at_);
    return;
  }
  if (listed) on_gone(id, false);  // its containers ended: the Lease is not renewed
}

void ControllerReplicas::on_gone(k8s::PodId id, bool released) {
  auto it = std::find(running_.begin(), running_.end(), id);
  if (it == running_.end()) return;
  running_.erase(it);
  if (leader_ != id) return;
  leader_.reset();
  // A released Lease is taken at a candidate's next try; an abandoned one once it expires (the
  // leader renewed it at most one retry period before it went).
  const engine::SimTime now = api_.now();
  lease_free_at_ = released ? now + election_.retry_period : now + election_.lease_duration;
  elect(lease_free_at_);
}

void ControllerReplicas::elect(engine::SimTime lease_free_at) {
  if (running_.empty()) return;
  leader_ = running_.front();
  leading_since_ = std::max(lease_free_at, api_.now());
}

}  // namespace eksim
