#pragma once
// What Cluster Autoscaler's loop simulates on (cluster-autoscaler/simulator/clustersnapshot):
//
// - NodeInfoCache is the informer side: a NodeInfo per live node, kept from the API server's
//   notifications and rebuilt only for a node whose pods or object changed since the last loop,
//   so a loop costs what changed, not every node and pod again.
// - SnapshotFork is ClusterSnapshot.Fork/Revert/Commit: a simulation's view over those NodeInfos
//   (plus template nodes it owns) that copies a node only when a simulated pod lands on it, and
//   can undo a trial (a node whose pods cannot all move) without copying the cluster.
#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "models/autoscaling/cas/simulator/utilization.hpp"
#include "models/k8s/api/api_server.hpp"
#include "models/k8s/scheduling/node_info.hpp"
#include "models/k8s/scheduling/plugins.hpp"

namespace eksim::autoscaling::cas {

class NodeInfoCache {
 public:
  // Subscribes to the API server's bus (pods bound, changing phase, deleted; nodes added,
  // changed, deleted) and adopts the nodes that already exist.
  explicit NodeInfoCache(k8s::ApiServer& api);
  NodeInfoCache(const NodeInfoCache&) = delete;
  NodeInfoCache& operator=(const NodeInfoCache&) = delete;

  // Live (not deleted) nodes, in NodeId order.
  const std::set<k8s::NodeId>& live() const { return live_; }
  // Pods still in the API (not deleted), in PodId order: what the pod lister returns, without
  // walking every pod the cluster ever had.
  const std::set<k8s::PodId>& live_pods() const { return live_pods_; }
  // The node with its bound, not deleted pods (terminal pods hold nothing, as make_node_info
  // leaves them out); rebuilt here if something changed since it was last built.
  const k8s::NodeInfo& get(k8s::NodeId id);
  // The node's utilization (simulator/utilization) as of get(id), computed once per build.
  const Utilization& utilization(k8s::NodeId id, bool gpu_expected);
  // Frees what deleted nodes left behind; call between loops, never while a SnapshotFork
  // shares NodeInfos.
  void collect();
  // How many NodeInfos were (re)built so far (tests check that a quiet loop rebuilds none).
  std::uint64_t rebuilds() const { return rebuilds_; }
  // Moves with every event the informers see: a pod added, updated, bound, changing phase,
  // terminating or deleted; a node added, changed or deleted. Equal versions: the same cluster.
  std::uint64_t version() const { return version_; }

 private:
  struct Entry {
    std::optional<k8s::NodeInfo> info;
    bool node_dirty = true;  // the Node object changed: copy it again
    bool pods_dirty = true;  // a pod on it was bound, changed phase or went away
    std::optional<Utilization> util[2];  // by gpu_expected
  };
  void mark(k8s::NodeId id, bool node);
  std::vector<k8s::NodeId> deleted_;
  k8s::ApiServer& api_;
  std::set<k8s::NodeId> live_;
  std::set<k8s::PodId> live_pods_;
  std::deque<Entry> entries_;  // by NodeId (a deque: growing keeps the NodeInfos in place)
  std::uint64_t rebuilds_ = 0;
  std::uint64_t version_ = 0;
};

class SnapshotFork {
 public:
  // A node shared with the cache (copied on first write).
  std::size_t add_shared(const k8s::NodeInfo* info);
  // A node only this simulation knows (a template or upcoming node).
  std::size_t add_owned(k8s::NodeInfo info);
  std::size_t size() const { return view_.size(); }
  void reserve(std::size_t n) {
    view_.reserve(n);
    owned_.reserve(n);
    saved_.reserve(n);
  }
  const k8s::NodeInfo& at(std::size_t i) const { return *view_[i]; }
  // Whether node i is still the shared NodeInfo (no simulated pod landed on it).
  bool shared(std::size_t i) const { return owned_[i] == nullptr; }
  // Every node as the scheduler plugins see the cluster (NodeInfoView).
  const std::vector<const k8s::NodeInfo*>& view() const { return view_; }
  // Simulates binding pod to node i (k8s::add_pod on the fork's own copy).
  void add_pod(std::size_t i, const k8s::Pod& pod);
  // Whether a pod on one of the nodes has required pod anti-affinity, kept as nodes and pods
  // are added, so a PodFitter need not walk every node to learn it.
  bool any_required_anti_affinity() const { return pods_with_required_anti_affinity_ > 0; }

  // A trial whose writes revert() undoes and commit() keeps (ClusterSnapshot.Fork/Revert/Commit).
  void fork();
  void revert();
  void commit();

 private:
  k8s::NodeInfo& writable(std::size_t i);
  std::vector<const k8s::NodeInfo*> view_;
  std::vector<k8s::NodeInfo*> owned_;  // nullptr while shared
  std::deque<k8s::NodeInfo> storage_;
  bool forked_ = false;
  // Undo log of the trial: node index, its pointer and owned copy before the trial's first write.
  struct Saved {
    std::size_t index;
    const k8s::NodeInfo* view;
    k8s::NodeInfo* owned;
    std::optional<k8s::NodeInfo> before;  // the owned node's state, when it was owned already
  };
  std::vector<Saved> undo_;
  std::vector<bool> saved_;  // by index, inside the current trial
  std::int64_t pods_with_required_anti_affinity_ = 0, before_trial_ = 0;
};

// The scheduler's filters for one pod against a sequence of nodes: the pod's PreFilter state
// is computed once per search (no pod is added while searching), and nodes short of the pod's
// requests are passed over before the plugins run (NodeResourcesFit would refuse them anyway).
class PodFitter {
 public:
  // any_existing_anti_affinity: as pre_filter takes it (SnapshotFork keeps it; nullopt: walk).
  PodFitter(const k8s::Pod& pod, k8s::NodeInfoView all, const k8s::SchedulerOptions& options,
            std::optional<bool> any_existing_anti_affinity = std::nullopt);
  bool fits(const k8s::NodeInfo& node) const;
  // The full result (with the failure reasons) against one node.
  k8s::FilterResult check(const k8s::NodeInfo& node) const;

 private:
  const k8s::Pod& pod_;
  k8s::PodSchedulingInfo info_;
  k8s::PreFilterState state_;
  const k8s::SchedulerOptions& options_;
};

// First fit over nodes that only gain pods while a simulation runs (filterOutSchedulable, the
// binpacking estimator): a pending pod of an earlier pod's template (PodRecord::template_id: the
// same spec) cannot fit on a node that refused the earlier one, so its search may start where the
// earlier one ended. That holds for pods without topology spread constraints or required
// inter-pod (anti-)affinity, while no pod in the snapshot has required anti-affinity (labels then
// play no part in the filters).
class FirstFitMemo {
 public:
  explicit FirstFitMemo(k8s::NodeInfoView all);
  // Where the search for pod may start (0 when nothing is known).
  std::size_t start(const k8s::Pod& pod, std::uint32_t template_id) const;
  // The search for pod ended at `end`: the node it was placed on, or the number of nodes when
  // none took it.
  void record(const k8s::Pod& pod, std::uint32_t template_id, std::size_t end);

 private:
  static bool applies(const k8s::Pod& pod);
  struct Entry {
    std::uint32_t template_id;
    std::size_t end;
  };
  std::vector<Entry> entries_;
  bool off_ = false;
};

// Whether a node has room for the requests at all (pods count and every requested resource):
// a necessary condition of NodeResourcesFit.
bool has_room(const k8s::PodSchedulingInfo& pod, const k8s::NodeInfo& node);

}  // namespace eksim::autoscaling::cas
