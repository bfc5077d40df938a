// Cluster state as CA tracks it (cluster-autoscaler/clusterstate/clusterstate.go): cluster
// health, registered and upcoming nodes per group, scale-up requests that failed (ASG activity
// -> ScaleUpFailed, back-off) or timed out (max-node-provision-time -> ScaleUpTimedOut).
#include <algorithm>

#include "models/autoscaling/cluster_autoscaler.hpp"

namespace eksim::autoscaling {

namespace {

// cloudprovider/aws/aws_cloud_provider.go: the error CA attaches to placeholder instances of a
// group whose scaling activity failed.
constexpr const char* kPlaceholderErrorCode = "placeholder-cannot-be-fulfilled";
constexpr const char* kPlaceholderErrorMessage = "AWS cannot provision any more instances for this node group";

}  // namespace

bool cluster_healthy(std::int64_t unready, std::int64_t nodes, const CasOptions& o) {
  return !(unready > o.ok_total_unready_count &&
           static_cast<double>(unready) > o.max_total_unready_percentage / 100.0 * static_cast<double>(nodes));
}

std::vector<ClusterAutoscaler::LiveNode> ClusterAutoscaler::live_nodes() {
  std::vector<LiveNode> out;
  std::map<std::string, std::string> still_deleting;
  out.reserve(node_infos_.live().size());
  // The node groups the nodes belong to, resolved once per loop (a handful of ASGs).
  struct Owner {
    GroupState* group = nullptr;
    bool gpu = false;  // the ASG's instance type has GPUs
  };
  std::vector<std::optional<Owner>> owners;  // by owner index
  for (k8s::NodeId id : node_infos_.live()) {
    const k8s::NodeRecord& rec = c_.api.node(id);
    LiveNode n;
    n.id = id;
    Owner owner;
    if (std::int32_t k = owner_index(id); k >= 0) {
      auto at = static_cast<std::size_t>(k);
      if (at >= owners.size()) owners.resize(owner_names_.size());
      if (!owners[at]) {
        owners[at].emplace();
        if (aws::AutoScalingGroup* asg = c_.auto_scaling.find(owner_names_[at])) {
          owners[at]->group = group_by_id(asg->name);
          owners[at]->gpu = !asg->launch_template.instance_types.empty() &&
                            asg->launch_template.instance_types.front()->gpu.count > 0;
        }
      }
      owner = *owners[at];
    }
    n.group = owner.group;
    auto del = deleting_.find(rec.node.meta.name);
    bool deleting = del != deleting_.end();
    if (deleting) still_deleting.emplace(del->first, del->second);
    // FACTS.md / GPU custom-resources processor: a GPU node without allocatable GPUs yet is
    // treated as not ready, i.e. still upcoming.
    bool gpu_pending = owner.gpu && rec.node.allocatable.get(k8s::kNvidiaGpu) == 0;
    n.usable = rec.node.ready && !gpu_pending && !deleting;
    out.push_back(n);
  }
  deleting_ = std::move(still_deleting);
  // A node that went away in the middle of its deletion is no longer in progress.
  for (auto* set : {&in_progress_.empty, &in_progress_.drain})
    std::erase_if(*set, [&](const std::string& n) { return !deleting_.count(n); });
  return out;
}

std::int64_t ClusterAutoscaler::registered_usable(const GroupState& g, const std::vector<LiveNode>& nodes) const {
  std::int64_t n = 0;
  for (const auto& ln : nodes)
    if (ln.group && ln.group->id == g.id && ln.usable) ++n;
  return n;
}

std::int64_t ClusterAutoscaler::deleting_in(const GroupState& g) const {
  std::int64_t n = 0;
  for (const auto& [node, gid] : deleting_) n += gid == g.id;
  return n;
}

void ClusterAutoscaler::check_failed_activities(GroupState& g) {
  auto& acts = c_.log.activities();
  bool failed = false;
  for (std::size_t i = g.activities_seen; i < acts.size(); ++i)
    if (acts[i].resource == g.id && acts[i].status == "Failed" && g.scale_up_time && acts[i].start >= *g.scale_up_time)
      failed = true;
  g.activities_seen = acts.size();
  if (!failed) return;
  aws::AutoScalingGroup* asg = c_.auto_scaling.find(g.id);
  if (!asg) return;
  std::int64_t placeholders = asg->sizes.desired - static_cast<std::int64_t>(asg->instances.size());
  if (placeholders <= 0) return;
  emit_status(engine::EventType::Warning, "ScaleUpFailed",
              "Failed adding " + std::to_string(placeholders) + " nodes to group " + g.id +
                  " due to OutOfResource." + kPlaceholderErrorCode + "; source errors: " + kPlaceholderErrorMessage);
  backoff_.backoff(g.id, c_.sim.now(), "OutOfResource", kPlaceholderErrorCode, kPlaceholderErrorMessage);
  // DeleteNodes on the placeholders gives the unfulfillable capacity back to the ASG.
  c_.auto_scaling.set_desired_capacity(g.id, static_cast<std::int64_t>(asg->instances.size()));
  g.scale_up_target -= placeholders;
  last_scale_down_fail_ = std::nullopt;
}

void ClusterAutoscaler::check_provision_timeouts(GroupState& g) {
  if (!g.scale_up_time || c_.sim.now() - *g.scale_up_time <= o_.max_node_provision_time) return;
  aws::AutoScalingGroup* asg = c_.auto_scaling.find(g.id);
  if (!asg) return;
  std::vector<std::string> unregistered;
  for (const auto& iid : asg->instances)
    if (!c_.node_of_instance(iid)) unregistered.push_back(iid);
  if (unregistered.empty()) {
    g.scale_up_time.reset();
    return;
  }
  // updateScaleRequests: both texts give the time since the scale-up, not the limit.
  const std::string waited = engine::format_duration(c_.sim.now() - *g.scale_up_time);
  emit_status(engine::EventType::Warning, "ScaleUpTimedOut",
              "Nodes added to group " + g.id + " failed to register within " + waited);
  backoff_.backoff(g.id, c_.sim.now(), "OtherErrorClass", "timeout",
                   "Scale-up timed out for node group " + g.id + " after " + waited);
  g.scale_up_time.reset();
  // removeOldUnregisteredNodes: instances that never became nodes are deleted, shrinking the group.
  for (const auto& iid : unregistered) c_.auto_scaling.terminate_instance(iid, true);
}

void ClusterAutoscaler::remove_old_unregistered() {
  const engine::SimTime now = c_.sim.now();
  for (auto it = unregistered_since_.begin(); it != unregistered_since_.end();) {
    const aws::Instance* inst = c_.ec2.find(it->first);
    const bool gone = !inst || !inst->alive();
    if (gone || c_.node_of_instance(it->first)) {
      it = unregistered_since_.erase(it);
      continue;
    }
    if (!it->second) it->second = now;
    aws::AutoScalingGroup* asg = c_.auto_scaling.group_of(it->first);
    const GroupState* g = asg ? group_by_id(asg->name) : nullptr;
    // Not yet MaxNodeProvisionTime old; no node group CA manages ("No node group for node");
    // or "node group min size reached, skipping unregistered node removal": checked again
    // next loop.
    if (*it->second + o_.max_node_provision_time >= now || !g || asg->sizes.desired <= g->min) {
      ++it;
      continue;
    }
    std::string iid = it->first;
    it = unregistered_since_.erase(it);
    c_.auto_scaling.terminate_instance(iid, true);  // DeleteNodes: TerminateInstanceInAutoScalingGroup
  }
}

bool ClusterAutoscaler::healthy(const std::vector<LiveNode>& live) const {
  const engine::SimTime now = c_.sim.now();
  std::int64_t nodes = 0, unready = 0;
  for (const LiveNode& ln : live) {
    const k8s::NodeRecord& rec = c_.api.node(ln.id);
    ++nodes;
    if (rec.node.ready || deleting_.count(rec.node.meta.name)) continue;  // Ready, or Deleted by CA
    if (rec.registered_at && now - *rec.registered_at < kMaxNodeStartupTime) continue;  // NotStarted
    ++unready;
  }
  return cluster_healthy(unready, nodes, o_);
}

}  // namespace eksim::autoscaling
