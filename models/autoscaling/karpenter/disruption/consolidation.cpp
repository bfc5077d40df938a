// Consolidation (pkg/controllers/disruption/consolidation.go): which candidates it considers and
// computeConsolidation.
#include "models/autoscaling/karpenter/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"
#include "models/autoscaling/karpenter/state/cluster.hpp"

#include <limits>
#include <unordered_set>

namespace eksim::autoscaling::karpenter {

using namespace detail;

bool Controller::underutilized_candidate(const NodeClaimState& c, SimTime now) {
  if (c.phase != NodeClaimPhase::Initialized || !c.replacements.empty()) return false;
  const NodePool* pool_ptr = pool_of(c);
  if (!pool_ptr || pool_ptr->consolidation_policy != "WhenEmptyOrUnderutilized") return false;
  const NodePool& pool = *pool_ptr;
  if (!pool.consolidate_after || now - std::max(c.last_pod_event, c.initialized_at.value_or(now)) < *pool.consolidate_after)
    return false;
  if (pool.expire_after && now - c.created >= *pool.expire_after) return false;  // expiration goes first
  auto node = node_of(c);
  if (!node) return false;
  const k8s::NodeRecord& rec = c_.api.node(*node);
  if (has_taint(rec.node.taints, kTaintDisrupted) || pods_block_disruption(*node)) return false;
  // Drifted nodes are replaced by drift, not consolidation.
  if (hash_drifted(c, pool)) return false;
  return reschedulable_pods(*node) > 0;  // empty nodes are emptiness's
}


std::string Controller::no_command_key(char kind, const std::vector<std::size_t>& candidates,
                                       const std::vector<std::uint32_t>& classes, const state::SimulationNodes& others,
                                       std::uint64_t generation) {
  // A simulation that found no command is remembered by everything it read: the kind of
  // consolidation, the templates, the candidates' nodes (stamps), and per pod class the nodes
  // outside the candidates it fits, with their stamps. The same inputs give the same answer.
  std::string key(1, kind);
  auto put = [&key](std::uint64_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(generation);
  for (std::size_t index : candidates) {
    put(index);
    auto node = node_of(claims_[index]);
    put(node ? node->v : UINT64_MAX);
    put(node ? state_.node_stamp(node->v) : 0);
  }
  state::Snapshot& snap = snapshot();
  const k8s::SchedulerOptions options;
  for (std::uint32_t k : classes) {
    put(UINT64_MAX - k);
    for (std::uint32_t pos : snap.fits_of(k, state_.classes, options)) {
      if (others.excluded(pos)) continue;
      const state::StateNode* s = snap.nodes[pos];
      put(s->identity);
      put(s->identity >> 32 ? 0 : state_.node_stamp(static_cast<std::uint32_t>(s->identity)));
    }
  }
  return key;
}

void Controller::remember_no_command(const std::string& key) {
  if (key.empty()) return;
  if (no_command_.size() >= 4096) no_command_.clear();  // bounded: hits are mostly the last passes
  no_command_.insert(key);
}

double Controller::price_floor(TemplateSet& set, const std::vector<std::uint32_t>& classes) {
  double floor = std::numeric_limits<double>::infinity();
  for (std::uint32_t k : classes) {
    auto [it, inserted] = set.floor_by_class.try_emplace(k, std::numeric_limits<double>::infinity());
    if (inserted) {
      const k8s::ResourceList pod = karpenter_requests(state_.classes.representative(k));
      for (const NodeClaimTemplate& t : set.templates) {
        k8s::ResourceList requests = t.daemon_overhead;
        requests += pod;
        for (const InstanceTypeInfo* type : t.instance_types) {
          if (!fits_in(requests, type->allocatable)) continue;
          const double p = type->cheapest(t.requirements);
          if (p >= 0) it->second = std::min(it->second, p);
        }
      }
    }
    floor = std::min(floor, it->second);
  }
  return floor;
}

std::optional<Controller::ConsolidationCommand> Controller::compute_consolidation(const std::vector<std::size_t>& candidates) {
  // computeConsolidation: simulate the candidates' pods without the candidates; all fit on the
  // rest -> delete; else at most one new NodeClaim, cheaper than the candidates together -> replace.
  auto& api = c_.api;
  ConsolidationCommand cmd;
  std::vector<k8s::NodeId> nodes;
  double total_price = 0;
  bool any_spot = false;
  std::map<std::string, double> candidate_price;  // cheapest price of each candidate type
  std::vector<const k8s::Pod*> pods;
  for (std::size_t index : candidates) {
    const NodeClaimState* c = &claims_[index];
    total_price += c->price_per_hour;
    any_spot |= c->capacity_type == "spot";
    auto [it, inserted] = candidate_price.emplace(c->instance_type, c->price_per_hour);
    if (!inserted) it->second = std::min(it->second, c->price_per_hour);
    auto node = node_of(*c);
    if (!node) continue;
    nodes.push_back(*node);
    for (k8s::PodId p : node_pods(*node).reschedulable_ids) pods.push_back(&api.pod(p).pod);
  }
  state::Snapshot& snap = snapshot();
  state::SimulationNodes others(snap, state_.classes, positions_of(nodes));
  // SimulationNodes::classes_of over all the candidates' pods, from each node's cached classes.
  std::optional<std::vector<std::uint32_t>> classes;
  if (!snap.anti_affinity_selects_any(pods)) {
    classes.emplace();
    for (k8s::NodeId node : nodes) {
      const auto& own = node_classes(node);
      if (!own) {
        classes.reset();
        break;
      }
      for (std::uint32_t k : *own)
        if (std::find(classes->begin(), classes->end(), k) == classes->end()) classes->push_back(k);
    }
  }
  if (!classes) {
    cmd.pods = std::make_unique<std::vector<k8s::Pod>>();
    for (const k8s::Pod* p : pods) cmd.pods->push_back(unbound(*p));
    for (std::size_t i = 0; i < pods.size(); ++i) pods[i] = &(*cmd.pods)[i];
  } else if (others.only_uninitialized_fit(*classes)) {
    return std::nullopt;  // the simulation would rely on an uninitialized node
  } else if (any_spot && !settings_.spot_to_spot_consolidation && others.some_class_fits_no_node(*classes)) {
    return std::nullopt;  // it would need a new NodeClaim, and spot candidates are not replaced
  }
  cmd.candidates = candidates;
  cmd.templates = template_set();
  const std::string key = cmd.pods ? std::string() : no_command_key('m', candidates, *classes, others, cmd.templates->generation);
  if (!key.empty() && no_command_.count(key)) return std::nullopt;
  auto none = [&]() -> std::optional<ConsolidationCommand> {
    remember_no_command(key);
    return std::nullopt;
  };
  // Spot candidates are only replaced with the SpotToSpotConsolidation feature gate: without it
  // only a delete can come of this, so the simulation stops at the first pod that needs a NodeClaim.
  const bool delete_only = any_spot && !settings_.spot_to_spot_consolidation;
  SchedulingResults res = solve(pods, others, cmd.templates->templates, domain(), {}, delete_only);
  if (res.stopped || !res.errors.empty() || res.new_claims.size() > 1 || relies_on_uninitialized(res, others)) return none();
  if (res.new_claims.empty()) return cmd;  // delete
  if (delete_only) return none();
  PlannedNodeClaim planned = std::move(res.new_claims[0]);
  // Cheaper than the candidates together, and (filterOutSameType) cheaper than the cheapest
  // candidate whose type is among the options: otherwise deleting the others is the better move.
  double max_price = total_price;
  for (const auto* it : planned.options) {
    auto cp = candidate_price.find(it->name());
    if (cp != candidate_price.end()) max_price = std::min(max_price, cp->second);
  }
  std::erase_if(planned.options, [&](const InstanceTypeInfo* it) {
    double p = it->cheapest(planned.requirements);
    return p < 0 || p >= max_price;
  });
  if (planned.options.empty()) return none();
  cmd.replacement.push_back(std::move(planned));
  return cmd;
}

}  // namespace eksim::autoscaling::karpenter
