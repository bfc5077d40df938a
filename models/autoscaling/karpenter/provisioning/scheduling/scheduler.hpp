#pragma once
// One provisioning pass of Karpenter's scheduler (kubernetes-sigs/karpenter
// pkg/controllers/provisioning/scheduling/scheduler.go), as a pure function: pending pods are
// ordered by cpu, memory (descending) and age, each tries existing and in-flight nodes (the
// kube-scheduler's own filters, k8s::fits), then the NodeClaims planned in this pass (fewest pods
// first), then a new NodeClaim from the NodePools in weight order, filtering instance types by
// requirements, resources (with DaemonSet overhead) and offerings, under the NodePool limits with
// the pessimistic "largest candidate" subtraction.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/autoscaling/karpenter/instance_types.hpp"
#include "models/autoscaling/karpenter/nodepool.hpp"
#include "models/autoscaling/karpenter/requirements.hpp"
#include "models/k8s/scheduling/node_info.hpp"
#include "models/k8s/scheduling/plugins.hpp"

namespace eksim::autoscaling::karpenter {

// A NodePool made ready for scheduling (NodeClaimTemplate upstream).
// A per-resource upper bound of allocatable over a set of instance types, with how many of them
// attain each maximum: taking types out only lowers it when the last one at a maximum goes
// (most types share the largest root volume, many the largest pod count).
struct AllocatableBound {
  k8s::ResourceList max;
  k8s::ResourceList attained;  // per resource, the number of types at `max`
  static AllocatableBound over(const std::vector<const InstanceTypeInfo*>& types);
  // Takes a type of the set out; false when the bound may now be above the true maximum.
  bool drop(const InstanceTypeInfo& t);
};

struct NodeClaimTemplate {
  const NodePool* pool = nullptr;
  Requirements requirements;  // pool requirements + template labels + karpenter.sh/nodepool
  std::vector<k8s::Taint> taints;
  // Types compatible with the requirements and having an offering, cheapest first.
  std::vector<const InstanceTypeInfo*> instance_types;
  k8s::ResourceList daemon_overhead;  // requests of the DaemonSet pods that would land, incl. pods
  AllocatableBound bound;             // over instance_types
  // limits minus what the pool's nodes and NodeClaims hold; nullopt when the pool has no limits.
  std::optional<std::map<std::string, std::int64_t>> remaining;
};

// Builds templates for the pools (weight descending, then name), the DaemonSet pods (one pod per
// DaemonSet, from its template) and the pool's current usage (for limits).
NodeClaimTemplate make_template(const NodePool& pool, const std::vector<InstanceTypeInfo>& types,
                                const std::vector<k8s::Pod>& daemon_pods, LabelDomain domain,
                                const std::map<std::string, std::int64_t>& usage);

// A node the pods may go to: a real node, or a NodeClaim that has no node yet. info.node holds
// labels, the taints the pod must tolerate (ephemeral ones removed) and the allocatable Karpenter
// expects (the NodeClaim's estimate until the node is initialized).
struct ExistingNode {
  std::string node_name;  // "" while the NodeClaim has no node
  std::string nodeclaim;  // "" when Karpenter does not manage the node
  bool initialized = true;
  k8s::NodeInfo info;
};

// The existing nodes a scheduling simulation places pods on, in the order it tries them
// (initialized first, then by name: calculateExistingNodeClaims). solve() reads them through this
// interface so that the controller can hand it its cluster-state cache without copying a
// NodeInfo per node: pods placed during the simulation go to a copy-on-write overlay.
class ExistingNodes {
 public:
  virtual ~ExistingNodes() = default;
  virtual std::size_t size() const = 0;
  // The i-th node in scheduling order, with the pods this simulation placed on it.
  virtual const ExistingNode& get(std::size_t i) const = 0;
  // The i-th node as it was before this simulation (names, initialized: what callers report).
  virtual const ExistingNode& base(std::size_t i) const { return get(i); }
  // Records a pod placed on the i-th node.
  virtual void add_pod(std::size_t i, const k8s::Pod& pod) = 0;
  // Nodes left out of this simulation (solve() skips them).
  virtual bool excluded(std::size_t i) const { (void)i; return false; }
  // The index SchedulingResults::existing reports for the i-th node.
  virtual std::size_t id(std::size_t i) const { return i; }
  // Whether any pod on these nodes has required pod anti-affinity (topology tracking needs
  // the existing pods only then, or when the incoming pods have constraints of their own).
  virtual bool any_required_anti_affinity() const = 0;
  // When the implementation keeps them: the pods with required anti-affinity, with their node
  // indexes, so topology need not walk every pod of every node; nullptr: walk them.
  virtual const std::vector<std::pair<std::uint32_t, const k8s::Pod*>>* anti_affinity_pods() const { return nullptr; }
  // The first node in order the pod fits (k8s::fits with no cluster view), when the
  // implementation can answer from an index; false when solve() must scan.
  virtual bool first_fit(const k8s::Pod& pod, const k8s::SchedulerOptions& options, std::optional<std::size_t>& out) {
    (void)pod, (void)options, (void)out;
    return false;
  }
  // The pod's k8s::PodClasses class, when the implementation keeps them: pods of one class meet
  // the same answers everywhere in a simulation (no topology tracking active).
  virtual std::optional<std::uint32_t> pod_class(const k8s::Pod& pod) {
    (void)pod;
    return std::nullopt;
  }
};

// ExistingNodes over a vector the caller owns: sorted into scheduling order, pods added in
// place (the vector's NodeInfos end with the placed pods), ids are vector indices.
class ExistingNodeVector : public ExistingNodes {
 public:
  explicit ExistingNodeVector(std::vector<ExistingNode>& nodes);
  std::size_t size() const override { return order_.size(); }
  const ExistingNode& get(std::size_t i) const override { return nodes_[order_[i]]; }
  void add_pod(std::size_t i, const k8s::Pod& pod) override;
  std::size_t id(std::size_t i) const override { return order_[i]; }
  bool any_required_anti_affinity() const override;

 private:
  std::vector<ExistingNode>& nodes_;
  std::vector<std::size_t> order_;
};

struct PlannedNodeClaim {
  const NodeClaimTemplate* tmpl = nullptr;
  std::size_t serial = 0;  // creation order in the pass: the claim's own hostname domain
  Requirements requirements;
  std::vector<const InstanceTypeInfo*> options;  // still feasible, cheapest first
  k8s::ResourceList requests;                     // daemon overhead + pods
  std::vector<const k8s::Pod*> pods;
  // Upper bound of allocatable over `options`, for a quick reject of pods that cannot fit (a
  // bound over more types than `options` is still sound: filter_types rejects what it lets by).
  // Starts as the template's; recomputed when a pod is next offered after it went stale.
  AllocatableBound bound;
  bool bound_stale = true;
};

struct SchedulingResults {
  std::vector<std::pair<const k8s::Pod*, std::size_t>> existing;  // pod -> index into existing nodes
  std::vector<PlannedNodeClaim> new_claims;
  // In pod order. The pods of a class that fit nowhere share one text: 100,000 of them keep one.
  std::vector<std::pair<const k8s::Pod*, std::shared_ptr<const std::string>>> errors;
  // With existing_only: a pod found no existing node and the simulation stopped there (nothing
  // after it was placed, no NodeClaim was planned).
  bool stopped = false;
};

// Every requested amount within the allocatable one (resources.Fits).
bool fits_in(const k8s::ResourceList& requests, const k8s::ResourceList& allocatable);
// Karpenter's pod order (queue.go byCPUAndMemoryDescending: CPU, then memory, descending; then
// the older pod, then the smaller UID), as a key holding everything the comparison reads:
// sorting 100,000 pods never follows a pointer.
struct PodOrder {
  std::int64_t cpu = 0, mem = 0;
  engine::SimTime created;
  std::int64_t uid = -1;  // k8s::uid_serial, or -1: then the uid strings decide
  static PodOrder of(const k8s::Pod& pod);
};
// Whether a (key `a`) goes before b (key `b`).
bool goes_before(const PodOrder& a, const k8s::Pod& pa, const PodOrder& b, const k8s::Pod& pb);
void order_pods(std::vector<const k8s::Pod*>& pods);
// resources.RequestsForPods: the pod's requests plus pods: 1.
k8s::ResourceList karpenter_requests(const k8s::Pod& pod);
// resources.String: {"cpu":"310m","memory":"272Mi","pods":"7"}.
std::string resources_string(const k8s::ResourceList& r);

SchedulingResults solve(std::vector<const k8s::Pod*> pods, std::vector<ExistingNode>& existing,
                        std::vector<NodeClaimTemplate>& templates, LabelDomain domain,
                        const k8s::SchedulerOptions& options = {});
// The same over any ExistingNodes; SchedulingResults::existing holds existing.id(i).
// existing_only: the caller only wants to know whether every pod fits the existing nodes (a
// consolidation that may only delete), so the first pod that would need a NodeClaim ends it.
SchedulingResults solve(std::vector<const k8s::Pod*> pods, ExistingNodes& existing,
                        std::vector<NodeClaimTemplate>& templates, LabelDomain domain,
                        const k8s::SchedulerOptions& options = {}, bool existing_only = false);

// Pods already in Karpenter's order, each with its k8s::PodClasses class (kNoPodClass: a pod a
// class cannot capture), for a caller that keeps both as pods arrive (PendingPods): a pass over
// 100,000 pending pods then reads neither their specs nor their uids.
constexpr std::uint32_t kNoPodClass = UINT32_MAX;
struct OrderedPods {
  std::vector<const k8s::Pod*> pods;
  std::vector<std::uint32_t> classes;  // one per pod
};
SchedulingResults solve(const OrderedPods& pods, ExistingNodes& existing, std::vector<NodeClaimTemplate>& templates,
                        LabelDomain domain, const k8s::SchedulerOptions& options = {});

}  // namespace eksim::autoscaling::karpenter
