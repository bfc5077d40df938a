#include "models/autoscaling/cas/clusterstate/clusterstate.hpp"

#include <algorithm>
#include <set>

namespace eksim::autoscaling::cas {

bool cluster_healthy(std::int64_t unready, std::int64_t nodes, const CasOptions& o) {
  return !(unready > o.ok_total_unready_count &&
           static_cast<double>(unready) > o.max_total_unready_percentage / 100.0 * static_cast<double>(nodes));
}

ClusterStateRegistry::ClusterStateRegistry(AutoscalingContext& ctx, NodeDeletionTracker& deletions)
    : ctx_(ctx), deletions_(deletions), backoff_(ctx.options.backoff) {
  // A Node deleted while its instance runs on (kubectl delete node) leaves an instance the
  // cloud provider lists and the API does not: an unregistered node.
  ctx_.cluster.api.on_node.push_back([this](k8s::NodeId id, k8s::NodeChange change) {
    if (change != k8s::NodeChange::Deleted) return;
    const std::string& iid = ctx_.cluster.api.node(id).instance_id;
    if (!iid.empty() && ctx_.cloud_provider.instance_running(iid)) unregistered_since_.emplace(iid, std::nullopt);
  });
}

void ClusterStateRegistry::update_node_groups() {
  std::set<std::string> present;
  for (const NodeGroup* g : ctx_.cloud_provider.node_groups()) present.insert(g->id());
  std::erase_if(requests_, [&](const auto& kv) { return !present.count(kv.first); });
}

std::vector<LiveNode> ClusterStateRegistry::live_nodes() {
  std::vector<LiveNode> out;
  std::map<std::string, std::string> still_deleting;
  out.reserve(ctx_.node_infos.live().size());
  for (k8s::NodeId id : ctx_.node_infos.live()) {
    const k8s::NodeRecord& rec = ctx_.cluster.api.node(id);
    LiveNode n;
    n.id = id;
    n.group = ctx_.cloud_provider.node_group_for_node(id);
    auto del = deletions_.deleting.find(rec.node.meta.name);
    bool deleting = del != deletions_.deleting.end();
    if (deleting) still_deleting.emplace(del->first, del->second);
    // FACTS.md / GPU custom-resources processor: a GPU node without allocatable GPUs yet is
    // treated as not ready, i.e. still upcoming.
    bool gpu_pending = ctx_.cloud_provider.gpu_node(id) && rec.node.allocatable.get(k8s::kNvidiaGpu) == 0;
    n.usable = rec.node.ready && !gpu_pending && !deleting;
    out.push_back(n);
  }
  deletions_.keep_only(std::move(still_deleting));
  return out;
}

std::int64_t ClusterStateRegistry::registered_usable(const NodeGroup& g, const std::vector<LiveNode>& nodes) const {
  std::int64_t n = 0;
  for (const auto& ln : nodes)
    if (ln.group && ln.group->id() == g.id() && ln.usable) ++n;
  return n;
}

bool ClusterStateRegistry::handle_failed_scale_ups() {
  bool any = false;
  for (NodeGroup* g : ctx_.cloud_provider.node_groups()) {
    ScaleUpRequest& r = requests_[g->id()];
    std::optional<FailedScaleUp> failed = g->failed_scale_up(r.time);
    if (!failed) continue;
    const InstanceErrorInfo& e = failed->error;
    ctx_.emit_status(k8s::EventType::Warning, "ScaleUpFailed",
                     "Failed adding " + std::to_string(failed->placeholders) + " nodes to group " + g->id() + " due to " +
                         e.error_class + "." + e.code + "; source errors: " + e.message);
    backoff_.backoff(g->id(), ctx_.cluster.sim.now(), e.error_class, e.code, e.message);
    g->delete_placeholders();
    r.target -= failed->placeholders;
    any = true;
  }
  return any;
}

void ClusterStateRegistry::handle_provision_timeouts() {
  for (NodeGroup* g : ctx_.cloud_provider.node_groups()) handle_provision_timeout(*g);
}

void ClusterStateRegistry::handle_provision_timeout(NodeGroup& g) {
  const engine::SimTime now = ctx_.cluster.sim.now();
  ScaleUpRequest& r = requests_[g.id()];
  if (!r.time || now - *r.time <= ctx_.options.max_node_provision_time) return;
  if (!g.target_size()) return;
  std::vector<std::string> unregistered;
  for (const Instance& i : g.instances())
    if (!ctx_.cluster.node_of_instance(i.id)) unregistered.push_back(i.id);
  if (unregistered.empty()) {
    r.time.reset();
    return;
  }
  // updateScaleRequests: both texts give the time since the scale-up, not the limit.
  const std::string waited = engine::format_duration(now - *r.time);
  ctx_.emit_status(k8s::EventType::Warning, "ScaleUpTimedOut",
                   "Nodes added to group " + g.id() + " failed to register within " + waited);
  backoff_.backoff(g.id(), now, "OtherErrorClass", "timeout", "Scale-up timed out for node group " + g.id() + " after " + waited);
  r.time.reset();
  // removeOldUnregisteredNodes: instances that never became nodes are deleted, shrinking the group.
  for (const auto& iid : unregistered) g.delete_instance(iid);
}

void ClusterStateRegistry::remove_old_unregistered() {
  const engine::SimTime now = ctx_.cluster.sim.now();
  for (auto it = unregistered_since_.begin(); it != unregistered_since_.end();) {
    if (!ctx_.cloud_provider.instance_running(it->first) || ctx_.cluster.node_of_instance(it->first)) {
      it = unregistered_since_.erase(it);
      continue;
    }
    if (!it->second) it->second = now;
    NodeGroup* g = ctx_.cloud_provider.node_group_for_instance(it->first);
    // Not yet MaxNodeProvisionTime old; no node group CA manages ("No node group for node");
    // or "node group min size reached, skipping unregistered node removal": checked again
    // next loop.
    if (*it->second + ctx_.options.max_node_provision_time >= now || !g || g->target_size().value_or(0) <= g->min_size()) {
      ++it;
      continue;
    }
    std::string iid = it->first;
    it = unregistered_since_.erase(it);
    g->delete_instance(iid);  // DeleteNodes: TerminateInstanceInAutoScalingGroup
  }
}

bool ClusterStateRegistry::healthy(const std::vector<LiveNode>& live) const {
  const engine::SimTime now = ctx_.cluster.sim.now();
  std::int64_t nodes = 0, unready = 0;
  for (const LiveNode& ln : live) {
    const k8s::NodeRecord& rec = ctx_.cluster.api.node(ln.id);
    ++nodes;
    if (rec.node.ready || deletions_.is_deleting(rec.node.meta.name)) continue;  // Ready, or Deleted by CA
    if (rec.registered_at && now - *rec.registered_at < kMaxNodeStartupTime) continue;  // NotStarted
    ++unready;
  }
  return cluster_healthy(unready, nodes, ctx_.options);
}

void ClusterStateRegistry::close_fulfilled_requests(const std::vector<LiveNode>& nodes) {
  for (NodeGroup* g : ctx_.cloud_provider.node_groups()) {
    ScaleUpRequest& r = requests_[g->id()];
    if (!r.time) continue;
    if (registered_usable(*g, nodes) >= r.target) {
      r.time.reset();
      backoff_.remove(g->id());
    }
  }
}

void ClusterStateRegistry::register_scale_up(const NodeGroup& group, std::int64_t current, std::int64_t new_size) {
  ScaleUpRequest& r = requests_[group.id()];
  r.increase = (r.time ? r.increase : 0) + (new_size - current);
  r.time = ctx_.cluster.sim.now();
  r.target = new_size;
}

}  // namespace eksim::autoscaling::cas
