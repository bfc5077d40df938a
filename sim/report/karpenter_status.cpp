#include "sim/report/karpenter_status.hpp"

#include "models/autoscaling/karpenter/controller.hpp"

namespace eksim::report {

namespace kp = autoscaling::karpenter;

namespace {

void write_conditions(JsonWriter& w, const kp::ConditionSet& cs) {
  w.key("conditions").begin_array();
  for (const auto& c : cs.conditions) {
    w.begin_object();
    w.key("type").string(c.type);
    w.key("status").string(c.status);
    w.key("reason").string(c.reason);
    w.key("message").string(c.message);
    w.key("lastTransitionTime").number(c.last_transition.to_seconds());
    w.end_object();
  }
  w.end_array();
}

void write_string_list(JsonWriter& w, const char* key, const std::vector<std::string>& items) {
  w.key(key).begin_array();
  for (const auto& s : items) w.string(s);
  w.end_array();
}

}  // namespace

void write_karpenter_status(JsonWriter& w, const Cluster& c) {
  const kp::Controller* k = c.controllers.karpenter.get();
  if (!k) return;
  w.key("nodePools").begin_array();
  for (const auto& [name, pool] : k->node_pools()) {
    w.begin_object();
    w.key("name").string(name);
    w.key("createdAt").number(pool.created.to_seconds());
    w.key("nodeClassRef").begin_object();
    w.key("group").string(pool.node_class_group);
    w.key("kind").string(pool.node_class_kind);
    w.key("name").string(pool.node_class_name);
    w.end_object();
    write_conditions(w, pool.conditions);
    w.end_object();
  }
  w.end_array();
  w.key("nodeClasses").begin_array();
  for (const auto& [name, nc] : k->node_classes()) {
    w.begin_object();
    w.key("kind").string(nc.kind);
    w.key("name").string(name);
    w.key("createdAt").number(nc.created.to_seconds());
    // status.subnets and status.securityGroups: what the selector terms resolved to.
    w.key("subnets").begin_array();
    for (const auto& id : nc.subnet_ids) {
      const aws::Subnet* s = c.ec2.subnet(id);
      w.begin_object();
      w.key("id").string(id);
      w.key("zone").string(s ? s->az : "");
      w.end_object();
    }
    w.end_array();
    write_string_list(w, "securityGroups", nc.security_groups);
    write_conditions(w, nc.conditions);
    w.end_object();
  }
  w.end_array();
  w.key("nodeClaims").begin_array();
  for (const auto& claim : k->node_claims()) {
    w.begin_object();
    w.key("name").string(claim.name);
    w.key("nodePool").string(claim.node_pool);
    w.key("nodeClass").string(claim.node_class);
    w.key("instanceType").string_or_null(claim.instance_type);
    w.key("zone").string_or_null(claim.zone);
    w.key("capacityType").string_or_null(claim.capacity_type);
    w.key("nodeName").string_or_null(claim.node_name);
    w.key("createdAt").number(claim.created.to_seconds());
    w.key("deletedAt").number_or_null(claim.deleted_at ? std::optional<double>(claim.deleted_at->to_seconds()) : std::nullopt);
    write_conditions(w, kp::nodeclaim_conditions(claim));
    w.end_object();
  }
  w.end_array();
}

}  // namespace eksim::report
