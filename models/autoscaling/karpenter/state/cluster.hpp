#pragma once
// Karpenter's cluster state (kubernetes-sigs/karpenter pkg/controllers/state/cluster.go): the
// nodes its scheduling simulations place pods on (StateNodes), kept up to date from the node and
// pod notifications instead of being rebuilt for every pass, and the pod equivalence classes
// that let a simulation answer "the first node this pod fits" from per-node cached filter results.
//
// A StateNode is rebuilt only when something about it changed (a pod bound, finished or deleted
// on it; the Node edited; its NodeClaim initialized). A Snapshot is the set of StateNodes one
// pass sees, in scheduling order (initialized first, then by name); it is rebuilt only when the
// state version moved. SimulationNodes is one simulation's view of a snapshot: some nodes left
// out (the consolidation candidates), pods placed during the simulation kept in a copy-on-write
// overlay, so the snapshot stays untouched for the next candidate.
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "models/autoscaling/karpenter/provisioning/scheduling/scheduler.hpp"
#include "models/k8s/scheduling/pod_classes.hpp"

namespace eksim::autoscaling::karpenter::state {

using k8s::PodClasses;


// One node as the simulations see it, with the filter results per pod class.
struct StateNode {
  ExistingNode node;
  bool dirty = true;
  bool in_order = false;   // listed in Cluster::ordered_
  bool ordered_initialized = false;
  std::string ordered_name;
  // position() as of Cluster::order_version position_version: a disruption pass asks it for
  // every candidate, and the order moves far less often.
  mutable std::uint64_t position_version = ~std::uint64_t{0};
  mutable std::optional<std::uint32_t> cached_position;
  std::vector<std::int8_t> fits;  // per pod class: -1 not known yet, 0 no, 1 yes
  bool counts_anti_affinity = false;  // counted in Cluster::anti_affinity_nodes
  std::uint64_t identity = 0;  // NodeId, or (1 << 32 | NodeClaim index) for a launched NodeClaim
  // For a Node: its NodeClaim (looked up once: an instance has one), and the node stamp and
  // NodeClaim phase the last snapshot saw (unchanged: nothing to redo for this node).
  bool claim_resolved = false;
  std::size_t claim_index = SIZE_MAX;
  std::uint64_t seen_stamp = 0;
  int seen_phase = -2;
  bool fits_class(std::uint32_t c, const PodClasses& classes, const k8s::SchedulerOptions& options);
};

// The nodes one pass sees, in scheduling order.
struct Snapshot {
  std::uint64_t version = 0;
  std::vector<StateNode*> nodes;
  bool any_required_anti_affinity = false;
  // The pods with required anti-affinity on these nodes, with their positions (in most clusters
  // only Karpenter's own controller pods, whose terms select each other).
  std::vector<std::pair<std::uint32_t, const k8s::Pod*>> anti_affinity_pods;
  // Whether one of those terms selects the pod. When none does, the kube-scheduler's
  // InterPodAffinity filter passes it on every node and Karpenter's topology ignores the terms:
  // simulating it is the same as without them (the class paths stay open).
  bool anti_affinity_selects(const k8s::Pod& pod) const;
  bool anti_affinity_selects_any(const std::vector<const k8s::Pod*>& pods) const;
  // Per pod class, the positions (ascending) whose node the class fits.
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> fit_positions;
  const std::vector<std::uint32_t>& fits_of(std::uint32_t c, const PodClasses& classes, const k8s::SchedulerOptions& options);
};

// One simulation over a snapshot.
class SimulationNodes : public ExistingNodes {
 public:
  // excluded: positions in the snapshot left out of this simulation.
  SimulationNodes(Snapshot& snapshot, PodClasses& classes, std::vector<std::uint32_t> excluded = {});
  std::size_t size() const override { return snap_.nodes.size(); }
  const ExistingNode& get(std::size_t i) const override;
  const ExistingNode& base(std::size_t i) const override { return snap_.nodes[i]->node; }
  void add_pod(std::size_t i, const k8s::Pod& pod) override;
  bool excluded(std::size_t i) const override;
  bool any_required_anti_affinity() const override { return snap_.any_required_anti_affinity; }
  const std::vector<std::pair<std::uint32_t, const k8s::Pod*>>* anti_affinity_pods() const override {
    return &snap_.anti_affinity_pods;
  }
  bool first_fit(const k8s::Pod& pod, const k8s::SchedulerOptions& options, std::optional<std::size_t>& out) override;
  std::optional<std::uint32_t> pod_class(const k8s::Pod& pod) override { return classes_.of(pod); }
  // Whether solve() can take these pods as they are (bound ones included): every one has a class
  // and no existing pod's required anti-affinity selects one, so no filter sees a pod's
  // nodeName. Then their distinct classes, in pod order; else nullopt.
  std::optional<std::vector<std::uint32_t>> classes_of(const std::vector<const k8s::Pod*>& pods) const;
  // For pods of these classes: no initialized node here fits any of them, and an uninitialized
  // one fits at least one. Then solve() is bound to place a pod on an uninitialized node (it
  // tries existing nodes first, initialized ones before the others), and the answer is known
  // without it.
  bool only_uninitialized_fit(const std::vector<std::uint32_t>& classes) const;
  // For pods of these classes: one of them fits no node here, so solve() must give it a new
  // NodeClaim (or fail it), whatever the others do.
  bool some_class_fits_no_node(const std::vector<std::uint32_t>& classes) const;

 private:
  Snapshot& snap_;
  PodClasses& classes_;
  std::vector<std::uint32_t> excluded_;  // sorted positions
  // Pods placed in this simulation per node; a node's full NodeInfo with them is built only when
  // asked for (get), the fast path counts resources from the delta.
  struct Delta {
    std::vector<const k8s::Pod*> pods;
    k8s::ResourceList requested;
  };
  std::unordered_map<std::size_t, Delta> delta_;
  mutable std::unordered_map<std::size_t, ExistingNode> overlay_;
  bool fits_with_delta(const k8s::Pod& rep, const k8s::NodeInfo& base, const Delta& d) const;
  std::unordered_map<std::uint32_t, std::size_t> cursor_;  // class -> index into its fit positions
};

// The StateNodes themselves and their scheduling order.
struct Cluster {
  std::uint64_t version = 1;  // moves on every change a simulation could see
  std::unordered_map<std::uint32_t, StateNode> nodes;     // by NodeId
  std::unordered_map<std::size_t, StateNode> launched;   // by NodeClaim index: launched, no Node yet
  // Scheduling order: [0] initialized, [1] not; each sorted by name (ordered_name). A snapshot
  // lists [0] then [1], so a node's position is found by its name.
  std::vector<StateNode*> ordered[2];
  std::uint64_t order_version = 0;  // moves whenever `ordered` does (positions are cached by it)
  // Listed nodes with a pod of required anti-affinity (kept with counts_anti_affinity).
  std::size_t anti_affinity_nodes = 0;
  // Nodes a notification touched since the last snapshot (NodeIds, each once): the snapshot
  // revisits these, not every node.
  std::vector<std::uint32_t> changed;
  std::vector<bool> changed_flag;
  void mark_changed(std::uint32_t node_id) {
    if (node_id >= changed_flag.size()) changed_flag.resize(node_id + 1, false);
    if (changed_flag[node_id]) return;
    changed_flag[node_id] = true;
    changed.push_back(node_id);
  }
  PodClasses classes;
  std::unique_ptr<Snapshot> snapshot;

  std::vector<std::uint64_t> node_stamps;  // by NodeId: changes seen
  std::uint64_t& node_stamp(std::uint32_t node_id) {
    if (node_id >= node_stamps.size()) node_stamps.resize(node_id + 1, 0);
    return node_stamps[node_id];
  }

  void touch() { ++version; }
  void dirty(std::uint32_t node_id);
  // Keeps `ordered` in step with the entry's current name and initialized flag (or drops it),
  // and the anti-affinity count with its pods.
  void reorder(StateNode& s, bool keep);
  // The node's position in a snapshot of the current order, or nullopt when it is not listed.
  std::optional<std::uint32_t> position(const StateNode& s) const;
};

}  // namespace eksim::autoscaling::karpenter::state
