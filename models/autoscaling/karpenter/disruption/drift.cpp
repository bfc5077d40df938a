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
  // spec.kubelet is part of the EC2NodeClass's static hash: a change drifts its nodes.
  auto add = [&h](std::int64_t n) {
    h += '|';
    h += std::to_string(n);
  };
  add(c.max_pods.value_or(-1));
  add(c.kubelet.pods_per_core);
  for (const auto* list : {&c.kubelet.kube_reserved, &c.kubelet.system_reserved}) {
    h += '|';
    for (const auto& [name, amount] : list->items()) {
      h += name;
      add(amount);
    }
  }
  add(c.kubelet.eviction_memory_available_bytes.value_or(-1));
  add(c.kubelet.eviction_nodefs_available_bytes.value_or(-1));
  add(static_cast<std::int64_t>(c.kubelet.eviction_nodefs_available_percent.value_or(-1) * 1000));
  return h;
}

const std::string& Controller::pool_hash_cached(const NodePool& p) {
  // NodePools change only between passes (kubectl apply), so a hash holds for the pass.
  auto& slot = pool_hashes_[p.name];
  if (slot.first != pass_ || pass_ == 0) slot = {pass_, pool_hash(p)};
  return slot.second;
}

const std::vector<Requirement>& Controller::pool_requirements(const NodePool& p) {
  auto& slot = pool_requirements_[p.name];
  if (slot.first != pass_ || pass_ == 0) {
    slot.first = pass_;
    slot.second.clear();
    for (const auto& r : p.requirements) slot.second.emplace_back(r.key, r.op, r.values);
  }
  return slot.second;
}

const NodePool* Controller::pool_of(const NodeClaimState& c) {
  // NodePools change only with config_version_ (std::map keeps their addresses until erased).
  const std::size_t idx = static_cast<std::size_t>(&c - claims_.data());
  if (pool_cache_.size() <= idx) pool_cache_.resize(claims_.size());
  auto& slot = pool_cache_[idx];
  if (slot.first != config_version_ + 1) {
    auto it = pools_.find(c.node_pool);
    slot = {config_version_ + 1, it == pools_.end() ? nullptr : &it->second};
  }
  return slot.second;
}

bool Controller::hash_drifted(const NodeClaimState& c, const NodePool& pool) {
  // The NodeClaim's hashes are fixed at launch; the NodePool's and NodeClass's move only with
  // config_version_.
  const std::size_t idx = static_cast<std::size_t>(&c - claims_.data());
  if (hash_drift_.size() <= idx) hash_drift_.resize(claims_.size());
  auto& memo = hash_drift_[idx];
  if (memo.first != config_version_ + 1) {
    auto cls = classes_.find(c.node_class);
    memo = {config_version_ + 1, c.pool_hash != pool_hash_cached(pool) || cls == classes_.end() ||
                                      c.class_hash != class_hash_cached(cls->second)};
  }
  return memo.second;
}

bool Controller::requirements_drifted(const NodePool& pool, k8s::NodeId node) {
  // The node's labels no longer meet the NodePool's requirements (RequirementsDrifted). It reads
  // only the node (its stamp) and the NodePool (config_version_), so the verdict holds until one
  // of them moves.
  NodePods& m = node_pods(node);
  if (m.drift_config == config_version_ + 1 && m.drift_pool == &pool) return m.requirements_drifted;
  const k8s::Labels& labels = c_.api.node(node).node.meta.labels;
  bool drifted = false;
  for (const auto& r : pool_requirements(pool)) {
    auto lbl = labels.find(r.key());
    if (lbl != labels.end() && !r.has(lbl->second)) drifted = true;
  }
  m.drift_config = config_version_ + 1;
  m.drift_pool = &pool;
  m.requirements_drifted = drifted;
  return drifted;
}

const std::string& Controller::class_hash_cached(const NodeClass& c) {
  auto& slot = class_hashes_[c.name];
  if (slot.first != pass_ || pass_ == 0) slot = {pass_, class_hash(c)};
  return slot.second;
}

}  // namespace eksim::autoscaling::karpenter
