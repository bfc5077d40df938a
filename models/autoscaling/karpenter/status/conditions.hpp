#pragma once
// Status conditions as awslabs/operatorpkg's status.ConditionSet keeps them for Karpenter's
// objects (NodePool, NodeClaim, EC2NodeClass): a root condition (Ready) that is True when every
// dependent is True, else False (reason UnhealthyDependents) as soon as one dependent is False,
// else Unknown (ReconcilingDependents), its message listing the unhealthy dependents
// ("SubnetsReady=False, ValidationSucceeded=False"), most recent transition first.
#include <string>
#include <vector>

#include "sim/engine/time.hpp"

namespace eksim::autoscaling::karpenter {

struct Condition {
  std::string type;
  std::string status;  // True | False | Unknown
  std::string reason;
  std::string message;
  engine::SimTime last_transition;
};

// A condition as one Set wrote it, and when.
struct ConditionChange {
  engine::SimTime time;
  Condition condition;
};

struct ConditionSet {
  std::string root = "Ready";
  std::vector<std::string> dependents;
  std::vector<Condition> conditions;  // dependents by transition time, the root last
  engine::SimTime created;            // a dependent's first transition is the object's creation
  // Every change in order, for expectations judged at a time; kept for NodePools and node
  // classes (a handful of objects), not for NodeClaims.
  bool keep_history = false;
  std::vector<ConditionChange> history;
};

// ConditionTypes.For: every condition not yet set becomes Unknown (AwaitingReconciliation).
ConditionSet new_condition_set(std::vector<std::string> dependents, engine::SimTime created, bool keep_history = false);
// ConditionSet.Set: returns whether anything changed; recomputes the root.
bool set_condition(ConditionSet& set, Condition c, engine::SimTime now);
// SetTrue: the reason is the condition type, no message.
bool set_true(ConditionSet& set, const std::string& type, engine::SimTime now);
bool set_false(ConditionSet& set, const std::string& type, const std::string& reason, const std::string& message,
               engine::SimTime now);
bool set_unknown(ConditionSet& set, const std::string& type, const std::string& reason, const std::string& message,
                 engine::SimTime now);
const Condition* find_condition(const ConditionSet& set, const std::string& type);
bool is_true(const ConditionSet& set, const std::string& type);

}  // namespace eksim::autoscaling::karpenter
