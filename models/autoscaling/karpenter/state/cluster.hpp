#pragma once
// Karpenter's cluster state (kubernetes-sigs/karpenter pkg/controllers/state/cluster.go), the
// one view every Karpenter controller reads and writes: the NodePools, NodeClasses and NodeClaims,
// and the nodes its scheduling simulations place pods on (StateNodes), kept up to date from the node and
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
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "models/autoscaling/karpenter/nodeclaim.hpp"
#include "models/autoscaling/karpenter/nodepool.hpp"
#include "models/autoscaling/karpenter/provisioning/scheduling/scheduler.hpp"
#include "models/cluster/cluster.hpp"
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

// Per node, what disruption reads from its pods, valid while the node's stamp holds.
struct NodePods {
  std::uint64_t stamp = 0;
  bool blocks = false;  // karpenter.sh/do-not-disrupt on the node or one of its reschedulable pods
  int reschedulable = 0;
  std::vector<k8s::PodId> reschedulable_ids;  // in the node's pod order
  // The pod classes of those pods in first-seen order, nullopt when one has none (see
  // Cluster::pod_classes_of); computed on first use.
  bool classes_known = false;
  std::optional<std::vector<std::uint32_t>> classes;
};

// The cluster state: the Karpenter objects, and the StateNodes with their scheduling order.
struct Cluster {
  explicit Cluster(eksim::Cluster& world) : world(world) {}
  eksim::Cluster& world;

  // --- NodePools, NodeClasses, NodeClaims (by name; NodeClaims keep their history)
  std::map<std::string, NodePool> node_pools;
  std::map<std::string, NodeClass> node_classes;
  std::vector<NodeClaimState> node_claims;
  std::uint64_t config_version = 0;  // NodePools or NodeClasses changed
  std::uint64_t claims_version = 0;  // NodeClaims added or gone (capacity usage)
  std::uint64_t pass = 0;            // provisioning and disruption passes, for per-pass caches
  // The NodePool's NodeClass (nullptr: none of that name and kind).
  const NodeClass* node_class_of(const NodePool& p) const;
  // The NodeClaim's NodePool (nullptr: gone), per config version.
  const NodePool* pool_of(const NodeClaimState& c);
  // NodeClaims by name and by instance id (indexes, the first NodeClaim of a name wins).
  NodeClaimState* claim_by_instance(const std::string& id);
  NodeClaimState* claim_by_name(const std::string& name);
  // The NodeClaim of a live node (nullptr: not Karpenter's), resolved once per node.
  NodeClaimState* claim_of_node(std::uint32_t node_id);
  // Appends a NodeClaim to node_claims and its indexes; returns its index.
  std::size_t add_claim(NodeClaimState c);
  // Indexes of the NodeClaims not Deleted, ascending.
  const std::vector<std::size_t>& live_claims();
  // The claim's Node, if it exists: its cached id when still valid, else by name.
  std::optional<k8s::NodeId> node_of(const NodeClaimState& c) const;
  // A NodeClaim's phase moved: its node's StateNode is revisited by the next snapshot, and the
  // watchers of deleted NodeClaims hear of it.
  void claim_phase_changed(const NodeClaimState& c);
  std::vector<std::function<void(const NodeClaimState&)>> on_claim_deleted;

  // --- what the notifications tell
  // Something a simulation could see changed on this node (invalid id: somewhere).
  void state_changed(k8s::NodeId node);
  // A pod came or went on the node: its NodeClaim's consolidateAfter starts again (podevents).
  void pod_moved(k8s::NodeId node);
  // Karpenter's own write to a Node (a label, a taint): its node watchers let it pass.
  void update_node(k8s::NodeId node);
  bool in_node_update = false;

  // --- nodes marked for deletion (the karpenter.sh/disrupted taint, or the NodeClaim deleting)
  bool marked_for_deletion(std::uint32_t node_id);
  // The nodes marked for deletion now, ascending.
  const std::set<std::uint32_t>& marked_nodes();
  // Nodes that may be marked for deletion: a superset, pruned by marked_nodes().
  std::set<std::uint32_t> maybe_marked;
  // The reschedulable pods still on nodes marked for deletion, unbound (their ids into `ids`).
  std::vector<k8s::Pod> deleting_node_pods(std::vector<k8s::PodId>* ids = nullptr);
  bool any_deleting_node_pods();

  // --- the nodes the simulations see
  // Now (rebuilt only after a change).
  Snapshot& snapshot();
  // Positions in the current snapshot of the given nodes (those it lists).
  std::vector<std::uint32_t> positions_of(const std::vector<k8s::NodeId>& ids);
  // For tests: the snapshot's nodes, in scheduling order, and the same computed from scratch
  // from the API objects.
  std::vector<ExistingNode> cached_simulation_nodes();
  std::vector<ExistingNode> rebuilt_simulation_nodes();
  NodePods& node_pods(k8s::NodeId node);
  // What SimulationNodes::classes_of gives for the node's reschedulable pods (the snapshot's
  // required anti-affinity aside), cached with the node's stamp.
  const std::optional<std::vector<std::uint32_t>>& pod_classes_of(k8s::NodeId node);

  // --- StateNodes
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
  std::unique_ptr<Snapshot> snapshot_;  // the last one snapshot() built

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

 private:
  // The StateNodes of the nodes notifications touched, and of the NodeClaims not registered yet.
  void revisit_changed_nodes();
  void track_launched_claims();
  void rebuild_state_node(StateNode& s, const k8s::NodeRecord& rec, const NodeClaimState* claim);
  static ExistingNode launched_claim_node(const NodeClaimState& c);
  std::unordered_map<std::string, std::size_t> claim_index_by_name_, claim_index_by_instance_;
  std::vector<std::size_t> live_claims_;
  std::vector<std::pair<std::uint64_t, const NodePool*>> pool_cache_;  // by NodeClaim index
  std::uint32_t seen_node_slots_ = 0;
  std::vector<NodePods> node_pods_;  // by NodeId
};

}  // namespace eksim::autoscaling::karpenter::state
