#pragma once
// DaemonSet controller: one pod per eligible node. Eligibility is upstream's
// nodeShouldRunDaemonPod: the pod (with the tolerations the controller adds) must match the
// node's name, nodeSelector and required node affinity, and tolerate its NoSchedule/NoExecute
// taints; a pod already there keeps running while only NoSchedule taints are untolerated. The
// pod gets required node affinity matchFields metadata.name=<node> (ReplaceDaemonSetPodNodeName
// NodeAffinity) and is bound by the default scheduler. Events (daemonset-controller):
// `SuccessfulCreate` "Created pod: <pod>", `SuccessfulDelete` "Deleted pod: <pod>".
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/k8s/api/api_server.hpp"

namespace eksim::k8s {

class Kubelet;

// util.AddOrUpdateDaemonPodTolerations: not-ready and unreachable (NoExecute), disk-pressure,
// memory-pressure, pid-pressure, unschedulable (NoSchedule), network-unavailable (NoSchedule,
// host-network pods only).
void add_daemon_pod_tolerations(PodSpec& spec);

struct DaemonPlacement {
  bool should_run = false;
  bool should_continue_running = false;
};
DaemonPlacement node_should_run_daemon_pod(const DaemonSet& ds, const Node& node);
// The same, given the daemon pod's spec (the template's with add_daemon_pod_tolerations applied).
DaemonPlacement node_should_run_daemon_pod(const PodSpec& daemon_spec, const Node& node);

class DaemonSetController {
 public:
  explicit DaemonSetController(ApiServer& api, Kubelet* kubelet = nullptr);
  std::size_t apply(DaemonSet ds);  // stored in api.daemon_sets(); returns its index
  // kubectl delete: false when no such DaemonSet; its pods go in the background.
  bool remove(const std::string& ns, const std::string& name);
  // DESIRED as `kubectl get ds` shows it: eligible live nodes.
  int desired_number_scheduled(std::size_t index) const;
  std::optional<PodId> pod_on(std::size_t index, const std::string& node) const;

 private:
  void enqueue();
  void reconcile_all();
  void reconcile(std::size_t index);
  // A reconcile limited to what changed since the last one: the nodes with node events and the
  // nodes whose daemon pods were deleted or failed. Every other node is as the last pass left
  // it, where a full pass would do nothing.
  void reconcile(std::size_t index, const std::set<std::string>& names, const std::vector<NodeId>& nodes);
  void sync_node(std::size_t index, NodeId node);
  void delete_daemon_pod(std::size_t index, PodId pod);
  // podsShouldBeOnNode's failed daemon pod: killed (FailedDaemonPod, then SuccessfulDelete) at
  // most once per back-off, so that a DaemonSet whose pods a kubelet keeps rejecting does not
  // hot-loop with it; within the back-off the node is looked at again when it ends.
  void kill_failed_pod(std::size_t index, const std::string& node, PodId pod);
  // The daemon pod's spec of DaemonSet `index` (templates do not change once applied), made once:
  // every node that joins is checked against it.
  const PodSpec& daemon_spec(std::size_t index) const;
  mutable std::deque<PodSpec> daemon_specs_;  // by DaemonSet index

  ApiServer& api_;
  Kubelet* kubelet_;
  std::map<std::size_t, std::map<std::string, PodId>> pods_;  // ds -> node name -> pod
  bool queued_ = false;
  std::set<NodeId> dirty_nodes_;
  std::set<std::string> dirty_names_;
  // failedPodsBackoff: flowcontrol.NewBackOff(1s, 15min) keyed by DaemonSet and node; an entry
  // not updated for twice the maximum starts over (hasExpired).
  struct FailedPodsBackoff {
    engine::Duration backoff{};
    engine::SimTime last_update;
  };
  std::map<std::pair<std::size_t, std::string>, FailedPodsBackoff> failed_backoff_;
};

}  // namespace eksim::k8s
