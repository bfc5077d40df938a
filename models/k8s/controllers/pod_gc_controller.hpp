#pragma once
// The pod garbage collector of kube-controller-manager (pkg/controller/podgc).
//
// Orphaned pods (gcOrphaned): pods bound to a Node that no longer exists (`kubectl delete node`
// while its instance runs on) are force-deleted, marked Failed with DisruptionTarget
// DeletionByPodGC "PodGC: node no longer exists", at the first pass at least quarantineTime
// (40 s) after the Node went. A Node removed with its instance takes its pods at once.
//
// Terminated pods: every 20 s (gcCheckPeriod), when more than --terminated-pod-gc-threshold pods are in a
// terminal phase (Succeeded or Failed), the oldest ones beyond the threshold are deleted, evicted
// pods first, then by creationTimestamp. The default threshold is 12,500 and EKS does not change
// it. No event is recorded: upstream only logs "Garbage collecting pods".
//
// The terminated pods are kept in a set ordered as upstream sorts them, maintained from the pod
// notifications, so a pass costs only what it deletes.
#include <cstdint>
#include <set>
#include <tuple>
#include <unordered_map>

#include "models/k8s/api/api_server.hpp"

namespace eksim::k8s {

struct PodGcOptions {
  std::int64_t terminated_pod_gc_threshold = 12500;                 // --terminated-pod-gc-threshold
  engine::Duration gc_check_period = engine::Duration::seconds(20);  // podgc gcCheckPeriod
  engine::Duration quarantine_time = engine::Duration::seconds(40);  // podgc quarantineTime
};

class PodGcController {
 public:
  explicit PodGcController(ApiServer& api, PodGcOptions options = {});
  std::size_t terminated() const { return terminated_.size(); }
  // One pass now (the periodic loop calls it; tests call it directly).
  void gc_terminated();
  // gcOrphaned for one deleted Node: deletes the pods still bound to it.
  void gc_orphaned(NodeId node);

 private:
  // (not evicted, creationTimestamp, slot): upstream's byEvictionAndCreationTimestamp, with the
  // pod's slot as the tie-break that keeps the order deterministic.
  using Key = std::tuple<bool, std::int64_t, std::uint32_t>;
  Key key_of(PodId id) const;

  ApiServer& api_;
  PodGcOptions options_;
  std::set<Key> terminated_;
  std::unordered_map<std::uint32_t, Key> key_by_slot_;  // what each pod was filed under
};

}  // namespace eksim::k8s
