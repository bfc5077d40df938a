// Drift (pkg/controllers/disruption/drift.go, nodepool/hash): NodePool and NodeClass hashes,
// and the node's labels against the NodePool's requirements.
#include "models/autoscaling/karpenter/disruption/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

std::string pool_hash(const NodePool& p) {
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

std::string class_hash(const NodeClass& c) {
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

const std::string& Drift::pool_hash_cached(const NodePool& p) {
  // NodePools change only between passes (kubectl apply), so a hash holds for the pass.
  const std::uint64_t pass = d_.ctx().state.pass;
  auto& slot = pool_hashes_[p.name];
  if (slot.first != pass || pass == 0) slot = {pass, pool_hash(p)};
  return slot.second;
}

const std::vector<Requirement>& Drift::pool_requirements(const NodePool& p) {
  const std::uint64_t pass = d_.ctx().state.pass;
  auto& slot = pool_requirements_[p.name];
  if (slot.first != pass || pass == 0) {
    slot.first = pass;
    slot.second.clear();
    for (const auto& r : p.requirements) slot.second.emplace_back(r.key, r.op, r.values);
  }
  return slot.second;
}

bool Drift::should_disrupt(const Candidate& c) { return hash_drifted(*c.claim, *c.pool) || requirements_drifted(*c.pool, c.node); }

std::optional<Command> Drift::compute_command(const std::vector<Candidate>& candidates) {
  return d_.simulate(candidates.front(), reason());
}

bool Drift::hash_drifted(const NodeClaimState& c, const NodePool& pool) {
  // The NodeClaim's hashes are fixed at launch; the NodePool's and NodeClass's move only with
  // the config version.
  state::Cluster& state = d_.ctx().state;
  const std::size_t idx = static_cast<std::size_t>(&c - state.node_claims.data());
  if (hash_drift_.size() <= idx) hash_drift_.resize(state.node_claims.size());
  auto& memo = hash_drift_[idx];
  if (memo.first != state.config_version + 1) {
    auto cls = state.node_classes.find(c.node_class);
    memo = {state.config_version + 1, c.pool_hash != pool_hash_cached(pool) || cls == state.node_classes.end() ||
                                          c.class_hash != class_hash_cached(cls->second)};
  }
  return memo.second;
}

bool Drift::requirements_drifted(const NodePool& pool, k8s::NodeId node) {
  // The node's labels no longer meet the NodePool's requirements (RequirementsDrifted). It reads
  // only the node (its stamp) and the NodePool (config version), so the verdict holds until one
  // of them moves.
  state::Cluster& state = d_.ctx().state;
  if (node.v >= requirements_drift_.size()) requirements_drift_.resize(node.v + 1);
  RequirementsVerdict& m = requirements_drift_[node.v];
  const std::uint64_t stamp = state.node_stamp(node.v) + 1, config = state.config_version + 1;
  if (m.stamp == stamp && m.config == config && m.pool == &pool) return m.drifted;
  const k8s::Labels& labels = d_.ctx().world.api.node(node).node.meta.labels;
  bool drifted = false;
  for (const auto& r : pool_requirements(pool)) {
    auto lbl = labels.find(r.key());
    if (lbl != labels.end() && !r.has(lbl->second)) drifted = true;
  }
  m = RequirementsVerdict{stamp, config, &pool, drifted};
  return drifted;
}

const std::string& Drift::class_hash_cached(const NodeClass& c) {
  const std::uint64_t pass = d_.ctx().state.pass;
  auto& slot = class_hashes_[c.name];
  if (slot.first != pass || pass == 0) slot = {pass, class_hash(c)};
  return slot.second;
}

}  // namespace eksim::autoscaling::karpenter
