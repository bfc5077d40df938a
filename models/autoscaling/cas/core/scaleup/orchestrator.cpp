#include "models/autoscaling/cas/core/scaleup/orchestrator.hpp"

#include <algorithm>

#include "models/autoscaling/cas/processors/status/eventing_scale_up_processor.hpp"

namespace eksim::autoscaling::cas {

namespace {

TemplateKey template_key(const std::optional<k8s::Node>& node) {
  TemplateKey key;
  if (!node) return key;
  key.present = true;
  for (const auto& [k, v] : node->meta.labels)
    if (k != k8s::kLabelHostname) key.labels.emplace_back(k, v);
  key.taints = node->taints;
  for (const auto& e : node->allocatable) key.allocatable.emplace_back(e.id, e.amount);
  key.unschedulable = node->unschedulable;
  return key;
}

}  // namespace

ScaleUpInputs Orchestrator::read_inputs(ScaleUpPass& pass) {
  ScaleUpInputs in;
  in.nodes.reserve(pass.nodes.size());
  for (const auto& ln : pass.nodes) in.nodes.emplace_back(ln.id.v, ln.usable);
  for (NodeGroup* g : ctx_.cloud_provider.node_groups()) {
    ScaleUpInputs::Group gi;
    gi.id = g->id();
    gi.target = g->target_size().value_or(-1);
    gi.max = g->max_size();
    gi.registered = cluster_state_.registered_usable(*g, pass.nodes);
    gi.deleting = deletions_.deleting_in(g->id());
    gi.backed_off = cluster_state_.backoff().is_backed_off(g->id(), pass.now);
    auto& t = pass.templates[g->id()] = templates_.template_node(*g, pass.nodes);
    gi.template_key = template_key(t);
    in.groups.push_back(std::move(gi));
  }
  return in;
}

std::vector<k8s::PodId> Orchestrator::list_unschedulable() const {
  return unschedulable_source_ ? unschedulable_source_() : default_unschedulable();
}

void Orchestrator::remember(Memo key, std::vector<k8s::PodId> remaining, std::vector<std::size_t> group_of,
                            std::vector<std::string> messages) {
  memo_ = std::move(key);
  memo_.valid = true;
  memo_.version = ctx_.node_infos.version();
  memo_.remaining = std::move(remaining);
  memo_.group_of = std::move(group_of);
  memo_.messages = std::move(messages);
}

void Orchestrator::emit_not_triggered(const std::vector<k8s::PodId>& pods, const std::vector<std::size_t>& group_of,
                                      const std::vector<std::string>& messages) {
  ctx_.emit_until_refused(pods.size(), [&](std::size_t k) {
    return ctx_.emit_pod(pods[k], k8s::EventType::Normal, "NotTriggerScaleUp", messages[group_of[k]]);
  });
}

bool Orchestrator::scale_up(const std::vector<LiveNode>& nodes) {
  ScaleUpPass pass{ctx_.cluster.sim.now(), nodes, ctx_.scheduler_options()};
  Memo key;
  key.inputs = read_inputs(pass);
  // With a versioned source the list is taken only when the memo does not answer.
  const bool versioned = static_cast<bool>(unschedulable_version_);
  key.unschedulable_version = versioned ? unschedulable_version_() : 0;
  if (!versioned) key.unschedulable = list_unschedulable();
  if (memo_.valid && memo_.version == ctx_.node_infos.version() && memo_.inputs == key.inputs &&
      (versioned ? memo_.unschedulable_version == key.unschedulable_version : memo_.unschedulable == key.unschedulable)) {
    emit_not_triggered(memo_.remaining, memo_.group_of, memo_.messages);
    return false;
  }
  std::vector<k8s::PodId> unschedulable = versioned ? list_unschedulable() : key.unschedulable;
  memo_ = Memo{};
  bool delayed = false;  // a pod too new to count: the next pass differs
  std::vector<k8s::PodId> pending = pending_pods(unschedulable, delayed);
  if (!pending.empty()) filter_out_schedulable(pass, pending);
  if (pass.remaining.empty()) {
    if (!delayed) remember(std::move(key), {}, {}, {});
    return false;
  }
  const CasOptions& o = ctx_.options;
  const bool limited_by_total = o.max_nodes_total > 0 && pass.total_nodes >= o.max_nodes_total;
  compute_expansion_options(pass);
  if (pass.options.empty() || limited_by_total) {
    std::vector<std::string> message(pass.equivalence.size());
    for (std::size_t e = 0; e < pass.equivalence.size(); ++e)
      message[e] = limited_by_total ? std::string("pod didn't trigger scale-up: max total nodes in cluster reached")
                                    : not_trigger_scale_up_message(pass.reasons[e]);
    emit_not_triggered(pass.remaining, pass.group_of, message);
    if (!delayed) remember(std::move(key), std::move(pass.remaining), std::move(pass.group_of), std::move(message));
    return false;
  }
  const std::size_t pick = choose_best_option(pass);
  const ExpansionOption& best = pass.options[pick];
  std::vector<ScaleUpInfo> plan = balance_scale_up(similar_node_groups(pass, pick), best.node_count);
  return execute(pass, best, plan);
}

// --- step 3: the expander -----------------------------------------------------------------------

std::size_t Orchestrator::choose_best_option(const ScaleUpPass& pass) {
  const CasOptions& o = ctx_.options;
  const bool uses_priority = std::find(o.expander.begin(), o.expander.end(), Expander::Priority) != o.expander.end();
  if (uses_priority && !priority_config_map_.valid())
    // expander/priority/priority.go: a ConfigMap that does not parse is reported and ignored.
    ctx_.cluster.api.emit(k8s::EventType::Warning, "PriorityConfigMapInvalid",
                          {"ConfigMap", "kube-system", kPriorityConfigMapName},
                          "Wrong configuration for priority expander: " + priority_config_map_.error + ". Ignoring update.",
                          kComponent);
  const PriorityConfig& priorities = priority_config_map_.effective(o.priorities);
  const bool have_rules = priority_config_map_.valid() && !priorities.empty();
  std::vector<std::string> unmatched;
  int pick = choose_option(pass.options, o.expander, priorities, ctx_.cluster.rng.get("cluster-autoscaler/expander"),
                           have_rules ? &unmatched : nullptr);
  emit_priority_warnings(pass, unmatched, have_rules);
  return static_cast<std::size_t>(pick);
}

void Orchestrator::emit_priority_warnings(const ScaleUpPass& pass, const std::vector<std::string>& unmatched,
                                          bool have_rules) {
  const k8s::ObjectRef priority_cm{"ConfigMap", "kube-system", kPriorityConfigMapName};
  for (const auto& id : unmatched)
    ctx_.cluster.api.emit(
        k8s::EventType::Warning, "PriorityConfigMapNotMatchedGroup", priority_cm,
        "Priority expander: node group " + id + " not found in priority expander configuration. The group won't be used.",
        kComponent);
  const PriorityConfig& priorities = priority_config_map_.effective(ctx_.options.priorities);
  if (have_rules && !unmatched.empty() &&
      std::none_of(pass.options.begin(), pass.options.end(), [&](const ExpansionOption& o) {
        return std::any_of(priorities.begin(), priorities.end(),
                           [&](const auto& kv) { return priority_group_matches(o.group_id, kv.second); });
      }))
    ctx_.cluster.api.emit(k8s::EventType::Warning, "PriorityConfigMapNoGroupMatched", priority_cm,
                          "Priority expander: no priorities info found for any of the expansion options. No options filtered.",
                          kComponent);
}

// --- step 4: balancing similar node groups -----------------------------------------------------

std::vector<GroupSize> Orchestrator::similar_node_groups(ScaleUpPass& pass, std::size_t pick) {
  const ExpansionOption& best = pass.options[pick];
  const NodeGroup* chosen_group = ctx_.cloud_provider.node_group(best.group_id);
  std::vector<GroupSize> targets{{best.group_id, pass.current[best.group_id], chosen_group->max_size()}};
  if (!ctx_.options.balance_similar_node_groups) return targets;
  // ComputeSimilarNodeGroups: similar templates, not backed off, and able to take every pod the
  // chosen group takes. (Upstream also logs "Splitting scale-up between N similar node groups:
  // {a, b}"; eksim has no CA log, the ScaledUpGroup events show the split.)
  const auto ignored = aws_ignored_labels(ctx_.options.balancing_ignore_labels);
  k8s::NodeInfo chosen = k8s::make_node_info(*pass.templates[best.group_id]);
  const std::vector<bool>& took = pass.option_groups[pick];
  for (const NodeGroup* other : ctx_.cloud_provider.node_groups()) {
    const std::string& id = other->id();
    if (id == best.group_id || !pass.templates[id] || !pass.current.count(id)) continue;
    if (!node_infos_similar(chosen, k8s::make_node_info(*pass.templates[id]), ignored)) continue;
    if (cluster_state_.backoff().is_backed_off(id, pass.now)) continue;
    // Every pod the chosen group takes fits the other's template: per equivalence group.
    const std::vector<bool>& fits = pass.fitting_by_group[id];
    bool all = true;
    for (std::size_t e = 0; e < took.size() && all; ++e) all = !took[e] || (e < fits.size() && fits[e]);
    if (all) targets.push_back({id, pass.current[id], other->max_size()});
  }
  return targets;
}

}  // namespace eksim::autoscaling::cas
