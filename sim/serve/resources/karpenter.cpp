// karpenter.sh/v1 NodePools and NodeClaims, and the node classes (EC2NodeClass for open-source
// Karpenter, eks.amazonaws.com NodeClass for Auto Mode), with the status conditions `kubectl
// get` and `describe` show (Ready; Launched, Registered, Initialized).
#include <fmt/format.h>

#include "models/autoscaling/karpenter/controller.hpp"
#include "models/k8s/api/resources.hpp"
#include "sim/serve/resources/render.hpp"

namespace eksim::serve {

using nlohmann::json;
namespace kp = autoscaling::karpenter;

std::string uid_of(const std::string& kind, const std::string& name) {
  return fmt::format("{:08x}-0000-4000-8000-{:012x}", std::hash<std::string>{}(kind) & 0xffffffffu,
                     std::hash<std::string>{}(name) & 0xffffffffffffULL);
}

namespace {

json requirements(const std::vector<k8s::NodeSelectorRequirement>& reqs) {
  json out = json::array();
  for (const auto& r : reqs) {
    json rj = {{"key", r.key}, {"operator", r.op}};
    if (!r.values.empty()) rj["values"] = r.values;
    out.push_back(rj);
  }
  return out;
}

json taints(const std::vector<k8s::Taint>& ts) {
  json out = json::array();
  for (const auto& t : ts) {
    json tj = {{"key", t.key}, {"effect", t.effect}};
    if (!t.value.empty()) tj["value"] = t.value;
    out.push_back(tj);
  }
  return out;
}

// The model's status conditions (operatorpkg's ConditionSet) as the API shows them.
json conditions(const kp::ConditionSet& cs, const TimeBase& tb) {
  json out = json::array();
  for (const auto& c : cs.conditions)
    out.push_back(json{{"type", c.type}, {"status", c.status}, {"lastTransitionTime", tb.at(c.last_transition)},
                       {"reason", c.reason}, {"message", c.message}, {"observedGeneration", 1}});
  return out;
}

json node_pool_object(const kp::Controller& k, const std::string& name, const kp::NodePool& pool, const TimeBase& tb) {
  int nodes = 0;
  k8s::ResourceList used;
  for (const auto& claim : k.node_claims())
    if (claim.node_pool == name && claim.phase != kp::NodeClaimPhase::Deleted) {
      ++nodes;
      used += claim.capacity;
    }
  json spec_template = {{"spec",
                         {{"nodeClassRef", {{"group", pool.node_class_group}, {"kind", pool.node_class_kind}, {"name", pool.node_class_name}}},
                          {"requirements", requirements(pool.requirements)}}}};
  if (!pool.taints.empty()) spec_template["spec"]["taints"] = taints(pool.taints);
  if (!pool.labels.empty()) spec_template["metadata"]["labels"] = pool.labels;
  if (pool.expire_after) spec_template["spec"]["expireAfter"] = engine::format_duration(*pool.expire_after);
  json disruption = {{"consolidationPolicy", pool.consolidation_policy},
                     {"consolidateAfter", pool.consolidate_after ? engine::format_duration(*pool.consolidate_after) : "Never"},
                     {"budgets", json::array({{{"nodes", "10%"}}})}};
  json spec = {{"template", spec_template}, {"disruption", disruption}};
  if (pool.weight) spec["weight"] = pool.weight;
  if (!pool.limits.empty()) {
    json limits = json::object();
    for (const auto& [res, amount] : pool.limits) limits[res] = k8s::format_amount(res, amount);
    spec["limits"] = limits;
  }
  json resources = json::object();
  for (auto [res, amount] : used.items()) resources[res] = k8s::format_amount(res, amount);
  resources["nodes"] = std::to_string(nodes);
  json meta = {{"name", name}, {"uid", uid_of("NodePool", name)}, {"creationTimestamp", tb.at(pool.created)}, {"generation", 1}};
  if (pool.built_in) meta["labels"] = {{"app.kubernetes.io/managed-by", "eks"}};
  return json{{"apiVersion", "karpenter.sh/v1"},
              {"kind", "NodePool"},
              {"metadata", meta},
              {"spec", spec},
              {"status", {{"conditions", conditions(pool.conditions, tb)}, {"resources", resources}, {"nodes", nodes}}}};
}

json node_claim_object(const kp::NodeClaimState& claim, bool auto_mode, const TimeBase& tb) {
  std::string created = tb.at(claim.created);
  json conds = conditions(kp::nodeclaim_conditions(claim), tb);
  json labels = claim.labels;
  labels["karpenter.sh/nodepool"] = claim.node_pool;
  if (!claim.instance_type.empty()) labels["node.kubernetes.io/instance-type"] = claim.instance_type;
  if (!claim.zone.empty()) labels["topology.kubernetes.io/zone"] = claim.zone;
  if (!claim.capacity_type.empty()) labels["karpenter.sh/capacity-type"] = claim.capacity_type;
  json meta = {{"name", claim.name}, {"uid", uid_of("NodeClaim", claim.name)}, {"creationTimestamp", created},
               {"labels", labels}, {"generation", 1},
               {"ownerReferences", json::array({{{"apiVersion", "karpenter.sh/v1"}, {"kind", "NodePool"},
                                                 {"name", claim.node_pool}, {"uid", uid_of("NodePool", claim.node_pool)},
                                                 {"blockOwnerDeletion", true}}})}};
  if (claim.phase == kp::NodeClaimPhase::Deleting) meta["deletionTimestamp"] = tb.at(claim.deleted_at.value_or(claim.created));
  json status = {{"conditions", conds}};
  if (!claim.instance_id.empty()) status["providerID"] = "aws:///" + claim.zone + "/" + claim.instance_id;
  if (!claim.node_name.empty()) status["nodeName"] = claim.node_name;
  json cap = json::object(), alloc = json::object();
  for (auto [res, amount] : claim.capacity.items()) cap[res] = k8s::format_amount(res, amount);
  for (auto [res, amount] : claim.allocatable.items()) alloc[res] = k8s::format_amount(res, amount);
  status["capacity"] = cap;
  status["allocatable"] = alloc;
  return json{{"apiVersion", "karpenter.sh/v1"},
              {"kind", "NodeClaim"},
              {"metadata", meta},
              {"spec", {{"nodeClassRef", {{"group", auto_mode ? "eks.amazonaws.com" : "karpenter.k8s.aws"},
                                          {"kind", auto_mode ? "NodeClass" : "EC2NodeClass"}, {"name", claim.node_class}}},
                        {"taints", taints(claim.taints)}}},
              {"status", status}};
}

// The conditions, and the subnets and security groups the class resolved, with their zones
// and names from the VPC.
json node_class_status(const Cluster& c, const kp::NodeClass& nc, const TimeBase& tb) {
  json status = {{"conditions", conditions(nc.conditions, tb)}};
  json subnets = json::array(), groups = json::array();
  for (const auto& id : nc.subnet_ids) {
    const aws::Subnet* s = c.ec2.subnet(id);
    subnets.push_back(json{{"id", id}, {"zone", s ? s->az : ""}});
  }
  for (const auto& id : nc.security_groups) {
    const aws::SecurityGroup* g = c.security_groups.find(id);
    groups.push_back(json{{"id", id}, {"name", g ? g->name : ""}});
  }
  if (!subnets.empty()) status["subnets"] = subnets;
  if (!groups.empty()) status["securityGroups"] = groups;
  return status;
}

void render_node_class(const Cluster& c, const std::string& name, const kp::NodeClass& nc, const TimeBase& tb,
                       ObjectMap& ec2nodeclasses, ObjectMap& nodeclasses) {
  json meta = {{"name", name}, {"uid", uid_of(nc.kind, name)}, {"creationTimestamp", tb.at(nc.created)}, {"generation", 1}};
  if (nc.deletion_timestamp) {
    // Held by the termination finalizer while NodeClaims use it.
    meta["deletionTimestamp"] = tb.at(*nc.deletion_timestamp);
    if (nc.kind == "EC2NodeClass") meta["finalizers"] = json::array({"karpenter.k8s.aws/termination"});
  }
  json status = node_class_status(c, nc, tb);
  if (nc.kind == "NodeClass") {
    nodeclasses[name] = json{{"apiVersion", "eks.amazonaws.com/v1"}, {"kind", "NodeClass"}, {"metadata", meta},
                             {"spec", {{"role", nc.role}}}, {"status", status}};
  } else {
    json spec = {{"role", nc.role}};
    if (!nc.ami_alias.empty()) spec["amiSelectorTerms"] = json::array({{{"alias", nc.ami_alias}}});
    if (!nc.ami_family.empty()) spec["amiFamily"] = nc.ami_family;
    ec2nodeclasses[name] = json{{"apiVersion", "karpenter.k8s.aws/v1"}, {"kind", "EC2NodeClass"}, {"metadata", meta},
                                {"spec", spec}, {"status", status}};
  }
}

}  // namespace

void render_karpenter(const RenderContext& ctx, ObjectMap& nodepools, ObjectMap& nodeclaims, ObjectMap& ec2nodeclasses,
                      ObjectMap& nodeclasses) {
  const Cluster& c = ctx.cluster;
  const kp::Controller* k = c.controllers.karpenter.get();
  if (!k) return;
  const TimeBase& tb = ctx.time;
  for (const auto& [name, pool] : k->node_pools()) nodepools[name] = node_pool_object(*k, name, pool, tb);
  for (const auto& claim : k->node_claims())
    if (claim.phase != kp::NodeClaimPhase::Deleted)
      nodeclaims[claim.name] = node_claim_object(claim, k->settings().auto_mode, tb);
  for (const auto& [name, nc] : k->node_classes()) render_node_class(c, name, nc, tb, ec2nodeclasses, nodeclasses);
}

}  // namespace eksim::serve
