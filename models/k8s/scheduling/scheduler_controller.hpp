#pragma once
// The kube-scheduler's queue and binding around schedule_one (models/k8s/scheduling): pods with
// an empty nodeName and this scheduler's name are queued on creation (priority, then age); an
// attempt binds with `Scheduled` "Successfully assigned NS/POD to NODE" or records
// `FailedScheduling` with the exact message and parks the pod as unschedulable until a node is
// added, updated or becomes Ready, or a pod is deleted or finishes. Re-queued pods wait out their
// back-off (1 s doubling to 10 s: podInitialBackoffDuration, podMaxBackoffDuration); pods parked
// longer than 5 min are flushed back every 30 s (podMaxInUnschedulablePodsDuration,
// flushUnschedulablePodsLeftover).
//
// Queueing hints (SchedulerQueueingHints, on by default since 1.32): a cluster event moves a
// parked pod back only if it could make the pod schedulable for a plugin that rejected it
// (queueing_hints.hpp). A pod rejected with no plugin (no nodes at all) moves on any event.
//
// A cluster of pending pods is mostly copies (a Deployment's replicas): the queue keeps parked pods
// grouped by what a hint reads (their filter class, pod_classes.hpp, and the plugins that rejected
// them) and asks each hint once per group; an attempt whose pod class, priority and snapshot are
// those of the last failed attempt has that attempt's result (the filters would run on the same
// inputs, and the pods share that result). Both give exactly the pods, order and messages of
// asking pod by pod. Per-pod state is indexed by PodId, and the flush reads parked pods in the
// order they were parked: no step scans every pending pod.
//
// Pods created with spec.nodeName set are bound to that node as soon as it exists (they bypass
// the scheduler, as upstream).
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/k8s/api/api_server.hpp"
#include "models/k8s/scheduling/pod_classes.hpp"
#include "models/k8s/scheduling/schedule.hpp"

namespace eksim::k8s {

class Kubelet;

struct SchedulerControllerOptions {
  KubernetesVersion version;                  // the scenario's kubernetesVersion
  std::string scheduler_name = "default-scheduler";
  bool preemption = true;
  engine::Duration initial_backoff = engine::Duration::seconds(1);
  engine::Duration max_backoff = engine::Duration::seconds(10);
  engine::Duration max_in_unschedulable = engine::Duration::minutes(5);
  engine::Duration flush_period = engine::Duration::seconds(30);
};

class SchedulerController {
 public:
  // kubelet: evicts preemption victims gracefully; without it victims are removed at once.
  SchedulerController(ApiServer& api, SchedulerControllerOptions options = {}, Kubelet* kubelet = nullptr);
  SchedulerController(const SchedulerController&) = delete;
  SchedulerController& operator=(const SchedulerController&) = delete;

  // Pods currently parked as unschedulable (by PodId order): what autoscalers act on.
  std::vector<PodId> unschedulable_pods() const;
  // Moves whenever a pod joins or leaves that list.
  std::uint64_t unschedulable_version() const { return unschedulable_version_; }
  bool is_unschedulable(PodId pod) const { return pod.v < pods_.size() && pods_[pod.v].group != kNotParked; }
  // The last failed attempt's result for a pod (message, reason histogram).
  const ScheduleResult* last_failure(PodId pod) const;
  const SchedulingSnapshot& snapshot() const { return snapshot_; }
  const SchedulerControllerOptions& options() const { return options_; }

  // Fires after FailedScheduling was recorded for the pod.
  std::vector<std::function<void(PodId, const ScheduleResult&)>> on_unschedulable;
  std::vector<std::function<void(PodId, NodeId)>> on_scheduled;

 private:
  static constexpr std::uint32_t kNotParked = UINT32_MAX;
  static constexpr std::uint32_t kParkedAlone = UINT32_MAX - 1;  // parked, in no group (no class)
  // What the queue knows of one pod, by PodId (ids are handed out densely, in order).
  struct PodQueueState {
    std::shared_ptr<const ScheduleResult> failure;  // the last failed attempt's result, shared
    engine::SimTime last_attempt;
    std::uint64_t park_serial = 0;   // the park that the group member and flush entries belong to
    std::uint32_t attempts = 0;
    std::uint32_t group = kNotParked;
    bool queued = false;             // in activeQ or waiting out a back-off
    bool listed = false;             // in unschedulable_
  };
  // Parked pods of one (filter class, rejecting plugins). Members are appended on park and
  // dropped lazily: a member whose pod has since left or parked again is stale.
  struct ParkedGroup {
    std::vector<std::pair<std::uint32_t, std::uint64_t>> members;  // (pod, park serial)
    std::size_t live = 0;
    std::size_t position = 0;  // in live_groups_ while live > 0
    std::size_t head = 0;      // members before it are stale
  };
  struct Parked {
    engine::SimTime since;
    std::uint32_t pod;
    std::uint64_t serial;
  };

  void on_pod_added(PodId id);
  void on_node(NodeId id, NodeChange change);
  void on_pod_gone(PodId id, bool deleted);
  void push_active(PodId id);
  void kick();
  void run_cycle();
  void attempt(PodId id);
  void flush_unschedulable();
  // The queueing hints after a node event or an assigned pod leaving: moves the parked groups
  // whose representative `worth` picks back to the active queue or back-off.
  void requeue_if(const std::function<bool(const Pod& pending, const std::set<std::string>* rejected_by)>& worth);
  void requeue(std::vector<PodId> pods);
  void park(PodId id);
  std::uint32_t group_of(const Pod& pod, const std::shared_ptr<const ScheduleResult>& failure);
  void unpark(PodId id);
  bool parked_member(std::uint32_t pod, std::uint64_t serial) const;
  std::uint32_t first_parked(ParkedGroup& group) const;
  void drop_stale_members(ParkedGroup& group) const;
  void set_listed(PodId id, bool listed);
  void move_to_active_or_backoff(PodId id);
  PodQueueState& state(PodId id);
  Node snapshot_node(const Node& node) const;

  ApiServer& api_;
  SchedulerControllerOptions options_;
  Kubelet* kubelet_;
  SchedulingSnapshot snapshot_;
  std::uint64_t park_serial_ = 0;
  // activeQ: the highest priority first, then in the order the pods were queued. One FIFO per
  // priority gives a heap's order over (priority, sequence number) at O(1) a pod: 100,000
  // requeued replicas share one priority. Stale entries (bound or deleted since) are skipped.
  std::map<std::int32_t, std::deque<PodId>, std::greater<>> active_;
  std::vector<PodQueueState> pods_;
  std::vector<ParkedGroup> groups_;
  std::map<std::string, std::uint32_t> group_by_key_;  // "<class>|<rejecting plugins>," -> group
  std::vector<std::uint32_t> live_groups_;              // groups with parked pods
  std::set<std::uint32_t> parked_alone_;                // parked pods in no class
  std::deque<Parked> park_order_;                       // by time parked, for the flush
  std::size_t parked_ = 0;
  std::uint64_t unschedulable_version_ = 0;
  std::set<std::uint32_t> unschedulable_;  // failed and still pending (parked, queued or backing off)
  PodClasses classes_;
  struct CachedFailure {
    std::uint32_t pod_class = 0;
    std::int32_t priority = 0;
    std::uint64_t generation = 0;
    std::shared_ptr<const ScheduleResult> result;
    std::uint32_t group = kNotParked;  // its group, once a pod parked with it
  };
  std::optional<CachedFailure> last_failure_;
  std::map<std::uint32_t, std::string> bound_in_snapshot_;  // pod -> node name
  std::vector<PodId> waiting_for_node_;      // spec.nodeName pods whose node is not there yet
  bool cycle_pending_ = false;
};

}  // namespace eksim::k8s
