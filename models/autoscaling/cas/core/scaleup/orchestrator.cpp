// Scale-up (cluster-autoscaler/core/scaleup/orchestrator): the unschedulable pods that do not
// fit on existing or upcoming nodes (filterOutSchedulable), each node group's template tested
// once per pod equivalence group, the binpacking estimator up to the group's headroom and
// --max-nodes-per-scaleup (resource/), the expander's choice, balancing across similar groups
// (processors/nodegroupset) and the executor (executor.go executeScaleUp).
#include <algorithm>
#include <deque>
#include <set>
#include <unordered_map>

#include "models/autoscaling/cas/core/scaleup/equivalence/groups.hpp"
#include "models/autoscaling/cas/core/scaleup/resource/limits.hpp"
#include "models/autoscaling/cluster_autoscaler.hpp"
#include "models/k8s/node_lifecycle.hpp"

namespace eksim::autoscaling {

namespace {

// The parts of a template node a pod's fit depends on (its name and hostname change per build).
void append_template(std::string& out, const std::optional<k8s::Node>& node) {
  if (!node) {
    out += "none;";
    return;
  }
  for (const auto& [k, v] : node->meta.labels)
    if (k != k8s::kLabelHostname) out += k + "=" + v + ",";
  for (const auto& t : node->taints) out += t.key + "=" + t.value + ":" + t.effect + ",";
  for (const auto& [r, v] : node->allocatable.items()) out += r + "=" + std::to_string(v) + ",";
  out += node->unschedulable ? "U;" : "S;";
}

// Per-pod events go out in turn until the broadcaster's queue refuses one; the rest are counted
// as dropped at once, since the queue cannot drain before simulated time moves.
template <class Emit>
void emit_until_refused(std::size_t pods, engine::EventLog& log, Emit emit) {
  for (std::size_t k = 0; k < pods; ++k)
    if (!emit(k)) {
      log.refused(pods - k - 1);
      return;
    }
}

}  // namespace

std::string ClusterAutoscaler::scale_up_inputs(const std::vector<LiveNode>& nodes,
                                               std::map<std::string, std::optional<k8s::Node>>& templates) {
  const engine::SimTime now = c_.sim.now();
  std::string out;
  for (const auto& ln : nodes) out += std::to_string(ln.id.v) + (ln.usable ? "u," : "n,");
  out += "|";
  for (const auto& g : groups_) {
    aws::AutoScalingGroup* asg = c_.auto_scaling.find(g.id);
    out += g.id + ":" + std::to_string(asg ? asg->sizes.desired : -1) + "/" + std::to_string(g.max) + "/" +
           std::to_string(registered_usable(g, nodes)) + "/" + std::to_string(deleting_in(g)) + "/" +
           (backoff_.is_backed_off(g.id, now) ? "b" : "-") + ":";
    auto& t = templates[g.id] = template_node(g, nodes);
    append_template(out, t);
  }
  return out;
}

void ClusterAutoscaler::emit_not_triggered(const std::vector<k8s::PodId>& pods, const std::vector<std::size_t>& group_of,
                                           const std::vector<std::string>& messages) {
  emit_until_refused(pods.size(), c_.log, [&](std::size_t k) {
    return emit_pod(pods[k], engine::EventType::Normal, "NotTriggerScaleUp", messages[group_of[k]]);
  });
}

bool ClusterAutoscaler::scale_up(const std::vector<LiveNode>& nodes) {
  const engine::SimTime now = c_.sim.now();
  // A pass that scaled nothing up and read what this one reads found what this one would find.
  std::map<std::string, std::optional<k8s::Node>> templates;
  std::string inputs = scale_up_inputs(nodes, templates);
  ScaleUpMemo& memo = scale_up_memo_;
  // With a versioned source the list is taken only when the memo does not answer.
  const bool versioned = static_cast<bool>(unschedulable_version_);
  const std::uint64_t listed = versioned ? unschedulable_version_() : 0;
  auto list = [&] { return unschedulable_source_ ? unschedulable_source_() : default_unschedulable(); };
  std::vector<k8s::PodId> unschedulable;
  if (!versioned) unschedulable = list();
  if (memo.valid && memo.version == node_infos_.version() && memo.inputs == inputs &&
      (versioned ? memo.unschedulable_version == listed : memo.unschedulable == unschedulable)) {
    emit_not_triggered(memo.remaining, memo.group_of, memo.messages);
    return false;
  }
  if (versioned) unschedulable = list();
  memo = ScaleUpMemo{};
  auto remember = [&](std::vector<k8s::PodId> remaining, std::vector<std::size_t> group_of, std::vector<std::string> messages) {
    memo.valid = true;
    memo.version = node_infos_.version();
    memo.unschedulable_version = listed;
    if (!versioned) memo.unschedulable = std::move(unschedulable);
    memo.inputs = std::move(inputs);
    memo.remaining = std::move(remaining);
    memo.group_of = std::move(group_of);
    memo.messages = std::move(messages);
  };
  std::vector<k8s::PodId> pending;
  bool delayed = false;  // a pod too new to count: the next pass differs
  for (k8s::PodId id : unschedulable) {
    const k8s::PodRecord& r = c_.api.pod(id);
    if (r.deleted || r.node.valid() || k8s::is_daemonset_pod(r.pod)) continue;  // DaemonSet pods are filtered out
    if (r.pod.spec.priority < o_.expendable_pods_priority_cutoff) continue;       // expendable pods never scale up
    if (!r.pod.status.nominated_node_name.empty()) continue;                     // preemption will place it
    if (now - r.pod.meta.creation_timestamp < o_.new_pod_scale_up_delay) {
      delayed = true;
      continue;
    }
    pending.push_back(id);
  }
  if (pending.empty()) {
    if (!delayed) remember({}, {}, {});
    return false;
  }

  k8s::SchedulerOptions sched;
  sched.version = k8s::KubernetesVersion{c_.spec().kubernetes_minor, -1};

  // The snapshot: usable nodes with their pods (shared with the informers' cache), plus the
  // upcoming nodes of every group as template copies (so pods that will land on nodes already
  // being created trigger nothing).
  cas::SnapshotFork snap;
  snap.reserve(nodes.size());
  for (const auto& ln : nodes)
    if (ln.usable) snap.add_shared(&node_infos_.get(ln.id));
  std::deque<k8s::NodeInfo> upcoming_protos;  // one per group; each upcoming node shares it until written
  std::int64_t total_nodes = 0;
  for (auto& g : groups_) {
    aws::AutoScalingGroup* asg = c_.auto_scaling.find(g.id);
    std::int64_t target = asg ? asg->sizes.desired : 0;
    std::int64_t upcoming = std::max<std::int64_t>(0, target - registered_usable(g, nodes) - deleting_in(g));
    total_nodes += target;
    if (upcoming <= 0 || !templates[g.id]) continue;
    k8s::Node copy = *templates[g.id];
    copy.meta.name += "-upcoming";
    upcoming_protos.push_back(k8s::make_node_info(copy));
    for (std::int64_t i = 0; i < upcoming; ++i) snap.add_shared(&upcoming_protos.back());
  }
  for (const auto& ln : nodes)
    if (!ln.group) ++total_nodes;

  // filterOutSchedulable: pods that fit on an existing or upcoming node are left to the scheduler.
  std::vector<k8s::PodId> remaining;
  cas::FirstFitMemo first_fit(snap.view());
  for (k8s::PodId id : pending) {
    const k8s::PodRecord& rec = c_.api.pod(id);
    const k8s::Pod& pod = rec.pod;
    std::size_t j = first_fit.start(pod, rec.template_id);
    // A pod like one that fit nowhere skips the search (and its PreFilter) altogether, as
    // upstream's SimilarPodsScheduling does.
    if (j < snap.size()) {
      cas::PodFitter fitter(pod, snap.view(), sched, snap.any_required_anti_affinity());
      while (j < snap.size() && !fitter.fits(snap.at(j))) ++j;
    }
    first_fit.record(pod, rec.template_id, j);
    if (j < snap.size()) snap.add_pod(j, pod);
    else remaining.push_back(id);
  }
  if (remaining.empty()) {
    if (!delayed) remember({}, {}, {});
    return false;
  }

  // Per group: skipped (back-off, max size) or an expansion option with the pods its template fits.
  std::vector<cas::ExpansionOption> options;
  std::map<std::string, std::int64_t> current;
  // schedulablePodGroups: per node group, the equivalence groups its template fits; per option,
  // the equivalence groups of the pods it takes.
  std::map<std::string, std::vector<bool>> fitting_by_group;
  std::vector<std::vector<bool>> option_groups;
  bool limited_by_total = o_.max_nodes_total > 0 && total_nodes >= o_.max_nodes_total;
  // Equivalence groups: a template is tested once per group of pods that schedule alike.
  std::vector<std::size_t> group_of;
  const auto equivalence = cas::build_pod_equivalence_groups(c_.api, remaining, &group_of);
  // Every pod of an equivalence group gets the same answers: reason -> node groups, per group.
  std::vector<std::map<std::string, int>> reasons(equivalence.size());
  const std::vector<const k8s::NodeInfo*>& all = snap.view();
  for (auto& g : groups_) {
    aws::AutoScalingGroup* asg = c_.auto_scaling.find(g.id);
    if (!asg || !templates[g.id]) continue;
    std::int64_t target = asg->sizes.desired;
    current[g.id] = target;
    const char* skipped = nullptr;
    if (backoff_.is_backed_off(g.id, now)) skipped = "in backoff after failed scale-up";
    else if (target >= g.max) skipped = "max node group size reached";
    if (skipped) {
      for (auto& r : reasons) r[skipped]++;
      continue;
    }
    const k8s::Node& tmpl = *templates[g.id];
    k8s::NodeInfo probe = k8s::make_node_info(tmpl);
    std::vector<k8s::FilterResult> result_of;  // by equivalence group
    result_of.reserve(equivalence.size());
    for (const auto& eg : equivalence) {
      const k8s::Pod& rep = c_.api.pod(eg.pods.front()).pod;
      result_of.push_back(cas::PodFitter(rep, all, sched, snap.any_required_anti_affinity()).check(probe));
    }
    std::vector<bool>& fits = fitting_by_group[g.id];
    for (const auto& res : result_of) fits.push_back(res.ok());
    std::vector<std::size_t> fitting;  // indexes into remaining
    for (std::size_t k = 0; k < remaining.size(); ++k)
      if (fits[group_of[k]]) fitting.push_back(k);
    for (std::size_t e = 0; e < equivalence.size(); ++e)
      for (const auto& reason : result_of[e].reasons) reasons[e][reason]++;
    if (fitting.empty()) continue;
    // Binpacking estimator: first fit onto new template nodes, up to the group's headroom.
    std::int64_t headroom = cas::scale_up_headroom(g.max, target, total_nodes, o_.max_nodes_total, o_.max_nodes_per_scale_up);
    std::deque<k8s::NodeInfo> fresh;
    cas::ExpansionOption opt;
    opt.group_id = g.id;
    opt.template_node = tmpl;
    const aws::InstanceType* type = asg->launch_template.instance_types.front();
    opt.node_price_per_hour = c_.prices().hourly(*type, asg->launch_template.spot);
    cas::FirstFitMemo first_fit(all);
    std::vector<bool> takes(equivalence.size(), false);
    for (std::size_t k : fitting) {
      const k8s::PodRecord& rec = c_.api.pod(remaining[k]);
      const k8s::Pod* pod = &rec.pod;
      bool placed = false;
      std::size_t j = first_fit.start(*pod, rec.template_id);
      if (j < fresh.size()) {
        cas::PodFitter fitter(*pod, all, sched, snap.any_required_anti_affinity());
        while (j < fresh.size() && !fitter.fits(fresh[j])) ++j;
      }
      if (j < fresh.size()) {
        k8s::add_pod(fresh[j], *pod);
        placed = true;
      }
      first_fit.record(*pod, rec.template_id, j);
      if (!placed && static_cast<std::int64_t>(fresh.size()) < headroom) {
        k8s::Node copy = tmpl;
        copy.meta.name += "-new-" + std::to_string(fresh.size());
        fresh.push_back(k8s::make_node_info(copy));
        k8s::add_pod(fresh.back(), *pod);
        placed = true;
      }
      if (placed) {
        opt.pods.push_back(pod);
        opt.pod_ids.push_back(remaining[k]);
        takes[group_of[k]] = true;
      }
    }
    opt.node_count = static_cast<std::int64_t>(fresh.size());
    if (opt.node_count > 0) {
      options.push_back(std::move(opt));
      option_groups.push_back(std::move(takes));
    }
  }

  if (options.empty() || limited_by_total) {
    std::vector<std::string> message(equivalence.size());
    for (std::size_t e = 0; e < equivalence.size(); ++e)
      message[e] = limited_by_total ? std::string("pod didn't trigger scale-up: max total nodes in cluster reached")
                                    : not_trigger_scale_up_message(reasons[e]);
    emit_not_triggered(remaining, group_of, message);
    if (!delayed) remember(std::move(remaining), std::move(group_of), std::move(message));
    return false;
  }
  const bool uses_priority = ("," + o_.expander + ",").find(",priority,") != std::string::npos;
  const engine::ObjectRef priority_cm{"ConfigMap", "kube-system", cas::kPriorityConfigMapName};
  std::vector<std::string> unmatched;
  bool priority_valid = !priority_cm_applied_ || priority_cm_.has_value();
  if (uses_priority && !priority_valid)
    // expander/priority/priority.go: a ConfigMap that does not parse is reported and ignored.
    c_.api.emit(engine::EventType::Warning, "PriorityConfigMapInvalid",
                priority_cm, "Wrong configuration for priority expander: " + priority_cm_error_ + ". Ignoring update.", name());
  const cas::PriorityConfig& priorities = effective_priorities();
  bool have_rules = priority_valid && !priorities.empty();
  int pick = cas::choose_option(options, o_.expander, priorities, c_.rng.get("cluster-autoscaler/expander"),
                                have_rules ? &unmatched : nullptr);
  for (const auto& id : unmatched)
    c_.api.emit(engine::EventType::Warning, "PriorityConfigMapNotMatchedGroup", priority_cm,
                "Priority expander: node group " + id + " not found in priority expander configuration. The group won't be used.",
                name());
  if (have_rules && !unmatched.empty() &&
      std::none_of(options.begin(), options.end(), [&](const cas::ExpansionOption& o) {
        return std::any_of(priorities.begin(), priorities.end(),
                           [&](const auto& kv) { return cas::priority_group_matches(o.group_id, kv.second); });
      }))
    c_.api.emit(engine::EventType::Warning, "PriorityConfigMapNoGroupMatched", priority_cm,
                "Priority expander: no priorities info found for any of the expansion options. No options filtered.", name());
  const cas::ExpansionOption& best = options[static_cast<std::size_t>(pick)];
  auto state_of = [&](const std::string& id) { return group_by_id(id); };
  GroupState* g = state_of(best.group_id);
  std::vector<cas::GroupSize> targets{{best.group_id, current[best.group_id], g->max}};
  if (o_.balance_similar_node_groups) {
    // ComputeSimilarNodeGroups: similar templates, not backed off, and able to take every pod
    // the chosen group takes. (Upstream also logs "Splitting scale-up between N similar node
    // groups: {a, b}"; eksim has no CA log, the ScaledUpGroup events show the split.)
    const auto ignored = cas::aws_ignored_labels(o_.balancing_ignore_labels);
    k8s::NodeInfo chosen = k8s::make_node_info(*templates[best.group_id]);
    for (const auto& other : groups_) {
      if (other.id == best.group_id || !templates[other.id] || !current.count(other.id)) continue;
      if (!cas::node_infos_similar(chosen, k8s::make_node_info(*templates[other.id]), ignored)) continue;
      if (backoff_.is_backed_off(other.id, now)) continue;
      // Every pod the chosen group takes fits the other's template: per equivalence group.
      const std::vector<bool>& fits = fitting_by_group[other.id];
      const std::vector<bool>& took = option_groups[static_cast<std::size_t>(pick)];
      bool all = true;
      for (std::size_t e = 0; e < took.size() && all; ++e) all = !took[e] || (e < fits.size() && fits[e]);
      if (!all) continue;
      targets.push_back({other.id, current[other.id], other.max});
    }
  }
  std::vector<cas::ScaleUpInfo> plan = cas::balance_scale_up(targets, best.node_count);
  std::vector<std::string> infos_text;
  bool any = false;
  for (const auto& info : plan) {
    GroupState* gs = state_of(info.group);
    // core/scaleup/orchestrator/executor.go executeScaleUp.
    emit_status(engine::EventType::Normal, "ScaledUpGroup",
                "Scale-up: setting group " + info.group + " size to " + std::to_string(info.new_size) + " instead of " +
                    std::to_string(info.current) + " (max: " + std::to_string(info.max) + ")");
    if (auto err = c_.auto_scaling.set_desired_capacity(info.group, info.new_size)) {
      emit_status(engine::EventType::Warning, "FailedToScaleUpGroup",
                  "Scale-up failed for group " + info.group + ": " + err->code + ": " + err->message);
      break;
    }
    // clusterstate registerOrUpdateScaleUp: a request still open grows by the new delta.
    gs->scale_up_increase = (gs->scale_up_time ? gs->scale_up_increase : 0) + (info.new_size - info.current);
    gs->scale_up_time = now;
    gs->scale_up_target = info.new_size;
    gs->activities_seen = c_.log.activities().size();
    infos_text.push_back(scale_up_info(info.group, info.current, info.new_size, info.max));
    any = true;
  }
  if (!any) return false;
  last_scale_up_ = now;
  std::string msg = triggered_scale_up_message(infos_text);
  emit_until_refused(best.pod_ids.size(), c_.log, [&](std::size_t k) {
    return emit_pod(best.pod_ids[k], engine::EventType::Normal, "TriggeredScaleUp", msg);
  });
  return true;
}

}  // namespace eksim::autoscaling
