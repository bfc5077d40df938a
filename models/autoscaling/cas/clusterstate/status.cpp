// The status ConfigMap's content (clusterstate.go updateReadinessStats, GetStatus and its
// build*Status helpers; utils/status.go WriteStatusConfigMap writes it): node counts per group
// and cluster-wide, each group's health against its acceptable range, scale-up (InProgress,
// Unhealthy, Backoff with the back-off's error, NoActivity) and scale-down candidates. A
// condition keeps its lastTransitionTime while its status stays the same.
#include <map>

#include "models/autoscaling/cluster_autoscaler.hpp"

namespace eksim::autoscaling {

namespace {

namespace api = cas::api;

// clusterstate.go maxErrorMessageSize.
constexpr std::size_t kMaxErrorMessageSize = 500;

// truncateIfExceedMaxLength: the first maxLength-3 characters and "...".
std::string truncate_message(const std::string& s) {
  if (s.size() <= kMaxErrorMessageSize) return s;
  return s.substr(0, kMaxErrorMessageSize - 3) + "...";
}

template <class Condition>
void carry_transition(Condition& now, const Condition* last) {
  now.last_transition_time = last && last->status == now.status ? last->last_transition_time : now.last_probe_time;
}

}  // namespace

ClusterAutoscaler::LoopReadiness ClusterAutoscaler::readiness(const std::vector<LiveNode>& nodes) {
  const engine::SimTime now = c_.sim.now();
  LoopReadiness out;
  out.groups.resize(groups_.size());
  auto index_of = [&](const GroupState* g) { return static_cast<std::size_t>(g - groups_.data()); };
  auto count = [&](Readiness& r, const k8s::NodeRecord& rec, bool resource_unready) {
    api::RegisteredNodeCount& reg = r.counts.registered;
    r.any = true;
    ++reg.total;
    if (deleting_.count(rec.node.meta.name)) ++reg.being_deleted;
    else if (rec.node.ready && !resource_unready) ++reg.ready;
    else if (now < rec.node.meta.creation_timestamp + kMaxNodeStartupTime) ++reg.not_started;
    else {
      ++reg.unready.total;
      reg.unready.resource_unready += resource_unready;
    }
  };
  for (const LiveNode& ln : nodes) {
    const k8s::NodeRecord& rec = c_.api.node(ln.id);
    // The GPU custom-resources processor makes a GPU node without allocatable GPUs unready,
    // reason ResourceUnready.
    const bool resource_unready =
        rec.node.ready && ln.group && gpu_group(*ln.group) && rec.node.allocatable.get(k8s::kNvidiaGpu) == 0;
    if (ln.group) count(out.groups[index_of(ln.group)], rec, resource_unready);
    count(out.total, rec, resource_unready);
  }
  // Unregistered: instances of a group (and the placeholders of capacity not launched yet) that
  // have no Node; long unregistered after max-node-provision-time.
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    const GroupState& g = groups_[i];
    Readiness& r = out.groups[i];
    const aws::AutoScalingGroup* asg = c_.auto_scaling.find(g.id);
    if (!asg) continue;
    r.target = asg->sizes.desired;
    auto unregistered = [&](engine::SimTime since) {
      const bool long_ago = since + o_.max_node_provision_time < now;
      for (Readiness* x : {&r, &out.total}) {
        x->any = true;
        ++(long_ago ? x->counts.long_unregistered : x->counts.unregistered);
      }
    };
    for (const std::string& iid : asg->instances) {
      if (c_.node_of_instance(iid)) continue;
      const aws::Instance* inst = c_.ec2.find(iid);
      if (!inst || !inst->alive()) continue;
      auto seen = unregistered_since_.find(iid);
      unregistered(seen != unregistered_since_.end() && seen->second ? *seen->second : inst->launched_at);
    }
    const std::int64_t placeholders = asg->sizes.desired - static_cast<std::int64_t>(asg->instances.size());
    for (std::int64_t k = 0; k < placeholders; ++k) unregistered(g.scale_up_time.value_or(now));
  }
  return out;
}

void ClusterAutoscaler::write_status(const LoopReadiness& ready, bool cluster_healthy) {
  if (!status_enabled_) return;
  const engine::SimTime now = c_.sim.now();
  std::map<std::string, const api::NodeGroupStatus*> last_of;
  if (status_)
    for (const auto& g : status_->node_groups) last_of[g.name] = &g;

  api::ClusterAutoscalerStatus s;
  s.time = now;
  s.autoscaler_status = "Running";
  // Scale-down candidates (the planner's unneeded nodes) per group.
  std::vector<int> candidates(groups_.size(), 0);
  int total_candidates = 0;
  for (const auto& [name, since] : unneeded_since_) {
    ++total_candidates;
    if (auto id = c_.api.find_node(name))
      if (GroupState* g = group_of_node(*id)) ++candidates[static_cast<std::size_t>(g - groups_.data())];
  }
  bool any_in_progress = false;
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    const GroupState& g = groups_[i];
    const Readiness& r = ready.groups[i];
    auto last_it = last_of.find(g.id);
    const api::NodeGroupStatus* last = last_it == last_of.end() ? nullptr : last_it->second;
    api::NodeGroupStatus ng;
    ng.name = g.id;
    // Readiness.Time is set only for a group something was counted in.
    const api::Time probed = r.any ? api::Time{now} : std::nullopt;

    // updateAcceptableRanges and IsNodeGroupHealthy.
    const int target = static_cast<int>(r.target);
    int min_nodes = target - r.counts.long_unregistered - (g.scale_up_time ? static_cast<int>(g.scale_up_increase) : 0);
    const api::RegisteredNodeCount& reg = r.counts.registered;
    bool healthy = true;
    if (!r.any) {
      healthy = target == 0 || (min_nodes == 0 && target > 0);
    } else {
      const int unjustified = reg.ready < min_nodes ? min_nodes - reg.ready : 0;
      healthy = !(unjustified > o_.ok_total_unready_count &&
                  static_cast<double>(unjustified) > o_.max_total_unready_percentage / 100.0 *
                                                         static_cast<double>(reg.ready + reg.unready.total + reg.not_started));
    }
    ng.health.status = healthy ? "Healthy" : "Unhealthy";
    ng.health.node_counts = r.counts;
    ng.health.cloud_provider_target = target;
    ng.health.min_size = static_cast<int>(g.min);
    ng.health.max_size = static_cast<int>(g.max);
    ng.health.last_probe_time = probed;
    carry_transition(ng.health, last ? &last->health : nullptr);

    // buildScaleUpStatusNodeGroup: IsNodeGroupScalingUp is upcoming nodes (target above the
    // registered, started ones) under an open scale-up request.
    const int provisioned = reg.total - reg.not_started;
    const bool backed_off = backoff_.is_backed_off(g.id, now);
    ng.scale_up.last_probe_time = probed;
    if (g.scale_up_time && target > provisioned) {
      ng.scale_up.status = "InProgress";
      any_in_progress = true;
    } else if (!healthy) {
      ng.scale_up.status = "Unhealthy";
    } else if (backed_off) {
      ng.scale_up.status = "Backoff";
      if (const cas::BackoffEntry* e = backoff_.entry(g.id))
        ng.scale_up.backoff_info = {e->error_code, truncate_message(e->error_message)};
    } else {
      ng.scale_up.status = "NoActivity";
    }
    carry_transition(ng.scale_up, last ? &last->scale_up : nullptr);

    ng.scale_down.candidates = candidates[i];
    ng.scale_down.status = candidates[i] > 0 ? "CandidatesPresent" : "NoCandidates";
    ng.scale_down.last_probe_time = scale_down_probed_;
    carry_transition(ng.scale_down, last ? &last->scale_down : nullptr);
    s.node_groups.push_back(std::move(ng));
  }

  const api::ClusterWideStatus* last = status_ ? &status_->cluster_wide : nullptr;
  api::ClusterWideStatus& cw = s.cluster_wide;
  cw.health.status = cluster_healthy ? "Healthy" : "Unhealthy";
  cw.health.node_counts = ready.total.counts;
  cw.health.last_probe_time = now;
  carry_transition(cw.health, last ? &last->health : nullptr);
  cw.scale_up.status = any_in_progress ? "InProgress" : "NoActivity";
  cw.scale_up.last_probe_time = now;
  carry_transition(cw.scale_up, last ? &last->scale_up : nullptr);
  cw.scale_down.candidates = total_candidates;
  cw.scale_down.status = total_candidates > 0 ? "CandidatesPresent" : "NoCandidates";
  cw.scale_down.last_probe_time = scale_down_probed_;
  carry_transition(cw.scale_down, last ? &last->scale_down : nullptr);

  if (!status_created_) status_created_ = now;
  status_ = std::move(s);
}

}  // namespace eksim::autoscaling
