// The Karpenter controllers wired together (kubernetes-sigs/karpenter pkg/controllers/
// controllers.go): one shared cluster state, the AWS cloud provider, and each controller
// subscribed to the notifications it watches.
#include "models/autoscaling/karpenter/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"
#include "models/autoscaling/karpenter/nodeclass/discovery.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

namespace {

NodePool auto_mode_pool(const std::string& name, bool system) {
  // EKS Auto Mode built-in NodePools (docs.aws.amazon.com/eks/latest/userguide/set-builtin-node-pools.html):
  // on-demand C/M/R of generation > 4, expireAfter 336h, 10% budget.
  NodePool p;
  p.name = name;
  p.built_in = true;
  p.node_class_group = "eks.amazonaws.com";
  p.node_class_kind = "NodeClass";
  p.node_class_name = "default";
  p.requirements = {{kLabelCapacityType, "In", {"on-demand"}},
                    {"eks.amazonaws.com/instance-category", "In", {"c", "m", "r"}},
                    {"eks.amazonaws.com/instance-generation", "Gt", {"4"}},
                    {k8s::kLabelArch, "In", system ? std::vector<std::string>{"amd64", "arm64"} : std::vector<std::string>{"amd64"}},
                    {k8s::kLabelOs, "In", {"linux"}}};
  if (system) p.taints.push_back(k8s::Taint{"CriticalAddonsOnly", "", k8s::kNoSchedule});
  p.expire_after = Duration::hours(336);
  p.consolidate_after = Duration::seconds(30);
  return p;
}

}  // namespace

Controller::Controller(Cluster& cluster, Settings settings)
    : settings_(std::move(settings)),
      state_(cluster),
      cloud_(cluster, settings_),
      recorder_(cluster, settings_.source()),
      log_(cluster, settings_, state_),
      batcher_(cluster, settings_),
      ctx_{cluster, settings_, state_, cloud_, recorder_, log_, batcher_},
      termination_(ctx_),
      lifecycle_(ctx_, termination_),
      garbage_collection_(ctx_),
      provisioner_(ctx_, lifecycle_),
      disruption_(ctx_, provisioner_, lifecycle_, termination_),
      interruption_(ctx_, termination_),
      node_class_(ctx_) {
  batcher_.on_batch([this] { provisioner_.provision(); });
  if (settings_.auto_mode) {
    NodeClass nc;
    nc.kind = "NodeClass";
    nc.name = "default";
    reconcile_node_class(nc, cluster.ec2, cluster.security_groups, cluster.sim.now());
    state_.node_classes["default"] = nc;
    for (const char* name : {"system", "general-purpose"}) {
      NodePool p = auto_mode_pool(name, std::string(name) == "system");
      reconcile_node_pool_readiness(p, &state_.node_classes["default"], cluster.sim.now());
      state_.node_pools[name] = std::move(p);
    }
  }
  // Events pass client-go's broadcaster (a queue of 1000) and Karpenter's kube client limits
  // (--kube-client-qps 200, --kube-client-burst 300). Auto Mode runs the same controllers; AWS
  // publishes no settings of its own for them.
  cluster.log.limit_sink(source(), k8s::SinkLimits{200, 300, 1000});
  watch(cluster);
  // Installed into a running cluster (its Deployment applied mid-run): the unbound pods already
  // there are what its informers list when it starts. (At t=0 there are none yet.)
  for (std::size_t i = 0; i < cluster.api.pod_slots(); ++i) {
    const k8s::PodId id{static_cast<std::uint32_t>(i)};
    if (!cluster.api.pod(id).deleted && !cluster.api.pod(id).node.valid()) provisioner_.pod_added(id);
  }
}

// Who watches what, in the order the notifications reach them.
void Controller::watch(Cluster& cluster) {
  auto& api = cluster.api;
  // Pod and node notifications also keep the cluster state current.
  api.on_pod_added.push_back([this](k8s::PodId id) { provisioner_.pod_added(id); });
  api.on_pod_updated.push_back([this](k8s::PodId) { provisioner_.pod_updated(); });
  api.on_pod_bound.push_back([this, &api](k8s::PodId id) {
    state_.state_changed(api.pod(id).node);
    state_.pod_moved(api.pod(id).node);
  });
  api.on_pod_phase.push_back([this, &api](k8s::PodId id) {
    const auto& r = api.pod(id);
    state_.state_changed(r.node);
    if (r.pod.status.phase == k8s::PodPhase::Succeeded || r.pod.status.phase == k8s::PodPhase::Failed) state_.pod_moved(r.node);
  });
  api.on_pod_terminating.push_back([this, &api](k8s::PodId id) { state_.state_changed(api.pod(id).node); });
  api.on_pod_deleted.push_back([this, &api](k8s::PodId id) {
    recorder_.forget_pod(id);  // its UID is gone with it
    state_.state_changed(api.pod(id).node);
    state_.pod_moved(api.pod(id).node);
    batcher_.trigger();
  });
  api.on_node.push_back([this, &api](k8s::NodeId id, k8s::NodeChange ch) {
    state_.state_changed(id);
    // A node can become marked for deletion by a taint (seen here) or by its NodeClaim deleting
    // (Terminator::delete_claim, or here when its Node comes after).
    if (ch == k8s::NodeChange::Added || has_taint(api.node(id).node.taints, kTaintDisrupted)) state_.maybe_marked.insert(id.v);
    lifecycle_.on_node(id, ch);
  });
  cluster.ec2.on_running.push_back([this](aws::Instance& i) { lifecycle_.on_instance_running(i); });
  cluster.ec2.on_terminated.push_back([this](aws::Instance& i) { garbage_collection_.on_instance_terminated(i); });
  cluster.sim.every(kDisruptionPoll, [this] { disruption_.reconcile(); });
}

void Controller::apply_node_pool(NodePool pool) {
  std::string name = pool.name;
  // A replaced NodePool keeps its status (an apply changes the spec only).
  auto old = state_.node_pools.find(name);
  pool.created = state_.world.sim.now();
  if (old != state_.node_pools.end()) {
    pool.conditions = old->second.conditions;
    pool.created = old->second.created;
  }
  NodePool& p = state_.node_pools[name] = std::move(pool);
  reconcile_node_pool_readiness(p, state_.node_class_of(p), state_.world.sim.now());
  ++state_.config_version;
  batcher_.trigger();
}

bool Controller::delete_node_pool(const std::string& name) {
  if (!state_.node_pools.erase(name)) return false;
  ++state_.config_version;
  // NodeClaims are owned by their NodePool: garbage collection deletes them.
  for (auto& c : state_.node_claims)
    if (c.node_pool == name && !c.deleting_or_deleted()) termination_.delete_claim(c, "", false);
  return true;
}

}  // namespace eksim::autoscaling::karpenter
