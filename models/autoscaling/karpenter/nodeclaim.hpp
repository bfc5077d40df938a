#pragma once
// The NodeClaim (kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim.go) as the controllers keep it:
// what was asked for, what the cloud provider launched, and where its lifecycle stands.
#include <optional>
#include <string>
#include <vector>

#include "models/autoscaling/karpenter/requirements.hpp"
#include "models/autoscaling/karpenter/status/conditions.hpp"
#include "models/k8s/api/api_server.hpp"
#include "sim/engine/time.hpp"

namespace eksim::autoscaling::karpenter {

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

  bool deleting_or_deleted() const { return phase == NodeClaimPhase::Deleting || phase == NodeClaimPhase::Deleted; }
};

// The NodeClaim's status conditions as its lifecycle has set them (nodeclaim/lifecycle/conditions.cpp).
ConditionSet nodeclaim_conditions(const NodeClaimState& c);

}  // namespace eksim::autoscaling::karpenter
