#pragma once
// `eksim run --check-invariants`: after every simulated event, the state the models left must be
// one a real cluster and AWS account could be in. A violation is an eksim bug, never a user
// error: the run stops with the simulated time and what broke.
//
// Checks are incremental: each event looks only at what it changed (pods bound or removed, the
// instances launched or terminated, from the notifications the models already send); a full
// sweep over live nodes, pods, instances and NodeClaims runs every so many events (at least as
// many as the sweep's own size, so its cost per event stays constant) and at the end of the run.
//
// The invariants (each is legal Kubernetes/EC2 semantics turned around):
// - the scheduler binds a pod only to a node whose NoSchedule/NoExecute taints it tolerates
//   (cordon's node.kubernetes.io/unschedulable included), checked at the bind: taints added
//   afterwards (not-ready, NoExecute with tolerationSeconds, cordon) are legal;
// - at a scheduler bind, the node's pods (not finished) request no more than its allocatable of
//   every resource the new pod requests (NodeResourcesFit checks only those), and no more pods;
// - a pod is bound once, to a node in the API; the node's pod list and the pod's nodeName agree;
// - pending + running instances of a quota bucket never exceed its vCPU quota when a launch is
//   accepted (a quota lowered below usage refuses launches; it does not stop instances);
// - an instance is billed up to the moment it began shutting down, never after;
// - simulated time never goes back;
// - a Node's instance exists and is not terminated once the event that terminated it is over;
//   a NodeClaim's instance exists, one NodeClaim per instance, and its Node is that instance's.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/cluster/cluster.hpp"

namespace eksim::autoscaling::karpenter {
struct NodeClaimState;
}

namespace eksim::invariants {

// The run's state broke an invariant: what() is `eksim: invariant violated at <sim time>: <what>`.
class Violation : public std::runtime_error {
 public:
  Violation(engine::SimTime at, const std::string& what);
  engine::SimTime at;
};

// `eksim run`'s exit code when an invariant is violated (0 passed, 1 an expectation failed,
// 2 bad input).
inline constexpr int kInvariantExitCode = 3;

// Resource requests as the checker counts them: 128-bit sums, computed here from the containers'
// own amounts. The checker does not share the arithmetic it checks (ResourceList's saturating
// int64 sums, pod_requests): a wrap or a wrong rail there shows up as a bind the node cannot hold.
struct WideRequests {
  std::vector<std::pair<k8s::ResourceId, __int128>> amounts;
  __int128 get(k8s::ResourceId id) const;
  void add(k8s::ResourceId id, __int128 v);
  void max_with(k8s::ResourceId id, __int128 v);
};
// A pod's requests as the scheduler must count them: the sum over app containers, at least the
// largest init container, per resource.
WideRequests wide_pod_requests(const k8s::PodSpec& spec);

class InvariantChecker {
 public:
  // Subscribes to the cluster's notifications and installs itself as the engine's after-event
  // hook. Install before the cluster starts, so that every instance and bind is seen.
  explicit InvariantChecker(Cluster& cluster);

  // What runs after each event; throws Violation.
  void after_event();
  // Everything, whatever changed (the periodic sweep and the end of the run); throws Violation.
  void sweep();
  // Simulated time never goes back (called by after_event with the engine's clock).
  void check_clock(engine::SimTime now);
  std::uint64_t sweeps() const { return sweeps_; }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  void on_bound(k8s::PodId pod);
  void on_scheduled(k8s::PodId pod, k8s::NodeId node);
  void uncount(k8s::PodId pod);
  void check_new_instances();
  void check_pod_in_node_list(k8s::PodId pod);
  void check_instance_billing(const aws::Instance& inst, engine::SimTime shutting_down_at) const;
  void sweep_nodes_and_pods();
  void sweep_instances();
  void sweep_node_claims();

  Cluster& c_;
  engine::SimTime last_time_{};
  std::uint64_t events_since_sweep_ = 0;
  std::uint64_t sweep_every_ = 4096;
  std::uint64_t sweeps_ = 0;
  // Per pod (by PodId): the node it was bound to while live (UINT32_MAX none), and whether its
  // requests are counted on that node (bound, not finished, not removed).
  std::vector<std::uint32_t> bound_to_;
  std::unordered_map<std::uint32_t, WideRequests> counted_;  // by PodId: requests as counted
  // Per node (by NodeId): requests of its counted pods, and how many.
  std::vector<WideRequests> requested_;
  std::vector<std::int64_t> counted_pods_;
  // This event's pods bound or removed, and instances that began shutting down.
  std::vector<k8s::PodId> dirty_pods_;
  std::vector<std::string> terminated_now_;
  // When each instance began shutting down, as seen here (billing must stop then).
  std::unordered_map<std::string, engine::SimTime> shut_down_at_;
  // Instances seen so far (ec2.instances() only grows) and the vCPUs of pending + running ones
  // per (bucket, spot), counted here rather than read from EC2's own ledger.
  std::size_t instances_seen_ = 0;
  std::map<std::pair<std::string, bool>, std::int64_t> vcpus_in_use_;
  std::unordered_map<std::string, std::int64_t> in_use_;  // instance id -> its counted vCPUs
};

// The NodeClaim checks over a NodeClaim list (separate so that tests can hand it any list): the
// first inconsistency in words, or an empty string.
std::string node_claims_problem(const std::vector<autoscaling::karpenter::NodeClaimState>& claims, const Cluster& c);

}  // namespace eksim::invariants
