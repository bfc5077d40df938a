#include "models/autoscaling/karpenter/status/conditions.hpp"

#include <algorithm>

namespace eksim::autoscaling::karpenter {

namespace {

bool is_dependent(const ConditionSet& set, const std::string& type) {
  return std::find(set.dependents.begin(), set.dependents.end(), type) != set.dependents.end();
}

// recomputeRootCondition.
void recompute_root(ConditionSet& set, engine::SimTime now) {
  std::vector<const Condition*> unhealthy;
  for (const auto& c : set.conditions)
    if (is_dependent(set, c.type) && c.status != "True") unhealthy.push_back(&c);
  // findUnhealthyDependents sorts by transition time, latest first; equal times keep list order.
  std::stable_sort(unhealthy.begin(), unhealthy.end(),
                   [](const Condition* a, const Condition* b) { return a->last_transition > b->last_transition; });
  if (unhealthy.empty()) {
    set_true(set, set.root, now);
    return;
  }
  const bool any_false =
      std::any_of(unhealthy.begin(), unhealthy.end(), [](const Condition* c) { return c->status == "False"; });
  std::string message;
  for (const Condition* c : unhealthy) message += (message.empty() ? "" : ", ") + c->type + "=" + c->status;
  set_condition(set,
                Condition{set.root, any_false ? "False" : "Unknown", any_false ? "UnhealthyDependents" : "ReconcilingDependents",
                          message, {}},
                now);
}

}  // namespace

ConditionSet new_condition_set(std::vector<std::string> dependents, engine::SimTime created, bool keep_history) {
  ConditionSet set;
  set.keep_history = keep_history;
  set.dependents = std::move(dependents);
  set.created = created;
  // The root first, for consistent transition times (ConditionTypes.For).
  set_unknown(set, set.root, "AwaitingReconciliation", "object is awaiting reconciliation", created);
  for (const auto& d : std::vector<std::string>(set.dependents))
    set_unknown(set, d, "AwaitingReconciliation", "object is awaiting reconciliation", created);
  return set;
}

bool set_condition(ConditionSet& set, Condition c, engine::SimTime now) {
  std::vector<Condition> out;
  bool found = false;
  for (const auto& old : set.conditions) {
    if (old.type != c.type) {
      out.push_back(old);
      continue;
    }
    found = true;
    c.last_transition = c.status == old.status ? old.last_transition : now;
    if (c.status == old.status && c.reason == old.reason && c.message == old.message) return false;
  }
  if (!found) c.last_transition = is_dependent(set, c.type) ? set.created : now;
  out.push_back(c);
  if (set.keep_history) set.history.push_back(ConditionChange{now, c});
  const std::string& root = set.root;
  std::stable_sort(out.begin(), out.end(), [&root](const Condition& a, const Condition& b) {
    if (a.type == root || b.type == root) return b.type == root && a.type != root;
    return a.last_transition < b.last_transition;
  });
  set.conditions = std::move(out);
  if (c.type != set.root) recompute_root(set, now);
  return true;
}

bool set_true(ConditionSet& set, const std::string& type, engine::SimTime now) {
  return set_condition(set, Condition{type, "True", type, "", {}}, now);
}

bool set_false(ConditionSet& set, const std::string& type, const std::string& reason, const std::string& message,
               engine::SimTime now) {
  return set_condition(set, Condition{type, "False", reason, message, {}}, now);
}

bool set_unknown(ConditionSet& set, const std::string& type, const std::string& reason, const std::string& message,
                 engine::SimTime now) {
  return set_condition(set, Condition{type, "Unknown", reason, message, {}}, now);
}

const Condition* find_condition(const ConditionSet& set, const std::string& type) {
  for (const auto& c : set.conditions)
    if (c.type == type) return &c;
  return nullptr;
}

bool is_true(const ConditionSet& set, const std::string& type) {
  const Condition* c = find_condition(set, type);
  return c && c->status == "True";
}

}  // namespace eksim::autoscaling::karpenter
