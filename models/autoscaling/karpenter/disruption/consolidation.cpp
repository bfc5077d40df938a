// Consolidation (pkg/controllers/disruption/consolidation.go): computeConsolidation, the
// simulation of a multi-node command, and the memory of simulations that found none.
#include "models/autoscaling/karpenter/disruption/controller.hpp"

#include <limits>
#include <unordered_set>

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

namespace {

// SimulationNodes::classes_of over all the candidates' pods, from each node's cached classes.
std::optional<std::vector<std::uint32_t>> pod_classes(state::Cluster& state, const state::Snapshot& snap,
                                                      const std::vector<k8s::NodeId>& nodes,
                                                      const std::vector<const k8s::Pod*>& pods) {
  if (snap.anti_affinity_selects_any(pods)) return std::nullopt;
  std::vector<std::uint32_t> classes;
  for (k8s::NodeId node : nodes) {
    const auto& own = state.pod_classes_of(node);
    if (!own) return std::nullopt;
    for (std::uint32_t k : *own)
      if (std::find(classes.begin(), classes.end(), k) == classes.end()) classes.push_back(k);
  }
  return classes;
}

// The replacement's options cheaper than the candidates together, and (filterOutSameType)
// cheaper than the cheapest candidate whose type is among them: otherwise deleting the others is
// the better move. False when none is left.
bool filter_out_same_type(PlannedNodeClaim& planned, double total_price, const std::map<std::string, double>& candidate_price) {
  double max_price = total_price;
  for (const auto* it : planned.options) {
    auto cp = candidate_price.find(it->name());
    if (cp != candidate_price.end()) max_price = std::min(max_price, cp->second);
  }
  std::erase_if(planned.options, [&](const InstanceTypeInfo* it) {
    double p = it->cheapest(planned.requirements);
    return p < 0 || p >= max_price;
  });
  return !planned.options.empty();
}

}  // namespace

std::string MultiNodeConsolidation::no_command_key(const std::vector<std::size_t>& candidates,
                                                   const std::vector<std::uint32_t>& classes,
                                                   const state::SimulationNodes& others, std::uint64_t generation) {
  // A simulation that found no command is remembered by everything it read: the templates, the
  // candidates' nodes (stamps), and per pod class the nodes outside the candidates it fits, with
  // their stamps. The same inputs give the same answer.
  state::Cluster& state = d_.ctx().state;
  std::string key;
  auto put = [&key](std::uint64_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(generation);
  for (std::size_t index : candidates) {
    put(index);
    auto node = state.node_of(state.node_claims[index]);
    put(node ? node->v : UINT64_MAX);
    put(node ? state.node_stamp(node->v) : 0);
  }
  state::Snapshot& snap = state.snapshot();
  const k8s::SchedulerOptions options;
  for (std::uint32_t k : classes) {
    put(UINT64_MAX - k);
    for (std::uint32_t pos : snap.fits_of(k, state.classes, options)) {
      if (others.excluded(pos)) continue;
      const state::StateNode* s = snap.nodes[pos];
      put(s->identity);
      put(s->identity >> 32 ? 0 : state.node_stamp(static_cast<std::uint32_t>(s->identity)));
    }
  }
  return key;
}

void MultiNodeConsolidation::remember_no_command(const std::string& key) {
  if (key.empty()) return;
  if (no_command_.size() >= 4096) no_command_.clear();  // bounded: hits are mostly the last passes
  no_command_.insert(key);
}

std::optional<Command> MultiNodeConsolidation::compute_consolidation(const std::vector<std::size_t>& candidates) {
  // computeConsolidation: simulate the candidates' pods without the candidates; all fit on the
  // rest -> delete; else at most one new NodeClaim, cheaper than the candidates together -> replace.
  auto& api = d_.ctx().world.api;
  state::Cluster& state = d_.ctx().state;
  Command cmd;
  std::vector<k8s::NodeId> nodes;
  double total_price = 0;
  bool any_spot = false;
  std::map<std::string, double> candidate_price;  // cheapest price of each candidate type
  std::vector<const k8s::Pod*> pods;
  for (std::size_t index : candidates) {
    const NodeClaimState* c = &state.node_claims[index];
    total_price += c->price_per_hour;
    any_spot |= c->capacity_type == "spot";
    auto [it, inserted] = candidate_price.emplace(c->instance_type, c->price_per_hour);
    if (!inserted) it->second = std::min(it->second, c->price_per_hour);
    auto node = state.node_of(*c);
    if (!node) continue;
    nodes.push_back(*node);
    for (k8s::PodId p : state.node_pods(*node).reschedulable_ids) pods.push_back(&api.pod(p).pod);
  }
  state::Snapshot& snap = state.snapshot();
  state::SimulationNodes others(snap, state.classes, state.positions_of(nodes));
  std::optional<std::vector<std::uint32_t>> classes = pod_classes(state, snap, nodes, pods);
  if (!classes) {
    cmd.pods = std::make_unique<std::vector<k8s::Pod>>();
    for (const k8s::Pod* p : pods) cmd.pods->push_back(unbound(*p));
    for (std::size_t i = 0; i < pods.size(); ++i) pods[i] = &(*cmd.pods)[i];
  } else if (others.only_uninitialized_fit(*classes)) {
    return std::nullopt;  // the simulation would rely on an uninitialized node
  } else if (any_spot && !d_.ctx().settings.spot_to_spot_consolidation && others.some_class_fits_no_node(*classes)) {
    return std::nullopt;  // it would need a new NodeClaim, and spot candidates are not replaced
  }
  cmd.candidates = candidates;
  cmd.templates = d_.provisioner().template_set();
  const std::string key = cmd.pods ? std::string() : no_command_key(candidates, *classes, others, cmd.templates->generation);
  if (!key.empty() && no_command_.count(key)) return std::nullopt;
  auto none = [&]() -> std::optional<Command> {
    remember_no_command(key);
    return std::nullopt;
  };
  // Spot candidates are only replaced with the SpotToSpotConsolidation feature gate: without it
  // only a delete can come of this, so the simulation stops at the first pod that needs a NodeClaim.
  const bool delete_only = any_spot && !d_.ctx().settings.spot_to_spot_consolidation;
  SchedulingResults res = solve(pods, others, cmd.templates->templates, d_.ctx().settings.domain(), {}, delete_only);
  if (res.stopped || !res.errors.empty() || res.new_claims.size() > 1 || relies_on_uninitialized(res, others)) return none();
  if (res.new_claims.empty()) return cmd;  // delete
  if (delete_only) return none();
  PlannedNodeClaim planned = std::move(res.new_claims[0]);
  if (!filter_out_same_type(planned, total_price, candidate_price)) return none();
  cmd.replacements.push_back(std::move(planned));
  return cmd;
}

}  // namespace eksim::autoscaling::karpenter
