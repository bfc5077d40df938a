#pragma once
// The Karpenter controller in the simulated cluster: provisioner (batching, scheduling, launch),
// NodeClaim lifecycle (Launched -> Registered -> Initialized, liveness timeouts), the
// unavailable-offerings cache, disruption (emptiness, consolidation, drift, expiration, budgets,
// do-not-disrupt) and spot interruption. EKS Auto Mode is the same engine with the
// eks.amazonaws.com label domain, the NodeClass kind, built-in NodePools and its event source.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <string>
#include <vector>

#include "models/autoscaling/karpenter/instance_types.hpp"
#include "models/autoscaling/karpenter/nodeclass/discovery.hpp"
#include "models/autoscaling/karpenter/nodepool.hpp"
#include "models/autoscaling/karpenter/logging.hpp"
#include "models/autoscaling/karpenter/provisioning/pending_pods.hpp"
#include "models/autoscaling/karpenter/provisioning/scheduling/scheduler.hpp"
#include "models/autoscaling/karpenter/state/cluster.hpp"
#include "models/cluster/cluster.hpp"

namespace eksim::autoscaling::karpenter {

struct Settings {
  engine::Duration batch_idle = engine::Duration::seconds(1);  // BATCH_IDLE_DURATION default
  engine::Duration batch_max = engine::Duration::seconds(10);  // BATCH_MAX_DURATION default
  double vm_memory_overhead_percent = 0.075;                   // VM_MEMORY_OVERHEAD_PERCENT default
  bool spot_to_spot_consolidation = false;                     // feature gate, off by default
  int reserved_enis = 0;                                       // RESERVED_ENIS default
  // INTERRUPTION_QUEUE: the SQS queue the EventBridge rules feed. Empty (the default) turns
  // Karpenter's interruption controller off: it never hears of a Spot warning or a rebalance
  // recommendation, and the node just goes when EC2 takes the instance. Auto Mode handles
  // interruptions itself.
  std::string interruption_queue;
  std::string version = "1.8.3";
  bool auto_mode = false;
  // EKS Auto Mode nodes run the NVIDIA driver and device plugin in the node image, not as a
  // DaemonSet ("EKS Auto Mode includes the NVIDIA device plugin for Kubernetes. This plugin runs
  // automatically and isn't visible as a daemon set in your cluster",
  // docs.aws.amazon.com/eks/latest/userguide/auto-accelerated.html). Node Ready -> nvidia.com/gpu
  // allocatable. Assumption (lab 001 shows no node Ready time): the kubelet reports the plugin's
  // resource with its next node status update (nodeStatusUpdateFrequency 10 s, half on average),
  // as k8s::AddonTimings::device_plugin_delay does for the DaemonSet plugin.
  engine::Duration auto_mode_device_plugin_delay = engine::Duration::seconds(5);
  // Wall-clock time (UTC, Unix seconds) of simulated time 0, for budget cron schedules. Default:
  // 1970-01-01T00:00:00Z, a Thursday midnight.
  std::int64_t start_unix_seconds = 0;
};
Settings settings_from_flags(const std::map<std::string, std::string>& flags, bool auto_mode);

enum class NodeClaimPhase { Launched, Registered, Initialized, Deleting, Deleted };
const char* to_string(NodeClaimPhase p);

struct NodeClaimState {
  std::string name;  // <nodepool>-<5 chars>
  std::string node_pool;
  std::string node_class;
  NodeClaimPhase phase = NodeClaimPhase::Launched;
  Requirements requirements;
  std::vector<k8s::Taint> taints, startup_taints;
  k8s::Labels labels;
  k8s::ResourceList requests;
  std::string instance_id, instance_type, zone, capacity_type;
  double price_per_hour = 0;
  k8s::ResourceList capacity, allocatable;  // Karpenter's estimate for the launched type
  std::string node_name;
  k8s::NodeId node_id;  // the Node once registered (node_name is looked up when this is stale)
  engine::SimTime created;
  std::optional<engine::SimTime> registered_at, initialized_at, deleted_at;
  // Initialized condition message while not initialized, e.g.
  // `Resource "nvidia.com/gpu" was requested but not registered`.
  std::string initialized_message;
  std::string pool_hash, class_hash;  // drift detection
  std::string disruption_reason;      // Empty, Underutilized, Drifted, Expired, Interrupted, ...
  engine::SimTime last_pod_event;     // consolidateAfter counts from the last pod add/remove
  std::vector<std::string> pods;      // nominated at creation ("ns/name")
  bool replacement = false;           // launched by consolidation / drift
  k8s::ResourceList daemon_overhead;  // reserved for DaemonSet pods while the node is not there
  std::vector<std::string> replacements;  // NodeClaims that must initialize before this one goes
};

// The NodeClaim's status conditions as its lifecycle has set them (nodeclaim/lifecycle/conditions.cpp).
ConditionSet nodeclaim_conditions(const NodeClaimState& c);

class Controller : public eksim::Controller {
 public:
  Controller(Cluster& cluster, Settings settings);
  const char* name() const override { return "karpenter"; }

  // kubectl apply of a NodePool / EC2NodeClass / NodeClass: creates or replaces (drift follows).
  void apply_node_pool(NodePool pool);
  void apply_node_class(NodeClass node_class);
  // The NodePool's NodeClass (nullptr: none of that name and kind).
  const NodeClass* node_class_of(const NodePool& p) const;
  // The nodepool readiness controller on every NodePool that refers to the NodeClass `name`
  // (after the class changed, began terminating or went).
  void refresh_pool_readiness(const std::string& node_class);
  bool delete_node_pool(const std::string& name);
  // kubectl delete nodeclaim, or of the Node of a NodeClaim: the termination finalizer taints and
  // drains the node, then terminates the instance. False when there is no such NodeClaim (or the
  // node is not Karpenter's).
  bool delete_node_claim(const std::string& name);
  bool delete_node(k8s::NodeId node);
  // kubectl delete ec2nodeclass|nodeclass: false when there is none. Its NodePools turn
  // NodeClassReady=False (NodeClassTerminating) and launch nothing; the NodeClass goes once no
  // NodeClaim uses it (nodeclass/termination.cpp).
  bool delete_node_class(const std::string& kind, const std::string& name);
  // EC2 Spot Instance Interruption Warning for an instance: the two-minute notice.
  void spot_interruption(const std::string& instance_id);
  // EC2 Instance Rebalance Recommendation: Karpenter only records it (events
  // SpotRebalanceRecommendation); it acts on the interruption warning.
  void rebalance_recommendation(const std::string& instance_id);

  const Settings& settings() const { return settings_; }
  // The leader's controller log (logging.hpp); eksim serve enables it before the run.
  ControllerLog& controller_log() { return controller_log_; }
  const ControllerLog& controller_log() const { return controller_log_; }
  const std::map<std::string, NodePool>& node_pools() const { return pools_; }
  const std::map<std::string, NodeClass>& node_classes() const { return classes_; }
  const std::vector<NodeClaimState>& node_claims() const { return claims_; }
  const UnavailableOfferings& unavailable_offerings() const { return ice_; }
  LabelDomain domain() const { return settings_.auto_mode ? LabelDomain::AutoMode : LabelDomain::Oss; }
  // Event source: "karpenter", or "eks-auto-mode/compute" in Auto Mode (lab 001's describe).
  const char* source() const { return settings_.auto_mode ? "eks-auto-mode/compute" : "karpenter"; }

  // Runs one provisioning pass now (tests and benchmarks; normally batching calls it).
  void provision();
  // Runs one disruption pass now.
  void disrupt();

  // For tests: the nodes the scheduling simulations see, in scheduling order, from the
  // cluster-state cache, and the same computed from scratch from the API objects.
  std::vector<ExistingNode> cached_simulation_nodes();
  std::vector<ExistingNode> rebuilt_simulation_nodes();
  // Multi-node consolidation considers at most this many candidates in one command
  // (MultiNodeConsolidation.ComputeCommands: "Only consider a maximum batch of 100 NodeClaims").
  static constexpr std::size_t kMultiNodeMaxCandidates = 100;
  // The largest prefix length of `candidates` budget-allowed candidates the binary search tries
  // (0 when multi-node consolidation does not run: it needs two).
  static std::size_t multi_node_search_limit(std::size_t candidates);

 private:
  void reconcile_node_class_now(const std::string& name);
  // The termination finalizer of a deleted NodeClass: waits while NodeClaims use it (every 10
  // minutes, and whenever one of them is deleted), then lets it go.
  void finalize_node_class(const std::string& name);
  std::set<std::string> finalize_requeued_;
  std::set<std::string> requeued_classes_;  // NodeClasses with a reconcile scheduled
  void trigger();
  void on_batch_timer();
  bool provisionable(const k8s::PodRecord& r) const;
  // The part of provisionable() that can change while a pod waits.
  static bool unbound_pending(const k8s::PodRecord& r);
  PendingPods::Filter pending_filter() const;
  std::vector<InstanceTypeInfo>& instance_types_for(const NodeClass& nc);
  // --- cluster state (state/cluster.cpp)
  // NodeClaims by name and by instance id (indexes, the first NodeClaim of a name wins).
  NodeClaimState* claim_by_instance(const std::string& id);
  NodeClaimState* claim_by_name(const std::string& name);
  // The NodeClaim of a live node (nullptr: not Karpenter's), resolved once per node.
  NodeClaimState* claim_of_node(std::uint32_t node_id);
  // Appends a NodeClaim to claims_ and its indexes; returns its index.
  std::size_t add_claim(NodeClaimState c);
  // Indexes of the NodeClaims not Deleted, ascending (claims_ keeps the history).
  const std::vector<std::size_t>& live_claims();
  // The nodes the scheduling simulations see now (rebuilt only after a change).
  state::Snapshot& snapshot();
  // Positions in the current snapshot of the given nodes (those it lists).
  std::vector<std::uint32_t> positions_of(const std::vector<k8s::NodeId>& nodes);
  void rebuild_state_node(state::StateNode& s, const k8s::NodeRecord& rec, const NodeClaimState* claim);
  static ExistingNode launched_claim_node(const NodeClaimState& c);
  // Something a simulation could see changed on this node (invalid id: somewhere).
  void state_changed(k8s::NodeId node);
  std::vector<k8s::Pod> daemon_pods() const;
  // A node with the karpenter.sh/disrupted taint or whose NodeClaim is being deleted.
  bool marked_for_deletion(std::uint32_t node_id);
  // The nodes marked for deletion now, ascending.
  const std::set<std::uint32_t>& marked_nodes();
  // Nodes that may be marked for deletion: a superset, pruned by marked_nodes().
  std::set<std::uint32_t> maybe_marked_;
  // The reschedulable pods still on nodes marked for deletion, unbound (their ids into `ids`).
  std::vector<k8s::Pod> deleting_node_pods(std::vector<k8s::PodId>* ids = nullptr);
  bool any_deleting_node_pods();
  // Whether any pod waits for provisioning (prunes the pending set).
  bool any_provisionable();
  // NodeIds of the nodes not deleted, ascending (prunes the cluster state of deleted ones).
  // The DaemonSet pods and NodeClaimTemplates, built once per pass and state version.
  struct TemplateSet {
    std::vector<k8s::Pod> daemons;
    std::vector<NodeClaimTemplate> templates;
    std::uint64_t generation = 0;  // moves when the content may differ
    // Per pod class, the lowest price of a type any template could launch for a pod of it
    // (price_floor).
    std::unordered_map<std::uint32_t, double> floor_by_class;
  };
  // A floor under the price of any NodeClaim a simulation could plan for pods of these classes:
  // the cheapest offering, over the templates, of a type that fits the daemon overhead and one
  // such pod (a claim holds at least that, and narrowing only takes types and offerings away).
  double price_floor(TemplateSet& set, const std::vector<std::uint32_t>& classes);
  // What the templates are built from: NodePools and NodeClasses (config_version_), offering
  // availability (ICE marks and live entries), the DaemonSet pods' scheduling fields, and the
  // NodeClaims' capacity when a NodePool has limits.
  std::string template_signature();
  std::string daemon_signature();  // the DaemonSet pods' part of it
  std::shared_ptr<TemplateSet> template_set();
  std::vector<NodeClaimTemplate> templates(std::vector<k8s::Pod>& daemons);
  // Creates and launches a NodeClaim for a planned claim; returns its index or -1.
  int launch(const PlannedNodeClaim& planned, bool replacement);
  // The controller log's lines (controller_log.cpp), each where upstream logs it.
  void log_provisioning(const OrderedPods& pods, const SchedulingResults& res);
  void log_created(const NodeClaimState& c, const PlannedNodeClaim& planned, bool replacement);
  void log_launched(const NodeClaimState& c);
  void log_registered(const NodeClaimState& c);
  void log_initialized(const NodeClaimState& c, const k8s::NodeRecord& rec);
  void log_disrupting(const std::vector<std::size_t>& candidates, const std::string& reason,
                      const std::vector<PlannedNodeClaim>& replacements);
  void log_interruption(const NodeClaimState& c);
  void log_tainted(const NodeClaimState& c);
  void log_deleted(const NodeClaimState& c);
  // Liveness: deletes the NodeClaim if it has not registered within the registration timeout.
  void start_liveness(const std::string& name);
  void on_instance_running(aws::Instance& inst);
  void on_instance_terminated(aws::Instance& inst);
  void on_node(k8s::NodeId id, k8s::NodeChange change);
  void on_pod_moved(k8s::NodeId node);
  void check_initialized(NodeClaimState& c, k8s::NodeRecord& rec);
  void delete_claim(NodeClaimState& c, const std::string& reason, bool forceful);
  void finish_drain(const std::string& claim_name);
  // Adds or removes karpenter.sh/disrupted:NoSchedule on the node (adding triggers provisioning).
  void set_disrupted_taint(const std::string& node_name, bool on);
  void event(engine::EventType type, const std::string& reason, const engine::ObjectRef& obj, const std::string& msg,
             engine::Duration dedupe = engine::Duration{});
  // The provisioner's events about a pod (events.NominatePodEvent, PodFailedToScheduleEvent):
  // deduped by pod UID and reason for `window`, as the recorder's DedupeValues are, before any
  // text is built, then queued through client-go's broadcaster. Returns when the same event
  // could be published again.
  struct PodEvent {
    k8s::PodId pod;
    bool failed = false;  // FailedScheduling (Warning), else Nominated (Normal)
    // Shared by the pods of a pass that get the same text (all pods of a class that fit
    // nowhere): a pass over 100,000 pending pods keeps a few texts, not one each.
    std::shared_ptr<const std::string> message;
  };
  engine::SimTime pod_event(const PodEvent& e);
  std::unordered_map<std::uint64_t, engine::SimTime> pod_dedupe_;  // (PodId, reason) -> when published
  // A provisioning pass reads the pending pods, the cluster state, the NodeClaimTemplates and
  // the NodePools' usage. When none of them moved since a pass that launched nothing, the
  // scheduling simulation would plan exactly what it planned then: the pass only republishes
  // that pass's pod events, and not even that before the first of them leaves the dedupe window.
  struct ProvisioningMemo {
    bool valid = false;
    std::uint64_t pending_version = 0, state_version = 0, templates_generation = 0, claims_version = 0;
    std::vector<PodEvent> events;  // in publishing order
    engine::SimTime next_publish;
  };
  ProvisioningMemo provisioning_memo_;
  std::uint64_t pending_version_ = 0;  // moves when a pod joins pending_ or a pending pod changes
  // Publishes the memo's events; keeps when the next one could publish.
  void republish(ProvisioningMemo& memo);
  std::string pool_hash(const NodePool& p) const;
  std::string class_hash(const NodeClass& c) const;
  int allowed_disruptions(const NodePool& p, const std::string& reason);
  // pool_hash / class_hash, computed once per pass.
  const std::string& pool_hash_cached(const NodePool& p);
  const std::string& class_hash_cached(const NodeClass& c);
  // The NodePool's requirements as Requirement objects, built once per pass.
  const std::vector<Requirement>& pool_requirements(const NodePool& p);
  // Drift by hash (the NodePool template or NodeClass changed since launch), per config version.
  bool hash_drifted(const NodeClaimState& c, const NodePool& pool);
  std::vector<std::pair<std::uint64_t, bool>> hash_drift_;  // by NodeClaim index
  // Drift by requirements: the node's labels no longer meet the NodePool's, per node stamp and
  // config version.
  bool requirements_drifted(const NodePool& pool, k8s::NodeId node);
  // The NodeClaim's NodePool (nullptr: gone), per config version.
  const NodePool* pool_of(const NodeClaimState& c);
  std::vector<std::pair<std::uint64_t, const NodePool*>> pool_cache_;  // by NodeClaim index
  std::unordered_map<const NodePool*, bool> budget_ok_;  // still_settled, per pass and version
  std::uint64_t budget_pass_ = 0, budget_version_ = 0;
  // karpenter.sh/do-not-disrupt on the node or one of its reschedulable pods.
  bool pods_block_disruption(k8s::NodeId node);
  // Reschedulable pods on the node (pod.IsReschedulable).
  int reschedulable_pods(k8s::NodeId node);
  // The claim's Node, if it exists: its cached id when still valid, else by name.
  std::optional<k8s::NodeId> node_of(const NodeClaimState& c) const;
  bool budget_active(const Budget& b) const;

  // Multi-node consolidation (disruption/multinodeconsolidation.go).
  struct ConsolidationCommand {
    std::vector<std::size_t> candidates;         // NodeClaim indexes
    std::vector<PlannedNodeClaim> replacement;   // empty = delete; else the one cheaper NodeClaim
    // The candidates' pods, unbound, when the simulation needed copies (see
    // state::SimulationNodes::classes_of); else the replacement points at the real pods.
    std::unique_ptr<std::vector<k8s::Pod>> pods;
    // What the replacement's template points into, kept alive with it.
    std::shared_ptr<TemplateSet> templates;
  };
  struct PendingMulti {
    std::vector<std::size_t> candidates;
    bool replace = false;
    engine::SimTime validate_at;
  };
  bool underutilized_candidate(const NodeClaimState& c, engine::SimTime now);
  double disruption_cost(const NodeClaimState& c, engine::SimTime now);
  std::optional<ConsolidationCommand> compute_consolidation(const std::vector<std::size_t>& candidates);
  // True while a multi-node command waits for validation or was just executed.
  bool multi_node_consolidation(engine::SimTime now);

  Cluster& c_;
  Settings settings_;
  ControllerLog controller_log_;
  std::string provisioner_log_context_;  // this pass's reconcile, for its "created nodeclaim" lines
  std::map<std::string, NodePool> pools_;
  std::map<std::string, NodeClass> classes_;
  std::map<std::string, std::vector<InstanceTypeInfo>> types_by_class_;
  std::vector<NodeClaimState> claims_;
  std::unordered_map<std::string, std::size_t> claim_index_by_name_, claim_index_by_instance_;
  std::vector<std::size_t> live_claims_;
  state::Cluster state_;
  std::uint32_t seen_node_slots_ = 0;
  std::uint64_t pass_ = 0;  // provisioning and disruption passes, for per-pass caches
  std::shared_ptr<TemplateSet> templates_;
  std::string templates_signature_;
  std::optional<std::pair<std::vector<bool>, std::string>> daemon_signature_;  // by which DaemonSets are live
  std::uint64_t templates_pass_ = 0, templates_version_ = 0;
  std::uint64_t templates_generation_ = 0;
  std::uint64_t config_version_ = 0;
  std::uint64_t claims_version_ = 0;  // NodeClaims added or gone (capacity usage)
  PendingPods pending_;  // pods that may be provisionable, in Solve's order
  // Per node, what disruption reads from its pods, valid while the node's stamp holds.
  struct NodePods {
    std::uint64_t stamp = 0;
    bool blocks = false;
    int reschedulable = 0;
    std::vector<k8s::PodId> reschedulable_ids;  // in the node's pod order
    // The pod classes of those pods in first-seen order, nullopt when one has none (see
    // node_classes); computed on first use.
    bool classes_known = false;
    std::optional<std::vector<std::uint32_t>> classes;
    // requirements_drifted's verdict, for config_version_ + 1 and that NodePool.
    std::uint64_t drift_config = 0;
    const NodePool* drift_pool = nullptr;
    bool requirements_drifted = false;
  };
  std::vector<NodePods> node_pods_;  // by NodeId
  // Single-node consolidation's settled candidates: the last simulation found no cheaper
  // replacement and no pod fit an existing node, so it stays a no-op while the candidate's node
  // (its stamp), the templates (generation) and the time (expiry) stand, the NodePool's budget
  // allows a disruption, and no initialized node besides its own fits one of its pod classes.
  struct Settled {
    std::uint32_t node = 0;
    std::uint64_t stamp = 0, generation = 0;
    engine::SimTime until;
    const NodePool* pool = nullptr;
    std::vector<std::uint32_t> classes;
    // The no-op came from relying on an uninitialized node (no initialized one fit), not from a
    // replacement that was not cheaper: it also needs an uninitialized node that still fits.
    bool relies_on_uninitialized = false;
  };
  std::unordered_map<std::size_t, Settled> settled_;
  // Consolidation simulations that found no command, by what they read (no_command_key).
  std::unordered_set<std::string> no_command_;
  std::string no_command_key(char kind, const std::vector<std::size_t>& candidates, const std::vector<std::uint32_t>& classes,
                             const state::SimulationNodes& others, std::uint64_t generation);
  void remember_no_command(const std::string& key);
  bool still_settled(std::size_t index, engine::SimTime now);
  void settle(std::size_t index, k8s::NodeId node, const NodePool& pool, std::uint64_t generation,
              const std::vector<std::uint32_t>& classes, bool relies_on_uninitialized);
  NodePods& node_pods(k8s::NodeId node);
  // A NodeClaim's phase moved: its node's StateNode is revisited by the next snapshot.
  void claim_phase_changed(const NodeClaimState& c);
  // What SimulationNodes::classes_of gives for the node's reschedulable pods (the snapshot's
  // required anti-affinity aside), cached with the node's stamp.
  const std::optional<std::vector<std::uint32_t>>& node_classes(k8s::NodeId node);
  std::map<std::pair<std::string, std::string>, int> budgets_;  // (pool, reason) -> allowed
  std::uint64_t budgets_pass_ = 0, budgets_version_ = 0;
  std::map<std::string, std::pair<std::uint64_t, std::string>> pool_hashes_, class_hashes_;
  std::map<std::string, std::pair<std::uint64_t, std::vector<Requirement>>> pool_requirements_;  // by pass
  UnavailableOfferings ice_;
  engine::EventId batch_timer_;
  std::optional<engine::SimTime> batch_start_;
  engine::SimTime last_trigger_;
  std::unordered_map<std::string, engine::SimTime> dedupe_;  // "<object>|<reason>" -> when published
  std::unordered_map<std::size_t, engine::SimTime> pending_commands_;   // NodeClaim index -> validate-at
  bool in_node_update_ = false;
  std::optional<PendingMulti> pending_multi_;
};

}  // namespace eksim::autoscaling::karpenter
