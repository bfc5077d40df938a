// A NodeClaim's status conditions (NodeClaim.StatusConditions: Launched, Registered, Initialized
// under Ready) replayed from its lifecycle times, with the lifecycle controllers' reasons
// (launch.go, registration.go, initialization.go).
#include "models/autoscaling/karpenter/nodeclaim.hpp"

namespace eksim::autoscaling::karpenter {

const char* to_string(NodeClaimPhase p) {
  switch (p) {
    case NodeClaimPhase::Launched: return "Launched";
    case NodeClaimPhase::Registered: return "Registered";
    case NodeClaimPhase::Initialized: return "Initialized";
    case NodeClaimPhase::Deleting: return "Deleting";
    case NodeClaimPhase::Deleted: return "Deleted";
  }
  return "";
}

ConditionSet nodeclaim_conditions(const NodeClaimState& c) {
  ConditionSet cs = new_condition_set({"Launched", "Registered", "Initialized"}, c.created);
  if (c.instance_id.empty()) return cs;  // never launched: the NodeClaim was deleted at once
  set_true(cs, "Launched", c.created);
  if (!c.registered_at) {
    set_unknown(cs, "Registered", "NodeNotFound", "Node not registered with cluster", c.created);
    set_unknown(cs, "Initialized", "NodeNotFound", "Node not registered with cluster", c.created);
    return cs;
  }
  set_true(cs, "Registered", *c.registered_at);
  if (c.initialized_at) {
    set_true(cs, "Initialized", *c.initialized_at);
  } else if (c.initialized_message.rfind("StartupTaint ", 0) == 0) {
    set_unknown(cs, "Initialized", "StartupTaintsExist", c.initialized_message, *c.registered_at);
  } else if (!c.initialized_message.empty()) {
    set_unknown(cs, "Initialized", "ResourceNotRegistered", c.initialized_message, *c.registered_at);
  } else {
    set_unknown(cs, "Initialized", "NodeNotReady", "Node status is NotReady", *c.registered_at);
  }
  return cs;
}

}  // namespace eksim::autoscaling::karpenter
