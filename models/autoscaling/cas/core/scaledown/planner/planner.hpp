#pragma once
// Scale-down planning (cluster-autoscaler/core/scaledown/planner, legacy UpdateUnneededNodes):
//
// - eligibility (../eligibility): a node of a known group, above its group's min size, without
//   the scale-down-disabled annotation, below the utilization threshold;
// - removal simulation (removal_simulation.cpp, simulator.RemovalSimulator): every pod that must
//   move fits on a ready node that stays, tried first where the same pod went in the previous
//   pass (pod location hints), then in node order; the moved pods use up their
//   PodDisruptionBudgets;
// - bounds (chooseCandidates): nodes unneeded in the previous pass are simulated first; then at
//   most --scale-down-non-empty-candidates-count non-empty nodes are added, looked for among the
//   first max(ceil(nodes * --scale-down-candidates-pool-ratio), --scale-down-candidates-pool-
//   min-count) other eligible non-empty nodes. Empty nodes need no simulation and are not bounded;
// - unneeded nodes (../unneeded) and unremovable nodes (../unremovable);
// - NodesToDelete: the unneeded nodes unneeded long enough, for the Actuator.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "models/autoscaling/cas/context/autoscaling_context.hpp"
#include "models/autoscaling/cas/core/scaledown/deletiontracker/node_deletion_tracker.hpp"
#include "models/autoscaling/cas/core/scaledown/unneeded/nodes.hpp"
#include "models/autoscaling/cas/core/scaledown/unremovable/nodes.hpp"
#include "models/autoscaling/cas/simulator/drainability/rules.hpp"
#include "models/autoscaling/cas/simulator/utilization.hpp"

namespace eksim::autoscaling::cas {

// What a planning pass simulated, for reports and tests.
struct PlanningStats {
  std::size_t candidates = 0;       // eligible (underutilized) nodes
  std::size_t simulated = 0;        // non-empty nodes whose removal was simulated
  std::size_t skipped_by_pool = 0;  // new non-empty candidates left for a later loop
};

// A node the Actuator may start deleting now.
struct NodeToDelete {
  k8s::NodeId node;
  const NodeGroup* group = nullptr;
  bool empty = false;  // no pod to move: no drain
  Utilization utilization;
};

// One planning pass's working state.
struct PlanningPass {
  engine::SimTime now;
  k8s::SchedulerOptions sched;
  // Candidates: every node of a known group not already being deleted, ready or not; the moved
  // pods' destinations are the ready ones. The snapshot shares the informers' NodeInfos and
  // copies a node only when a simulated pod lands on it. By snapshot index:
  SnapshotFork snap;
  std::vector<const LiveNode*> owners;
  std::vector<bool> ready;
  std::vector<bool> previous;        // unneeded in the previous pass
  std::vector<bool> removed_in_sim;  // a scan over 1,500 nodes allocates no set node per node
  std::vector<Utilization> utils;
  std::unordered_map<std::uint32_t, std::size_t> index_of;  // NodeId -> snapshot index
  std::vector<std::size_t> order;                           // chooseCandidates
  std::map<const NodeGroup*, std::int64_t> removable;       // group -> nodes that may still go
  std::map<const NodeGroup*, bool> gpu_expected;            // group -> its instance type has GPUs
  // The bounds on non-empty candidates.
  bool bounded = false;
  std::size_t pool = 0, pool_used = 0;
  std::int64_t found_previous = 0, found_additional = 0;
  std::vector<RemainingPdb> pdbs;
  // Pods as the removal simulation moves them: copies with spec.nodeName cleared
  // (simulator/cluster.go findPlaceFor), else the NodeName filter pins them to the node going away.
  std::deque<k8s::Pod> moved;
  std::set<const k8s::Pod*> moved_copies;  // placed by this pass, not pods of the API
  std::map<const k8s::Pod*, k8s::NodeId> new_hints;
  std::vector<std::pair<std::size_t, engine::SimTime>> unneeded_now;  // snapshot index, unneeded since

  std::size_t size() const { return owners.size(); }
  // What the scheduler plugins see as the cluster: the ready nodes as the simulation leaves them.
  std::vector<const k8s::NodeInfo*> ready_view() const;
};

class Planner {
 public:
  Planner(AutoscalingContext& ctx, const NodeDeletionTracker& deletions) : ctx_(ctx), deletions_(deletions) {}
  // UpdateClusterState: the unneeded and unremovable nodes among `nodes`.
  void update_cluster_state(const std::vector<LiveNode>& nodes);
  // NodesToDelete: the nodes unneeded long enough (unneeded.Nodes.RemovableAt), in node order.
  std::vector<NodeToDelete> nodes_to_delete() const;

  UnneededNodes& unneeded() { return unneeded_; }
  const UnneededNodes& unneeded() const { return unneeded_; }
  const UnremovableNodes& unremovable() const { return unremovable_; }
  const PlanningStats& last_planning() const { return planning_; }
  std::optional<engine::SimTime> last_update() const { return updated_; }  // lastScaleDownUpdateTime

 private:
  PlanningPass start_pass(const std::vector<LiveNode>& nodes) const;
  void choose_candidates(PlanningPass& pass) const;
  void consider(PlanningPass& pass, std::size_t i);
  // Whether the non-empty node i stays out of this pass for the candidates bounds.
  bool skipped_by_bounds(PlanningPass& pass, std::size_t i);
  // simulator.RemovalSimulator (removal_simulation.cpp): true when every pod fits elsewhere.
  bool simulate_removal(PlanningPass& pass, std::size_t i, const std::vector<const k8s::Pod*>& to_move);
  void mark_unneeded(PlanningPass& pass, std::size_t i, const std::vector<const k8s::Pod*>& to_move, bool empty,
                     const Utilization& u);

  AutoscalingContext& ctx_;
  const NodeDeletionTracker& deletions_;
  UnneededNodes unneeded_;
  UnremovableNodes unremovable_;
  // Where the last pass moved each pod (RemovalSimulator hints): tried first in the next pass.
  std::map<const k8s::Pod*, k8s::NodeId> pod_location_hints_;  // pods of the API (stable addresses)
  PlanningStats planning_;
  std::optional<engine::SimTime> updated_;
  // The last pass's unneeded nodes, in node order.
  struct Unneeded {
    k8s::NodeId node;
    const NodeGroup* group = nullptr;
    bool ready = false;
    engine::SimTime since;
    Utilization utilization;
  };
  std::vector<Unneeded> found_;
};

}  // namespace eksim::autoscaling::cas
