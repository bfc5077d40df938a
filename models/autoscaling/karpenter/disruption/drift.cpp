// Drift (pkg/controllers/disruption/drift.go, nodepool/hash): NodePool and NodeClass hashes.
#include "models/autoscaling/karpenter/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

std::string Controller::pool_hash(const NodePool& p) const {
  std::string h;
  for (const auto& [k, v] : p.labels) h += k + "=" + v + ",";
  h += "|";
  for (const auto& [k, v] : p.annotations) h += k + "=" + v + ",";
  h += "|";
  for (const auto& t : p.taints) h += t.key + "=" + t.value + ":" + t.effect + ",";
  h += "|";
  for (const auto& t : p.startup_taints) h += t.key + "=" + t.value + ":" + t.effect + ",";
  h += "|" + p.node_class_group + "/" + p.node_class_kind + "/" + p.node_class_name;
  return h;
}

std::string Controller::class_hash(const NodeClass& c) const {
  std::string h = c.kind + "|" + c.role + "|" + c.ami_family + "|" + c.ami_alias + "|" + std::to_string(c.root_volume_gib) + "|";
  for (const auto& [k, v] : c.tags) h += k + "=" + v + ",";
  return h;
}

}  // namespace eksim::autoscaling::karpenter
