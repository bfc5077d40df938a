// The status ConfigMap's content (clusterstate.go updateReadinessStats, GetStatus and its
// build*Status helpers; utils/status.go WriteStatusConfigMap writes it): node counts per group
// and cluster-wide, each group's health against its acceptable range, scale-up (InProgress,
// Unhealthy, Backoff with the back-off's error, NoActivity) and scale-down candidates. A
// condition keeps its lastTransitionTime while its status stays the same.
#include <map>

#include "models/autoscaling/cas/clusterstate/clusterstate.hpp"

namespace eksim::autoscaling::cas {

namespace {

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

ClusterStateRegistry::LoopReadiness ClusterStateRegistry::readiness(const std::vector<LiveNode>& nodes) {
  const engine::SimTime now = ctx_.cluster.sim.now();
  const std::vector<NodeGroup*>& groups = ctx_.cloud_provider.node_groups();
  LoopReadiness out;
  out.groups.resize(groups.size());
  std::map<const NodeGroup*, std::size_t> index_of;
  for (std::size_t i = 0; i < groups.size(); ++i) index_of[groups[i]] = i;
  auto count = [&](Readiness& r, const k8s::NodeRecord& rec, bool resource_unready) {
    api::RegisteredNodeCount& reg = r.counts.registered;
    r.any = true;
    ++reg.total;
    if (deletions_.is_deleting(rec.node.meta.name)) ++reg.being_deleted;
    else if (rec.node.ready && !resource_unready) ++reg.ready;
    else if (now < rec.node.meta.creation_timestamp + kMaxNodeStartupTime) ++reg.not_started;
    else {
      ++reg.unready.total;
      reg.unready.resource_unready += resource_unready;
    }
  };
  for (const LiveNode& ln : nodes) {
    const k8s::NodeRecord& rec = ctx_.cluster.api.node(ln.id);
    // The GPU custom-resources processor makes a GPU node without allocatable GPUs unready,
    // reason ResourceUnready.
    const bool resource_unready =
        rec.node.ready && ln.group && ln.group->has_gpus() && rec.node.allocatable.get(k8s::kNvidiaGpu) == 0;
    if (ln.group) count(out.groups[index_of.at(ln.group)], rec, resource_unready);
    count(out.total, rec, resource_unready);
  }
  for (std::size_t i = 0; i < groups.size(); ++i) count_unregistered(*groups[i], out.groups[i], out.total);
  return out;
}

// Unregistered: instances of a group (and the placeholders of capacity not launched yet) that
// have no Node; long unregistered after max-node-provision-time.
void ClusterStateRegistry::count_unregistered(const NodeGroup& g, Readiness& r, Readiness& total) const {
  const engine::SimTime now = ctx_.cluster.sim.now();
  std::optional<std::int64_t> target = g.target_size();
  if (!target) return;
  r.target = *target;
  auto unregistered = [&](engine::SimTime since) {
    const bool long_ago = since + ctx_.options.max_node_provision_time < now;
    for (Readiness* x : {&r, &total}) {
      x->any = true;
      ++(long_ago ? x->counts.long_unregistered : x->counts.unregistered);
    }
  };
  const std::vector<Instance> instances = g.instances();
  for (const Instance& inst : instances) {
    if (ctx_.cluster.node_of_instance(inst.id)) continue;
    if (!inst.running) continue;
    auto seen = unregistered_since_.find(inst.id);
    unregistered(seen != unregistered_since_.end() && seen->second ? *seen->second : inst.launched_at);
  }
  const std::int64_t placeholders = *target - static_cast<std::int64_t>(instances.size());
  auto req = requests_.find(g.id());
  const engine::SimTime requested = req != requests_.end() && req->second.time ? *req->second.time : now;
  for (std::int64_t k = 0; k < placeholders; ++k) unregistered(requested);
}

void ClusterStateRegistry::write_status(const LoopReadiness& ready, bool cluster_healthy, const ScaleDownState& scale_down) {
  if (!status_enabled_) return;
  const engine::SimTime now = ctx_.cluster.sim.now();
  const std::vector<NodeGroup*>& groups = ctx_.cloud_provider.node_groups();
  std::map<std::string, const api::NodeGroupStatus*> last_of;
  if (status_)
    for (const auto& g : status_->node_groups) last_of[g.name] = &g;

  api::ClusterAutoscalerStatus s;
  s.time = now;
  s.autoscaler_status = "Running";
  // Scale-down candidates (the planner's unneeded nodes) per group.
  std::map<std::string, int> candidates;
  int total_candidates = 0;
  scale_down.unneeded.for_each_name([&](const std::string& name) {
    ++total_candidates;
    if (auto id = ctx_.cluster.api.find_node(name))
      if (NodeGroup* g = ctx_.cloud_provider.node_group_for_node(*id)) ++candidates[g->id()];
  });
  bool any_in_progress = false;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    auto last_it = last_of.find(groups[i]->id());
    const api::NodeGroupStatus* last = last_it == last_of.end() ? nullptr : last_it->second;
    auto c = candidates.find(groups[i]->id());
    s.node_groups.push_back(group_status(*groups[i], ready.groups[i], last, c == candidates.end() ? 0 : c->second,
                                         any_in_progress, scale_down.probed));
  }
  cluster_wide_status(s, ready.total, cluster_healthy, any_in_progress, total_candidates, scale_down.probed);
  if (!status_created_) status_created_ = now;
  status_ = std::move(s);
}

api::NodeGroupStatus ClusterStateRegistry::group_status(const NodeGroup& g, const Readiness& r,
                                                        const api::NodeGroupStatus* last, int candidates,
                                                        bool& in_progress, std::optional<engine::SimTime> probed_down) const {
  const engine::SimTime now = ctx_.cluster.sim.now();
  auto req = requests_.find(g.id());
  const ScaleUpRequest request = req == requests_.end() ? ScaleUpRequest{} : req->second;
  api::NodeGroupStatus ng;
  ng.name = g.id();
  // Readiness.Time is set only for a group something was counted in.
  const api::Time probed = r.any ? api::Time{now} : std::nullopt;

  // updateAcceptableRanges and IsNodeGroupHealthy.
  const int target = static_cast<int>(r.target);
  int min_nodes = target - r.counts.long_unregistered - (request.time ? static_cast<int>(request.increase) : 0);
  const api::RegisteredNodeCount& reg = r.counts.registered;
  bool healthy = true;
  if (!r.any) {
    healthy = target == 0 || (min_nodes == 0 && target > 0);
  } else {
    const int unjustified = reg.ready < min_nodes ? min_nodes - reg.ready : 0;
    healthy = !(unjustified > ctx_.options.ok_total_unready_count &&
                static_cast<double>(unjustified) > ctx_.options.max_total_unready_percentage / 100.0 *
                                                       static_cast<double>(reg.ready + reg.unready.total + reg.not_started));
  }
  ng.health.status = healthy ? "Healthy" : "Unhealthy";
  ng.health.node_counts = r.counts;
  ng.health.cloud_provider_target = target;
  ng.health.min_size = static_cast<int>(g.min_size());
  ng.health.max_size = static_cast<int>(g.max_size());
  ng.health.last_probe_time = probed;
  carry_transition(ng.health, last ? &last->health : nullptr);

  // buildScaleUpStatusNodeGroup: IsNodeGroupScalingUp is upcoming nodes (target above the
  // registered, started ones) under an open scale-up request.
  const int provisioned = reg.total - reg.not_started;
  ng.scale_up.last_probe_time = probed;
  if (request.time && target > provisioned) {
    ng.scale_up.status = "InProgress";
    in_progress = true;
  } else if (!healthy) {
    ng.scale_up.status = "Unhealthy";
  } else if (backoff_.is_backed_off(g.id(), now)) {
    ng.scale_up.status = "Backoff";
    if (const BackoffEntry* e = backoff_.entry(g.id()))
      ng.scale_up.backoff_info = {e->error_code, truncate_message(e->error_message)};
  } else {
    ng.scale_up.status = "NoActivity";
  }
  carry_transition(ng.scale_up, last ? &last->scale_up : nullptr);

  ng.scale_down.candidates = candidates;
  ng.scale_down.status = candidates > 0 ? "CandidatesPresent" : "NoCandidates";
  ng.scale_down.last_probe_time = probed_down;
  carry_transition(ng.scale_down, last ? &last->scale_down : nullptr);
  return ng;
}

void ClusterStateRegistry::cluster_wide_status(api::ClusterAutoscalerStatus& s, const Readiness& total,
                                               bool cluster_healthy, bool any_in_progress, int candidates,
                                               std::optional<engine::SimTime> probed_down) const {
  const engine::SimTime now = ctx_.cluster.sim.now();
  const api::ClusterWideStatus* last = status_ ? &status_->cluster_wide : nullptr;
  api::ClusterWideStatus& cw = s.cluster_wide;
  cw.health.status = cluster_healthy ? "Healthy" : "Unhealthy";
  cw.health.node_counts = total.counts;
  cw.health.last_probe_time = now;
  carry_transition(cw.health, last ? &last->health : nullptr);
  cw.scale_up.status = any_in_progress ? "InProgress" : "NoActivity";
  cw.scale_up.last_probe_time = now;
  carry_transition(cw.scale_up, last ? &last->scale_up : nullptr);
  cw.scale_down.candidates = candidates;
  cw.scale_down.status = candidates > 0 ? "CandidatesPresent" : "NoCandidates";
  cw.scale_down.last_probe_time = probed_down;
  carry_transition(cw.scale_down, last ? &last->scale_down : nullptr);
}

}  // namespace eksim::autoscaling::cas
