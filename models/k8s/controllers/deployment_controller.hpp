#pragma once
// Deployment controller with ReplicaSet behaviour folded in (one ReplicaSet per Deployment, no
// rollouts): keeps `replicas` active pods named <deploy>-<pod-template-hash>-<5 chars>, replacing
// pods that are deleted, evicted or Failed. Events as upstream: `ScalingReplicaSet` "Scaled up
// replica set <rs> from 0 to N" on the Deployment (deployment-controller) and `SuccessfulCreate`
// "Created pod: <pod>" / `SuccessfulDelete` "Deleted pod: <pod>" on the ReplicaSet
// (replicaset-controller).
#include <map>
#include <string>
#include <vector>

#include "models/k8s/api/api_server.hpp"

namespace eksim::k8s {

class Kubelet;

// rand.SafeEncodeString(fmt.Sprint(fnv32a(template))): the decimal digits of a 32-bit hash
// mapped into the API server's alphabet (as ComputeHash does for pod-template-hash).
std::string pod_template_hash(const Deployment& d);

class DeploymentController {
 public:
  // kubelet: used for graceful deletion on scale-down; without it pods are removed at once.
  explicit DeploymentController(ApiServer& api, Kubelet* kubelet = nullptr);

  // Stores the Deployment in api.deployments() and creates its pods; returns its index there.
  std::size_t apply(Deployment d);
  // kubectl scale.
  void scale(const std::string& ns, const std::string& name, std::int32_t replicas);
  // kubectl delete deployment: false when there is none of that name.
  bool remove(const std::string& ns, const std::string& name);
  // kubectl delete replicaset of a Deployment's ReplicaSet (<deploy>-<pod-template-hash>): false
  // when no live Deployment has one of that name.
  bool delete_replica_set(const std::string& ns, const std::string& name);
  std::string replica_set_name(std::size_t index) const;
  std::vector<PodId> pods(std::size_t index) const;  // active pods

 private:
  void reconcile(std::size_t index);
  void enqueue(std::size_t index);
  std::optional<std::size_t> owner_of(PodId id) const;

  ApiServer& api_;
  Kubelet* kubelet_;
  struct State {
    // Every pod the ReplicaSet made that may still exist, in creation order (the garbage
    // collector deletes them all with it). Pods deleted since are dropped in batches, so that a
    // ReplicaSet whose pods the kubelet keeps rejecting does not rescan its thousands of Failed
    // pods at each replacement.
    std::vector<PodId> pods;
    std::size_t compact_at = 64;  // pods.size() that triggers the next sweep of deleted pods
    // The pods that still count (pod_active), in creation order: a pod leaves for good once it
    // is deleted, terminating or finished, so each sync filters only these.
    std::vector<PodId> active;
    std::int32_t rs_replicas = 0;  // spec.replicas of the ReplicaSet
    bool queued = false;
  };
  // Records a pod the ReplicaSet just created.
  void adopt(State& st, PodId id);
  std::map<std::size_t, State> state_;
};

}  // namespace eksim::k8s
