#include "models/autoscaling/karpenter/nodeclass/discovery.hpp"

#include <algorithm>

namespace eksim::autoscaling::karpenter {

bool tags_match(const std::map<std::string, std::string>& want, const std::map<std::string, std::string>& have) {
  for (const auto& [k, v] : want) {
    auto it = have.find(k);
    if (it == have.end() || (v != "*" && it->second != v)) return false;
  }
  return true;
}

// getFilterSets: an id term is one subnet-id filter, a tag term one set of tag filters; the sets
// are ORed (one DescribeSubnets call each, results merged).
bool subnet_selected(const std::vector<SelectorTerm>& terms, const aws::Subnet& s) {
  for (const auto& t : terms) {
    if (!t.id.empty() ? t.id == s.id : tags_match(t.tags, s.tags)) return true;
  }
  return false;
}

bool security_group_selected(const std::vector<SelectorTerm>& terms, const aws::SecurityGroup& g) {
  for (const auto& t : terms) {
    if (!t.id.empty()) {
      if (t.id == g.id) return true;
    } else if (!t.name.empty()) {
      if (t.name == g.name) return true;
    } else if (tags_match(t.tags, g.tags)) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> discover_subnets(const std::vector<SelectorTerm>& terms, const aws::Ec2& ec2) {
  std::vector<std::pair<std::int64_t, std::string>> found;
  for (const auto& s : ec2.subnets())
    if (subnet_selected(terms, s)) found.emplace_back(ec2.available_addresses(s.id), s.id);
  // subnet.go: "AvailableIpAddressCount" descending, then SubnetId.
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    return a.second < b.second;
  });
  std::vector<std::string> ids;
  for (auto& f : found) ids.push_back(std::move(f.second));
  return ids;
}

std::vector<std::string> discover_security_groups(const std::vector<SelectorTerm>& terms, const aws::SecurityGroups& groups) {
  std::vector<std::string> ids;
  for (const auto& g : groups.all())
    if (security_group_selected(terms, g)) ids.push_back(g.id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<std::string> node_class_condition_types() {
  return {"AMIsReady", "SubnetsReady", "SecurityGroupsReady", "InstanceProfileReady", "ValidationSucceeded",
          "PlacementGroupReady"};
}

std::vector<std::string> node_pool_condition_types() { return {"ValidationSucceeded", "NodeClassReady"}; }

bool reconcile_node_class(NodeClass& nc, const aws::Ec2& ec2, const aws::SecurityGroups& groups, engine::SimTime now) {
  if (nc.conditions.dependents.empty()) nc.conditions = new_condition_set(node_class_condition_types(), now, true);
  ConditionSet& cs = nc.conditions;
  bool changed = false;
  // The reconcilers in the controller's order: AMI, placement group, subnet, security group,
  // instance profile, validation. AMIs, instance profile and placement group always resolve here.
  changed |= set_true(cs, "AMIsReady", now);
  changed |= set_true(cs, "PlacementGroupReady", now);

  std::vector<std::string> subnets;
  if (nc.subnet_terms) subnets = discover_subnets(*nc.subnet_terms, ec2);
  else
    for (const auto& s : ec2.subnets()) subnets.push_back(s.id);
  changed |= subnets != nc.subnet_ids;
  nc.subnet_ids = std::move(subnets);
  if (nc.subnet_ids.empty()) changed |= set_false(cs, "SubnetsReady", "SubnetsNotFound", "SubnetSelector did not match any Subnets", now);
  else changed |= set_true(cs, "SubnetsReady", now);

  std::vector<std::string> sgs;
  if (nc.security_group_terms) sgs = discover_security_groups(*nc.security_group_terms, groups);
  changed |= sgs != nc.security_groups;
  nc.security_groups = std::move(sgs);
  // securitygroup.go: no group is an error only when terms were given.
  if (nc.security_groups.empty() && nc.security_group_terms && !nc.security_group_terms->empty())
    changed |= set_false(cs, "SecurityGroupsReady", "SecurityGroupsNotFound",
                         "SecurityGroupSelector did not match any SecurityGroups", now);
  else changed |= set_true(cs, "SecurityGroupsReady", now);

  changed |= set_true(cs, "InstanceProfileReady", now);

  bool dependency_false = false;
  for (const char* t : {"AMIsReady", "InstanceProfileReady", "SecurityGroupsReady", "SubnetsReady"}) {
    const Condition* c = find_condition(cs, t);
    dependency_false |= c && c->status == "False";
  }
  if (dependency_false)
    changed |= set_false(cs, "ValidationSucceeded", "DependenciesNotReady",
                         "Awaiting AMI, Instance Profile, Security Group, and Subnet resolution", now);
  else changed |= set_true(cs, "ValidationSucceeded", now);
  return changed;
}

bool reconcile_node_pool_readiness(NodePool& pool, const NodeClass* nc, engine::SimTime now) {
  if (pool.conditions.dependents.empty()) pool.conditions = new_condition_set(node_pool_condition_types(), now, true);
  ConditionSet& cs = pool.conditions;
  bool changed = set_true(cs, "ValidationSucceeded", now);
  if (!nc) return set_false(cs, "NodeClassReady", "NodeClassNotFound", "NodeClass not found on cluster", now) || changed;
  if (nc->deletion_timestamp)
    return set_false(cs, "NodeClassReady", "NodeClassTerminating", "NodeClass is Terminating", now) || changed;
  const Condition* ready = find_condition(nc->conditions, "Ready");
  if (!ready || ready->status == "Unknown")
    changed |= set_false(cs, "NodeClassReady", "NodeClassReadinessUnknown", "Node Class Readiness Unknown", now);
  else if (ready->status == "False")
    changed |= set_false(cs, "NodeClassReady", ready->reason, ready->message, now);
  else changed |= set_true(cs, "NodeClassReady", now);
  return changed;
}

}  // namespace eksim::autoscaling::karpenter
