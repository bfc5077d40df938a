#pragma once
// The scheduler's queueing hints (KEP-4247, SchedulerQueueingHints on by default since 1.32): when
// a cluster event arrives, each plugin that rejected a parked pod says whether the event may make
// the pod schedulable (Queue) or not (QueueSkip); the pod moves back to the active queue if any
// says Queue. A pod rejected with no plugin (there were no nodes) moves on any event.
//
// eksim's hints per plugin (pkg/scheduler/framework/plugins/*, isSchedulableAfter...):
//  - node added or updated (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity,
//    NodePorts, NodeResourcesFit): Queue if the pod passes that plugin's filter on the changed
//    node. The filters run in upstream order and stop at the first failure, so a plugin after
//    the first failing one is taken as QueueSkip.
//  - node added or updated, PodTopologySpread and InterPodAffinity: Queue (domains and counts
//    span nodes).
//  - an assigned pod deleted or finished (AssignedPodDelete): NodeResourcesFit, NodePorts,
//    PodTopologySpread and InterPodAffinity queue; the node-local checks on labels and taints
//    (TaintToleration, NodeAffinity, NodeUnschedulable, NodeName) skip.
#include <set>
#include <string>

#include "models/k8s/scheduling/plugins.hpp"

namespace eksim::k8s {

bool worth_requeuing_after_node_event(const Pod& pending, const std::set<std::string>* rejected_by, const NodeInfo& node,
                                      const KubernetesVersion& version);
bool worth_requeuing_after_assigned_pod_gone(const Pod& pending, const std::set<std::string>* rejected_by);

}  // namespace eksim::k8s
