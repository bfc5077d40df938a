#pragma once
// A controller that runs as a Deployment's pods (Karpenter, Cluster Autoscaler): it acts only
// while one of its replicas leads. With leader election on (Karpenter: controller-runtime's
// manager, client-go leaderelection over the Lease karpenter-leader-election), the first replica
// to run takes the Lease at once; when the leader goes, another Running replica takes over after
// one retry period if the leader released the Lease on its way out (Karpenter sets
// LeaderElectionReleaseOnCancel, so a graceful termination releases it), or after the lease
// duration when it vanished without releasing (its node lost). Without leader election every
// Running replica acts, as Cluster Autoscaler's single replica does here.
//
// Kept incrementally from the API server's pod notifications: no scan of the replicas per
// question. Its notifications only update state, so watching changes no event's order.
#include <optional>
#include <string>
#include <vector>

#include "models/k8s/api/api_server.hpp"
#include "models/k8s/controllers/deployment_controller.hpp"
#include "models/k8s/scheduling/scheduler_controller.hpp"
#include "sim/engine/time.hpp"

namespace eksim {

// controller-runtime's defaults (pkg/manager: LeaseDuration 15 s, RenewDeadline 10 s,
// RetryPeriod 2 s), which Karpenter leaves as they are (pkg/operator/operator.go sets only
// the ID, the Leases lock, the namespace and ReleaseOnCancel).
struct LeaderElectionConfig {
  bool enabled = true;
  engine::Duration lease_duration = engine::Duration::seconds(15);
  engine::Duration retry_period = engine::Duration::seconds(2);
  bool release_on_cancel = true;
};

class ControllerReplicas {
 public:
  ControllerReplicas(k8s::ApiServer& api, const k8s::DeploymentController& deployments, k8s::SchedulerController& scheduler,
                     std::size_t deployment, LeaderElectionConfig election);
  ControllerReplicas(const ControllerReplicas&) = delete;
  ControllerReplicas& operator=(const ControllerReplicas&) = delete;

  std::size_t deployment() const { return deployment_; }
  // The controller's Deployment was deleted and applied again (a new object): watch that one.
  void retarget(std::size_t deployment);
  // Whether the controller acts now: a leader holds the Lease (or, without leader election,
  // a replica is Running).
  bool acting(engine::SimTime now) const;
  // The replica holding (or about to take) the Lease and since when it leads.
  std::optional<k8s::PodId> leader() const { return leader_; }
  engine::SimTime leading_since() const { return leading_since_; }
  // The last FailedScheduling message of a replica the scheduler could not place ("" when none
  // is unschedulable now): why the controller does not run.
  const std::string& unschedulable_message() const { return unschedulable_message_; }
  std::optional<k8s::PodId> unschedulable_replica() const { return unschedulable_replica_; }

 private:
  bool owned(k8s::PodId id) const;
  void on_phase(k8s::PodId id);
  void on_gone(k8s::PodId id, bool released);
  void elect(engine::SimTime lease_free_at);

  k8s::ApiServer& api_;
  const k8s::DeploymentController& deployments_;
  std::size_t deployment_;
  LeaderElectionConfig election_;
  std::vector<k8s::PodId> running_;  // Running replicas not terminating, in the order they started
  std::optional<k8s::PodId> leader_;
  engine::SimTime leading_since_{};
  engine::SimTime lease_free_at_{};  // when the last leader's Lease can be taken
  std::string unschedulable_message_;
  std::optional<k8s::PodId> unschedulable_replica_;
};

}  // namespace eksim
