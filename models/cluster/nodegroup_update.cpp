#include "models/cluster/nodegroup_update.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "models/cluster/cluster.hpp"
#include "models/k8s/scheduling/predicates.hpp"

namespace eksim {

namespace {

using engine::Duration;
using engine::SimTime;

k8s::ObjectRef nodegroup_ref(const std::string& name) { return {"Nodegroup", "", name}; }

std::string make_uuid(engine::Rng& r) {
  std::uint64_t a = r.next_u64(), b = r.next_u64();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08llx-%04llx-%04llx-%04llx-%012llx", static_cast<unsigned long long>(a >> 32),
                static_cast<unsigned long long>((a >> 16) & 0xffff), static_cast<unsigned long long>(a & 0xffff),
                static_cast<unsigned long long>(b >> 48), static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

}  // namespace

// --- pure rules --------------------------------------------------------------------------------

std::int64_t surge_size(std::int64_t availability_zones, std::int64_t max_unavailable) {
  return std::max<std::int64_t>(2 * availability_zones, max_unavailable);
}

std::int64_t max_unavailable_nodes(const aws::NodeGroupSpec& spec, std::int64_t nodes) {
  if (spec.max_unavailable) return std::max<std::int64_t>(1, *spec.max_unavailable);
  // terraform-aws-modules/eks eks-managed-node-group: update_config defaults to
  // { max_unavailable_percentage = 33 }.
  std::int64_t pct = spec.max_unavailable_percentage.value_or(33);
  return std::max<std::int64_t>(1, nodes * pct / 100);
}

std::string node_creation_failure_message(const std::string& nodegroup) {
  // AWS re:Post knowledge center, "Why did my Amazon EKS managed node group update fail?".
  return "Couldn't proceed with upgrade process as new nodes are not joining node group " + nodegroup;
}

std::string pod_eviction_failure_message(const std::string& nodegroup) {
  // As DescribeUpdate and terraform print it (aws/containers-roadmap#1282).
  return "Reached max retries while trying to evict pods from nodes in node group " + nodegroup;
}

aws::AwsError not_active_error() {
  return aws::AwsError{"ResourceInUseException", "Nodegroup cannot be updated as it is currently not in Active State"};
}

std::string format_update_errors(const std::vector<NodegroupUpdateError>& errors) {
  std::string out;
  for (const auto& e : errors) {
    if (!out.empty()) out += "; ";
    out += e.code + ": " + e.message + " (resourceIds: [";
    for (std::size_t i = 0; i < e.resource_ids.size(); ++i) out += (i ? ", " : "") + e.resource_ids[i];
    out += "])";
  }
  return out;
}

// --- the controller --------------------------------------------------------------------------

struct NodegroupUpdater::Run {
  std::string nodegroup;
  std::string asg;
  std::size_t record = 0;
  bool force = false;
  aws::GroupSizes original;
  std::int64_t old_version = 1;
  std::int64_t new_version = 2;
  aws::NodeGroupSpec old_spec;
  aws::LaunchTemplate old_template;
  std::int64_t surge = 0;
  std::int64_t max_unavailable = 1;
  SimTime scale_up_started;
  std::int64_t in_flight = 0;  // old nodes of the current batch not yet terminated
  bool done = false;
};

NodegroupUpdater::NodegroupUpdater(Cluster& cluster, NodegroupUpdateOptions options)
    : c_(cluster), options_(options) {}

NodegroupUpdater::~NodegroupUpdater() = default;

NodegroupUpdateRecord& NodegroupUpdater::new_record(const std::string& nodegroup, const std::string& type,
                                                    const std::string& what) {
  NodegroupUpdateRecord rec;
  rec.id = make_uuid(c_.rng.get("eks/update-ids"));
  rec.nodegroup = nodegroup;
  rec.type = type;
  rec.status = "InProgress";
  rec.created_at = c_.sim.now();
  aws::Activity a;
  a.start = a.end = c_.sim.now();
  a.service = "eks";
  a.resource = nodegroup;
  a.status = "InProgress";
  a.description = type + " " + rec.id + (what.empty() ? "" : ": " + what);
  c_.activities.push_back(std::move(a));
  rec.activity = c_.activities.size() - 1;
  updates_.push_back(std::move(rec));
  return updates_.back();
}

void NodegroupUpdater::record_config_update(const std::string& nodegroup) {
  NodegroupUpdateRecord& rec = new_record(nodegroup, "ConfigUpdate", "scaling config");
  rec.status = "Successful";
  c_.activities[rec.activity].status = "Successful";
}

bool NodegroupUpdater::eviction_allowed(const k8s::Pod& pod) const {
  return c_.controllers.pdb->eviction_allowed(pod);
}

std::vector<std::string> NodegroupUpdater::instances_with_version(const std::shared_ptr<Run>& run, bool current) const {
  std::vector<std::string> out;
  aws::AutoScalingGroup* g = c_.auto_scaling.find(run->asg);
  if (!g) return out;
  for (const auto& id : g->instances) {
    const aws::Instance* inst = c_.ec2.find(id);
    if (!inst) continue;
    if ((inst->template_version >= run->new_version) == current) out.push_back(id);
  }
  return out;
}

std::optional<aws::AwsError> NodegroupUpdater::update_version(const std::string& nodegroup,
                                                              const aws::NodeGroupSpec* next, bool force) {
  aws::ManagedNodegroup* ng = c_.eks.find(nodegroup);
  if (!ng) return aws::AwsError{"ResourceNotFoundException", "No node group found for name: " + nodegroup + "."};
  if (ng->status != aws::kNodegroupActive) return not_active_error();
  aws::AutoScalingGroup* g = c_.auto_scaling.find(ng->asg_name);
  if (!g) return aws::AwsError{"ResourceNotFoundException", "No node group found for name: " + nodegroup + "."};

  // Setup: a new launch template version, the ASG switched to it, the group UPDATING.
  auto run = std::make_shared<Run>();
  run->nodegroup = nodegroup;
  run->asg = ng->asg_name;
  run->force = force;
  run->original = g->sizes;
  run->old_version = g->launch_template.version;
  run->new_version = run->old_version + 1;
  run->old_spec = ng->spec;
  run->old_template = g->launch_template;
  if (next) {
    aws::NodeGroupSpec merged = *next;
    merged.min_size = ng->spec.min_size;
    merged.max_size = ng->spec.max_size;
    merged.desired_size = ng->spec.desired_size;
    ng->spec = merged;
    std::vector<const aws::InstanceType*> types;
    for (const auto& t : merged.instance_types)
      if (const aws::InstanceType* it = c_.catalog().find(t)) types.push_back(it);
    if (!types.empty()) g->launch_template.instance_types = types;
    g->launch_template.security_groups = merged.vpc_security_group_ids;
  }
  g->launch_template.version = run->new_version;
  ng->status = "UPDATING";
  NodegroupUpdateRecord& rec =
      new_record(nodegroup, "VersionUpdate",
                 "launch template version " + std::to_string(run->old_version) + " -> " + std::to_string(run->new_version));
  run->record = updates_.size() - 1;
  (void)rec;
  std::int64_t old_nodes = static_cast<std::int64_t>(instances_with_version(run, false).size());
  run->max_unavailable = max_unavailable_nodes(ng->spec, old_nodes);
  scale_up(run);
  return std::nullopt;
}

void NodegroupUpdater::scale_up(const std::shared_ptr<Run>& run) {
  aws::ManagedNodegroup* ng = c_.eks.find(run->nodegroup);
  if (instances_with_version(run, false).empty()) {
    // Nothing runs the old version (a group at 0): the new template is all there is to do.
    finish(run, "Successful");
    return;
  }
  std::set<std::string> azs;
  for (const auto& id : ng->subnet_ids)
    if (const aws::Subnet* s = c_.ec2.subnet(id)) azs.insert(s->az);
  run->surge = surge_size(static_cast<std::int64_t>(azs.size()), run->max_unavailable);
  aws::SizesUpdate up{std::nullopt, run->original.max_size + run->surge, run->original.desired + run->surge};
  if (auto err = c_.auto_scaling.update_group(run->asg, up)) {
    fail(run, NodegroupUpdateError{"AutoScalingGroupInvalidConfiguration", err->message, {run->asg}});
    return;
  }
  run->scale_up_started = c_.sim.now();
  c_.sim.schedule(options_.poll, [this, run] { wait_new_nodes(run); });
}

void NodegroupUpdater::wait_new_nodes(const std::shared_ptr<Run>& run) {
  if (run->done) return;
  std::int64_t ready = 0;
  std::vector<std::string> not_ready;
  for (const auto& id : instances_with_version(run, true)) {
    auto node = c_.node_of_instance(id);
    if (node && !c_.api.node(*node).deleted && c_.api.node(*node).node.ready) ++ready;
    else not_ready.push_back(id);
  }
  if (ready >= run->surge) {
    // End of the scale-up phase: "It marks nodes as unschedulable to avoid scheduling new Pods. It
    // also labels nodes with node.kubernetes.io/exclude-from-external-load-balancers=true" (EKS
    // user guide, "Understand each phase of node updates"): every node still on the old version,
    // so pods evicted later land on the new nodes only.
    for (const auto& id : instances_with_version(run, false)) {
      auto node = c_.node_of_instance(id);
      if (!node || c_.api.node(*node).deleted) continue;
      c_.api.node(*node).node.meta.labels["node.kubernetes.io/exclude-from-external-load-balancers"] = "true";
      k8s::cordon_node(c_.api, *node);
    }
    upgrade_next_batch(run);
    return;
  }
  if (c_.sim.now() - run->scale_up_started >= options_.node_ready_timeout) {
    fail(run, NodegroupUpdateError{"NodeCreationFailure", node_creation_failure_message(run->nodegroup), not_ready});
    return;
  }
  c_.sim.schedule(options_.poll, [this, run] { wait_new_nodes(run); });
}

void NodegroupUpdater::upgrade_next_batch(const std::shared_ptr<Run>& run) {
  if (run->done) return;
  std::vector<std::string> old = instances_with_version(run, false);
  if (old.empty()) {
    scale_down(run);
    return;
  }
  // "Randomly selects a node that needs to be upgraded, up to the maximum unavailable".
  auto& rng = c_.rng.get("eks/nodegroup-update/" + run->nodegroup);
  std::vector<std::string> batch;
  while (!old.empty() && static_cast<std::int64_t>(batch.size()) < run->max_unavailable) {
    std::size_t i = static_cast<std::size_t>(rng.below(old.size()));
    batch.push_back(old[i]);
    old.erase(old.begin() + static_cast<std::ptrdiff_t>(i));
  }
  run->in_flight = static_cast<std::int64_t>(batch.size());
  SimTime now = c_.sim.now();
  for (const auto& id : batch) drain_step(run, id, now);
}

void NodegroupUpdater::drain_step(const std::shared_ptr<Run>& run, std::string instance_id, SimTime started) {
  if (run->done) return;
  auto node = c_.node_of_instance(instance_id);
  if (!node || c_.api.node(*node).deleted) {
    after_drain(run, instance_id);
    return;
  }
  // kubectl drain semantics: the node is marked unschedulable first so evicted pods go elsewhere.
  k8s::cordon_node(c_.api, *node);
  bool left = false;
  auto pods = c_.api.node(*node).pods;
  for (k8s::PodId p : pods) {
    const k8s::PodRecord& r = c_.api.pod(p);
    if (r.deleted || k8s::is_daemonset_pod(r.pod)) continue;
    left = true;
    if (r.terminating) continue;
    if (eviction_allowed(r.pod)) c_.kubelet->delete_pod(p);  // eviction honours the grace period
  }
  if (!left) {
    after_drain(run, instance_id);
    return;
  }
  if (c_.sim.now() - started >= options_.drain_timeout) {
    if (run->force) {
      // A forced update deletes the pods that could not be drained.
      for (k8s::PodId p : c_.api.node(*node).pods) {
        const k8s::PodRecord& r = c_.api.pod(p);
        if (!r.deleted && !r.terminating && !k8s::is_daemonset_pod(r.pod)) c_.kubelet->delete_pod(p);
      }
      after_drain(run, instance_id);
      return;
    }
    fail(run, NodegroupUpdateError{"PodEvictionFailure", pod_eviction_failure_message(run->nodegroup),
                                   {c_.api.node(*node).node.meta.name}});
    return;
  }
  c_.sim.schedule(options_.poll, [this, run, instance_id, started] { drain_step(run, instance_id, started); });
}

void NodegroupUpdater::after_drain(const std::shared_ptr<Run>& run, std::string instance_id) {
  if (auto node = c_.node_of_instance(instance_id); node && !c_.api.node(*node).deleted)
    k8s::cordon_node(c_.api, *node);
  // Cordoned and given 60 s so the service controller takes it out of load balancers, then
  // terminated through the ASG with the desired capacity decremented.
  c_.sim.schedule(options_.cordon_wait, [this, run, instance_id] {
    if (run->done) return;
    c_.auto_scaling.terminate_instance(instance_id, /*decrement_desired=*/true);
    if (--run->in_flight == 0) upgrade_next_batch(run);
  });
}

void NodegroupUpdater::scale_down(const std::shared_ptr<Run>& run) {
  aws::SizesUpdate back{run->original.min_size, run->original.max_size, run->original.desired};
  if (auto err = c_.auto_scaling.update_group(run->asg, back)) {
    fail(run, NodegroupUpdateError{"AutoScalingGroupInvalidConfiguration", err->message, {run->asg}});
    return;
  }
  finish(run, "Successful");
}

void NodegroupUpdater::fail(const std::shared_ptr<Run>& run, NodegroupUpdateError error) {
  NodegroupUpdateRecord& rec = updates_[run->record];
  rec.errors.push_back(error);
  if (error.code == "NodeCreationFailure") {
    // The group goes back to its previous version: the new instances go, the ASG returns to its
    // template and sizes; the old nodes never stopped serving.
    for (const auto& id : instances_with_version(run, true)) c_.auto_scaling.terminate_instance(id, true);
    if (aws::AutoScalingGroup* g = c_.auto_scaling.find(run->asg)) g->launch_template = run->old_template;
    if (aws::ManagedNodegroup* ng = c_.eks.find(run->nodegroup)) {
      std::int64_t min = ng->spec.min_size, max = ng->spec.max_size;
      ng->spec = run->old_spec;
      ng->spec.min_size = min;
      ng->spec.max_size = max;
    }
    c_.auto_scaling.update_group(run->asg, aws::SizesUpdate{run->original.min_size, run->original.max_size,
                                                            run->original.desired});
  }
  // PodEvictionFailure leaves the group as it stands: nodes already replaced stay, the node
  // that would not drain stays cordoned with its pods, and the surge capacity is not given back.
  // The old nodes cordoned at the end of scale-up stay cordoned too: the user guide describes no
  // uncordon step on failure, and its remedy is to retry the update with --force (which deletes
  // the pods), so the nodes are left for that retry (or a manual kubectl uncordon).
  // The node group itself returns to ACTIVE with the update record Failed (DescribeUpdate
  // status Failed, errors [PodEvictionFailure]; aws/containers-roadmap#1282 shows the record).
  // DEGRADED is the status for health issues (NodegroupHealth: AsgInstanceLaunchFailures,
  // InsufficientFreeAddresses, ...; EKS API reference, Nodegroup.status), not for a failed update;
  // no stored source shows a failed update turning the group DEGRADED.
  c_.api.emit(k8s::EventType::Warning, error.code, nodegroup_ref(run->nodegroup), error.message, "eks");
  finish(run, "Failed");
}

void NodegroupUpdater::finish(const std::shared_ptr<Run>& run, const std::string& status) {
  run->done = true;
  NodegroupUpdateRecord& rec = updates_[run->record];
  rec.status = status;
  aws::Activity& a = c_.activities[rec.activity];
  a.status = status;
  a.end = c_.sim.now();
  a.status_message = format_update_errors(rec.errors);
  if (aws::ManagedNodegroup* ng = c_.eks.find(run->nodegroup)) ng->status = std::string(aws::kNodegroupActive);
}

}  // namespace eksim
