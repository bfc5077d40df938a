#include "models/autoscaling/cluster_autoscaler.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <set>
#include <sstream>

#include "models/cluster/nodegroup_update.hpp"
#include "models/k8s/node_lifecycle.hpp"
#include "models/k8s/scheduling/plugins.hpp"

namespace eksim::autoscaling {

namespace {

// A node as the scheduler sees it now: its bound pods that are still in the API.
k8s::NodeInfo live_node_info(const k8s::ApiServer& api, k8s::NodeId id) {
  const k8s::NodeRecord& rec = api.node(id);
  std::vector<const k8s::Pod*> pods;
  for (k8s::PodId p : rec.pods)
    if (!api.pod(p).deleted) pods.push_back(&api.pod(p).pod);
  return k8s::make_node_info(rec.node, pods);
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string line;
  while (std::getline(ss, line, '\n'))
    if (!line.empty()) out.push_back(line);
  return out;
}

const engine::ObjectRef kStatusConfigMap{"ConfigMap", "kube-system", "cluster-autoscaler-status"};
// cloudprovider/aws/aws_cloud_provider.go: the error CA attaches to placeholder instances of a
// group whose scaling activity failed.
constexpr const char* kPlaceholderErrorCode = "placeholder-cannot-be-fulfilled";
constexpr const char* kPlaceholderErrorMessage = "AWS cannot provision any more instances for this node group";

}  // namespace

CasOptions cas_options_from_flags(const std::map<std::string, std::string>& flags) {
  CasOptions o;
  auto dur = [&](const char* name, engine::Duration& out) {
    if (auto it = flags.find(name); it != flags.end())
      if (auto d = engine::parse_duration(it->second)) out = *d;
  };
  auto num = [&](const char* name, double& out) {
    if (auto it = flags.find(name); it != flags.end()) out = std::stod(it->second);
  };
  auto boolean = [&](const char* name, bool& out) {
    if (auto it = flags.find(name); it != flags.end()) out = it->second == "true";
  };
  dur("scan-interval", o.scan_interval);
  if (auto it = flags.find("expander"); it != flags.end()) o.expander = it->second;
  dur("max-node-provision-time", o.max_node_provision_time);
  boolean("scale-down-enabled", o.scale_down_enabled);
  dur("scale-down-unneeded-time", o.scale_down_unneeded_time);
  dur("scale-down-unready-time", o.scale_down_unready_time);
  boolean("scale-down-unready-enabled", o.scale_down_unready_enabled);
  dur("scale-down-delay-after-add", o.scale_down_delay_after_add);
  if (flags.count("scale-down-delay-after-delete")) {
    engine::Duration d{};
    dur("scale-down-delay-after-delete", d);
    o.scale_down_delay_after_delete = d;
  }
  dur("scale-down-delay-after-failure", o.scale_down_delay_after_failure);
  num("scale-down-utilization-threshold", o.scale_down_utilization_threshold);
  num("scale-down-gpu-utilization-threshold", o.scale_down_gpu_utilization_threshold);
  boolean("balance-similar-node-groups", o.balance_similar_node_groups);
  if (auto it = flags.find("balancing-ignore-label"); it != flags.end()) o.balancing_ignore_labels = split_list(it->second);
  double max_total = 0;
  num("max-nodes-total", max_total);
  o.max_nodes_total = static_cast<std::int64_t>(max_total);
  if (auto it = flags.find("node-group-auto-discovery"); it != flags.end()) o.node_group_auto_discovery = split_list(it->second);
  if (auto it = flags.find("nodes"); it != flags.end()) o.nodes = split_list(it->second);
  dur("initial-node-group-backoff-duration", o.backoff.initial);
  dur("max-node-group-backoff-duration", o.backoff.max);
  dur("node-group-backoff-reset-timeout", o.backoff.reset);
  double grace = static_cast<double>(o.max_graceful_termination_sec);
  num("max-graceful-termination-sec", grace);
  o.max_graceful_termination_sec = static_cast<std::int64_t>(grace);
  boolean("skip-nodes-with-local-storage", o.drain.skip_nodes_with_local_storage);
  boolean("skip-nodes-with-system-pods", o.drain.skip_nodes_with_system_pods);
  dur("new-pod-scale-up-delay", o.new_pod_scale_up_delay);
  double cutoff = static_cast<double>(o.expendable_pods_priority_cutoff);
  num("expendable-pods-priority-cutoff", cutoff);
  o.expendable_pods_priority_cutoff = static_cast<std::int64_t>(cutoff);
  boolean("describe-nodegroup-allowed", o.describe_nodegroup_allowed);
  num("max-total-unready-percentage", o.max_total_unready_percentage);
  double ok_unready = static_cast<double>(o.ok_total_unready_count);
  num("ok-total-unready-count", ok_unready);
  o.ok_total_unready_count = static_cast<std::int64_t>(ok_unready);
  return o;
}

bool cluster_healthy(std::int64_t unready, std::int64_t nodes, const CasOptions& o) {
  return !(unready > o.ok_total_unready_count &&
           static_cast<double>(unready) > o.max_total_unready_percentage / 100.0 * static_cast<double>(nodes));
}

std::string scale_up_info(const std::string& group, std::int64_t from, std::int64_t to, std::int64_t max) {
  // ScaleUpInfo.String(): "{%v %d->%d (max: %d)}"
  return "{" + group + " " + std::to_string(from) + "->" + std::to_string(to) + " (max: " + std::to_string(max) + ")}";
}

std::string triggered_scale_up_message(const std::vector<std::string>& infos) {
  std::string out = "pod triggered scale-up: [";
  for (std::size_t i = 0; i < infos.size(); ++i) out += (i ? " " : "") + infos[i];
  return out + "]";
}

std::string not_trigger_scale_up_message(const std::map<std::string, int>& reasons) {
  std::vector<std::string> parts;
  for (const auto& [reason, count] : reasons) parts.push_back(std::to_string(count) + " " + reason);
  std::sort(parts.begin(), parts.end());
  std::string out = "pod didn't trigger scale-up: ";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

std::string go_float(double v) {
  if (v == 0) return "0";
  double a = std::fabs(v);
  char buf[64];
  // strconv.FormatFloat(v, 'g', -1, 64): %e when the exponent is < -4 or >= 21.
  int exp10 = static_cast<int>(std::floor(std::log10(a)));
  bool sci = exp10 < -4 || exp10 >= 21;
  auto res = std::to_chars(buf, buf + sizeof buf, v, sci ? std::chars_format::scientific : std::chars_format::fixed);
  std::string out(buf, res.ptr);
  if (sci) {
    // C++ writes e-05 / e+21 like Go already; make sure of a two-digit exponent.
    auto e = out.find('e');
    if (e != std::string::npos && out.size() - e == 3) out.insert(e + 2, "0");
  }
  return out;
}

std::string utilization_info_string(const cas::Utilization& u) {
  // simulator/utilization Calculate: GPU nodes report the GPU resource; otherwise the larger of
  // cpu and memory, ties going to memory.
  std::string resource = u.gpu_node ? std::string(k8s::kNvidiaGpu) : (u.cpu > u.memory ? "cpu" : "memory");
  std::string out = "{";
  for (const std::string& part : {go_float(u.cpu), go_float(u.memory), go_float(u.gpu), resource}) out.append(part).append(" ");
  return out.append(go_float(u.value)).append("}");
}

ClusterAutoscaler::ClusterAutoscaler(Cluster& cluster, CasOptions options)
    : c_(cluster), o_(std::move(options)), backoff_(o_.backoff) {
  // The first loop runs one scan interval after start, as the real deployment's first RunOnce
  // follows its start-up.
  c_.sim.every(o_.scan_interval, [this] { run_once(); });
}

void ClusterAutoscaler::emit_status(engine::EventType type, const std::string& reason, const std::string& message) {
  c_.api.emit(type, reason, kStatusConfigMap, message, name());
}
void ClusterAutoscaler::emit_node(k8s::NodeId node, engine::EventType type, const std::string& reason, const std::string& message) {
  c_.api.emit(type, reason, k8s::ApiServer::ref(c_.api.node(node).node), message, name());
}
void ClusterAutoscaler::emit_pod(k8s::PodId pod, engine::EventType type, const std::string& reason, const std::string& message) {
  c_.api.emit(type, reason, k8s::ApiServer::ref(c_.api.pod(pod).pod), message, name());
}

void ClusterAutoscaler::set_priority_config_map(std::optional<cas::PriorityConfig> config, std::string error) {
  priority_cm_applied_ = true;
  priority_cm_ = std::move(config);
  priority_cm_error_ = std::move(error);
}

const cas::PriorityConfig& ClusterAutoscaler::effective_priorities() {
  static const cas::PriorityConfig kNone;
  if (!priority_cm_applied_) return o_.priorities;
  return priority_cm_ ? *priority_cm_ : kNone;
}

std::vector<cas::RemainingPdb> ClusterAutoscaler::remaining_pdbs() const {
  std::vector<cas::RemainingPdb> out;
  const auto* updater = dynamic_cast<const NodegroupUpdater*>(c_.find_controller("eks-nodegroup-update"));
  if (!updater) return out;  // no PodDisruptionBudget was ever applied
  for (const auto& pdb : const_cast<NodegroupUpdater*>(updater)->pod_disruption_budgets()) {
    cas::RemainingPdb r;
    r.ns = pdb.ns;
    r.selector = pdb.selector;
    // status.disruptionsAllowed as the disruption controller computes it.
    std::int64_t healthy = 0, expected = 0;
    for (std::size_t i = 0; i < c_.api.pod_slots(); ++i) {
      const k8s::PodRecord& rec = c_.api.pod(k8s::PodId{static_cast<std::uint32_t>(i)});
      if (rec.deleted || !r.matches(rec.pod)) continue;
      if (rec.pod.status.phase == k8s::PodPhase::Succeeded || rec.pod.status.phase == k8s::PodPhase::Failed) continue;
      ++expected;
      if (!rec.terminating && rec.pod.status.phase == k8s::PodPhase::Running) ++healthy;
    }
    r.disruptions_allowed = disruptions_allowed(pdb, healthy, expected);
    out.push_back(std::move(r));
  }
  return out;
}

// --- discovery ------------------------------------------------------------------------------

bool ClusterAutoscaler::discovered(const aws::AutoScalingGroup& asg) const {
  std::vector<std::string> specs = o_.node_group_auto_discovery;
  if (specs.empty() && o_.nodes.empty())
    // The Helm chart's autoDiscovery.clusterName renders exactly this spec.
    specs.push_back("asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/" + c_.spec().name);
  for (const auto& spec : specs) {
    // parseASGAutoDiscoverySpec: "asg:tag=k1[=v1],k2[=v2]"; an ASG needs every tag.
    auto colon = spec.find(':');
    if (colon == std::string::npos || spec.substr(0, colon) != "asg") continue;
    std::string param = spec.substr(colon + 1);
    if (param.rfind("tag=", 0) != 0) continue;
    std::stringstream ss(param.substr(4));
    std::string item;
    bool all = true;
    while (std::getline(ss, item, ',')) {
      auto eq = item.find('=');
      std::string key = item.substr(0, eq);
      auto it = asg.tags.find(key);
      if (it == asg.tags.end() || (eq != std::string::npos && it->second != item.substr(eq + 1))) all = false;
    }
    if (all) return true;
  }
  return false;
}

void ClusterAutoscaler::refresh_groups() {
  std::vector<GroupState> next;
  auto keep = [&](const aws::AutoScalingGroup& asg, std::optional<std::pair<std::int64_t, std::int64_t>> bounds) {
    GroupState g;
    for (const auto& old : groups_)
      if (old.id == asg.name) g = old;
    g.id = asg.name;
    if (const aws::ManagedNodegroup* ng = c_.eks.by_asg(asg.name)) g.nodegroup = ng->spec.name;
    g.explicit_bounds = bounds.has_value();
    g.min = bounds ? bounds->first : asg.sizes.min_size;
    g.max = bounds ? bounds->second : asg.sizes.max_size;
    next.push_back(std::move(g));
  };
  for (const auto& spec : o_.nodes) {
    // --nodes min:max:name
    auto a = spec.find(':'), b = spec.find(':', a == std::string::npos ? 0 : a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string name = spec.substr(b + 1);
    if (aws::AutoScalingGroup* asg = c_.auto_scaling.find(name))
      keep(*asg, std::make_pair(std::stoll(spec.substr(0, a)), std::stoll(spec.substr(a + 1, b - a - 1))));
  }
  for (const auto& asg : c_.auto_scaling.groups()) {
    if (std::any_of(next.begin(), next.end(), [&](const GroupState& g) { return g.id == asg.name; })) continue;
    if (discovered(asg)) keep(asg, std::nullopt);
  }
  std::sort(next.begin(), next.end(), [](const GroupState& x, const GroupState& y) { return x.id < y.id; });
  groups_ = std::move(next);
}

// --- templates ------------------------------------------------------------------------------

std::optional<cas::ManagedNodegroupInfo> ClusterAutoscaler::describe_nodegroup(const std::string& nodegroup) {
  // Without eks:DescribeNodegroup the call fails with AccessDenied; CA logs it, caches an empty
  // answer and builds the template from the ASG tags alone.
  if (!o_.describe_nodegroup_allowed || nodegroup.empty()) return std::nullopt;
  const aws::ManagedNodegroup* ng = c_.eks.find(nodegroup);
  if (!ng) return std::nullopt;
  cas::ManagedNodegroupInfo info;
  // aws_wrapper.go getManagedNodegroupInfo: diskSize, amiType, capacityType, k8sVersion, labels.
  info.labels["diskSize"] = std::to_string(ng->spec.disk_size_gib);
  info.labels["amiType"] = ng->spec.ami_type;
  info.labels["capacityType"] = ng->spec.capacity_type;
  info.labels["k8sVersion"] = c_.spec().kubernetes_version;
  for (const auto& [k, v] : ng->spec.labels) info.labels[k] = v;
  // Converted to Kubernetes effects (some CA releases passed EKS's NO_SCHEDULE through verbatim,
  // which the scheduler's filter then ignored).
  for (const auto& t : ng->spec.taints) info.taints.push_back(k8s::Taint{t.key, t.value, aws::kubernetes_taint_effect(t.effect)});
  return info;
}

std::optional<k8s::Node> ClusterAutoscaler::template_node(const GroupState& g) {
  aws::AutoScalingGroup* asg = c_.auto_scaling.find(g.id);
  if (!asg || asg->launch_template.instance_types.empty()) return std::nullopt;
  std::string node_name = g.id + "-asg-" + std::to_string(++template_counter_);
  // A live, usable node of the group is the better template (TemplateNodeInfoFromExampleNodeInfo):
  // its real labels, taints and allocatable, without the transient taints.
  for (std::size_t i = 0; i < c_.api.node_slots(); ++i) {
    const k8s::NodeRecord& rec = c_.api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
    if (rec.deleted || !rec.node.ready || deleting_.count(rec.node.meta.name)) continue;
    aws::AutoScalingGroup* owner = c_.auto_scaling.group_of(rec.instance_id);
    if (!owner || owner->name != g.id) continue;
    const aws::InstanceType* type = asg->launch_template.instance_types.front();
    if (type->gpu.count > 0 && rec.node.allocatable.get(k8s::kNvidiaGpu) == 0) continue;
    k8s::Node n = rec.node;
    n.meta.name = node_name;
    n.meta.labels[k8s::kLabelHostname] = node_name;
    std::erase_if(n.taints, [](const k8s::Taint& t) {
      return t.key.rfind("node.kubernetes.io/", 0) == 0 || t.key == cas::kTaintToBeDeleted ||
             t.key == "DeletionCandidateOfClusterAutoscaler";
    });
    n.unschedulable = false;
    n.ready = true;
    return n;
  }
  cas::TemplateInput in;
  in.type = asg->launch_template.instance_types.front();
  in.asg_name = g.id;
  in.region = c_.spec().region;
  if (!asg->subnet_ids.empty())
    if (const aws::Subnet* s = c_.ec2.subnet(asg->subnet_ids.front())) in.zone = s->az;
  in.tags = asg->tags;
  in.managed = describe_nodegroup(g.nodegroup);
  in.node_name = node_name;
  return cas::build_node_from_template(in);
}

// --- cluster state --------------------------------------------------------------------------

ClusterAutoscaler::GroupState* ClusterAutoscaler::group_of_node(const k8s::NodeRecord& rec) {
  aws::AutoScalingGroup* owner = c_.auto_scaling.group_of(rec.instance_id);
  if (!owner) return nullptr;
  for (auto& g : groups_)
    if (g.id == owner->name) return &g;
  return nullptr;
}

std::vector<ClusterAutoscaler::LiveNode> ClusterAutoscaler::live_nodes() {
  std::vector<LiveNode> out;
  std::map<std::string, std::string> still_deleting;
  for (std::size_t i = 0; i < c_.api.node_slots(); ++i) {
    k8s::NodeId id{static_cast<std::uint32_t>(i)};
    const k8s::NodeRecord& rec = c_.api.node(id);
    if (rec.deleted) continue;
    LiveNode n;
    n.id = id;
    n.group = group_of_node(rec);
    bool deleting = deleting_.count(rec.node.meta.name) > 0;
    if (deleting) still_deleting[rec.node.meta.name] = deleting_[rec.node.meta.name];
    bool gpu_pending = false;
    if (aws::AutoScalingGroup* owner = c_.auto_scaling.group_of(rec.instance_id))
      if (!owner->launch_template.instance_types.empty())
        // FACTS.md / GPU custom-resources processor: a GPU node without allocatable GPUs yet is
        // treated as not ready, i.e. still upcoming.
        gpu_pending = owner->launch_template.instance_types.front()->gpu.count > 0 &&
                      rec.node.allocatable.get(k8s::kNvidiaGpu) == 0;
    n.usable = rec.node.ready && !gpu_pending && !deleting;
    out.push_back(n);
  }
  deleting_ = std::move(still_deleting);
  return out;
}

std::int64_t ClusterAutoscaler::registered_usable(const GroupState& g, const std::vector<LiveNode>& nodes) const {
  std::int64_t n = 0;
  for (const auto& ln : nodes)
    if (ln.group && ln.group->id == g.id && ln.usable) ++n;
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
  emit_status(engine::EventType::Warning, "ScaleUpTimedOut",
              "Nodes added to group " + g.id + " failed to register within " +
                  engine::format_duration(o_.max_node_provision_time));
  backoff_.backoff(g.id, c_.sim.now(), "OtherErrorClass", "timeout", "");
  g.scale_up_time.reset();
  // removeOldUnregisteredNodes: instances that never became nodes are deleted, shrinking the group.
  for (const auto& iid : unregistered) c_.auto_scaling.terminate_instance(iid, true);
}

std::vector<k8s::PodId> ClusterAutoscaler::default_unschedulable() const {
  std::vector<k8s::PodId> out;
  for (std::size_t i = 0; i < c_.api.pod_slots(); ++i) {
    k8s::PodId id{static_cast<std::uint32_t>(i)};
    const k8s::PodRecord& r = c_.api.pod(id);
    if (r.deleted || r.terminating || r.node.valid() || !r.pod.spec.node_name.empty()) continue;
    if (r.pod.status.phase != k8s::PodPhase::Pending || r.pod.spec.scheduler_name != "default-scheduler") continue;
    // The scheduler tries a new pod within milliseconds; a pod older than a second that is still
    // unbound has been found unschedulable (PodScheduled=False, reason Unschedulable).
    if (c_.sim.now() - r.pod.meta.creation_timestamp < engine::Duration::seconds(1)) continue;
    out.push_back(id);
  }
  return out;
}

// --- the loop -------------------------------------------------------------------------------

void ClusterAutoscaler::run_once() {
  refresh_groups();
  backoff_.remove_stale(c_.sim.now());
  for (auto& g : groups_) check_failed_activities(g);
  for (auto& g : groups_) check_provision_timeouts(g);
  if (!healthy()) {
    // static_autoscaler.go RunOnce: the loop stops here (no scale-up, no scale-down, unneeded
    // timers cleared) and says so on the status ConfigMap.
    unneeded_since_.clear();
    emit_status(engine::EventType::Warning, "ClusterUnhealthy", "Cluster is unhealthy");
    return;
  }
  auto nodes = live_nodes();
  for (auto& g : groups_) {
    if (!g.scale_up_time) continue;
    if (registered_usable(g, nodes) >= g.scale_up_target) {
      g.scale_up_time.reset();
      backoff_.remove(g.id);
    }
  }
  bool scaled = scale_up(nodes);
  if (!scaled) scale_down(live_nodes());
}

bool ClusterAutoscaler::healthy() const {
  const engine::SimTime now = c_.sim.now();
  std::int64_t nodes = 0, unready = 0;
  for (std::size_t i = 0; i < c_.api.node_slots(); ++i) {
    const k8s::NodeRecord& rec = c_.api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
    if (rec.deleted) continue;
    ++nodes;
    if (rec.node.ready || deleting_.count(rec.node.meta.name)) continue;  // Ready, or Deleted by CA
    if (rec.registered_at && now - *rec.registered_at < kMaxNodeStartupTime) continue;  // NotStarted
    ++unready;
  }
  return cluster_healthy(unready, nodes, o_);
}

bool ClusterAutoscaler::scale_up(const std::vector<LiveNode>& nodes) {
  const engine::SimTime now = c_.sim.now();
  std::vector<k8s::PodId> pending;
  for (k8s::PodId id : unschedulable_source_ ? unschedulable_source_() : default_unschedulable()) {
    const k8s::PodRecord& r = c_.api.pod(id);
    if (r.deleted || r.node.valid() || k8s::is_daemonset_pod(r.pod)) continue;  // DaemonSet pods are filtered out
    if (r.pod.spec.priority < o_.expendable_pods_priority_cutoff) continue;       // expendable pods never scale up
    if (!r.pod.status.nominated_node_name.empty()) continue;                     // preemption will place it
    if (now - r.pod.meta.creation_timestamp < o_.new_pod_scale_up_delay) continue;
    pending.push_back(id);
  }
  if (pending.empty()) return false;

  k8s::SchedulerOptions sched;
  sched.version = k8s::KubernetesVersion{c_.spec().kubernetes_minor, -1};

  // The snapshot: usable nodes with their pods, plus the upcoming nodes of every group as
  // template copies (so pods that will land on nodes already being created trigger nothing).
  std::deque<k8s::NodeInfo> infos;
  for (const auto& ln : nodes) {
    if (!ln.usable) continue;
    infos.push_back(live_node_info(c_.api, ln.id));
  }
  std::map<std::string, std::optional<k8s::Node>> templates;
  std::int64_t total_nodes = 0;
  for (auto& g : groups_) {
    templates[g.id] = template_node(g);
    aws::AutoScalingGroup* asg = c_.auto_scaling.find(g.id);
    std::int64_t target = asg ? asg->sizes.desired : 0;
    std::int64_t deleting = 0;
    for (const auto& [n, gid] : deleting_) deleting += gid == g.id;
    std::int64_t upcoming = std::max<std::int64_t>(0, target - registered_usable(g, nodes) - deleting);
    total_nodes += target;
    for (std::int64_t i = 0; i < upcoming && templates[g.id]; ++i) {
      k8s::Node copy = *templates[g.id];
      copy.meta.name += "-upcoming-" + std::to_string(i);
      infos.push_back(k8s::make_node_info(copy));
    }
  }
  for (const auto& ln : nodes)
    if (!ln.group) ++total_nodes;
  auto view_of = [](std::deque<k8s::NodeInfo>& d) {
    std::vector<const k8s::NodeInfo*> v;
    for (auto& i : d) v.push_back(&i);
    return v;
  };
  std::vector<const k8s::NodeInfo*> all = view_of(infos);

  // filterOutSchedulable: pods that fit on an existing or upcoming node are left to the scheduler.
  std::vector<k8s::PodId> remaining;
  for (k8s::PodId id : pending) {
    const k8s::Pod& pod = c_.api.pod(id).pod;
    bool placed = false;
    for (auto& info : infos)
      if (k8s::fits(pod, info, all, sched).ok()) {
        k8s::add_pod(info, pod);
        placed = true;
        break;
      }
    if (!placed) remaining.push_back(id);
  }
  if (remaining.empty()) return false;

  // Per group: skipped (back-off, max size) or an expansion option with the pods its template fits.
  std::map<std::uint32_t, std::map<std::string, int>> reasons;  // pod -> reason -> groups
  std::vector<cas::ExpansionOption> options;
  std::map<std::string, std::int64_t> current;
  std::map<std::string, std::set<const k8s::Pod*>> fitting_by_group;  // schedulablePodGroups
  bool limited_by_total = o_.max_nodes_total > 0 && total_nodes >= o_.max_nodes_total;
  for (auto& g : groups_) {
    aws::AutoScalingGroup* asg = c_.auto_scaling.find(g.id);
    if (!asg || !templates[g.id]) continue;
    std::int64_t target = asg->sizes.desired;
    current[g.id] = target;
    const char* skipped = nullptr;
    if (backoff_.is_backed_off(g.id, now)) skipped = "in backoff after failed scale-up";
    else if (target >= g.max) skipped = "max node group size reached";
    if (skipped) {
      for (k8s::PodId id : remaining) reasons[id.v][skipped]++;
      continue;
    }
    const k8s::Node& tmpl = *templates[g.id];
    k8s::NodeInfo probe = k8s::make_node_info(tmpl);
    std::vector<const k8s::Pod*> fitting;
    for (k8s::PodId id : remaining) {
      const k8s::Pod& pod = c_.api.pod(id).pod;
      auto res = k8s::fits(pod, probe, all, sched);
      if (res.ok()) {
        fitting.push_back(&pod);
        fitting_by_group[g.id].insert(&pod);
      }
      else
        for (const auto& reason : res.reasons) reasons[id.v][reason]++;
    }
    if (fitting.empty()) continue;
    // Binpacking estimator: first fit onto new template nodes, up to the group's headroom.
    std::int64_t headroom = g.max - target;
    if (o_.max_nodes_total > 0) headroom = std::min(headroom, o_.max_nodes_total - total_nodes);
    std::deque<k8s::NodeInfo> fresh;
    cas::ExpansionOption opt;
    opt.group_id = g.id;
    opt.template_node = tmpl;
    const aws::InstanceType* type = asg->launch_template.instance_types.front();
    opt.node_price_per_hour = asg->launch_template.spot ? type->spot_price(c_.spec().region) : type->on_demand_price(c_.spec().region);
    for (const k8s::Pod* pod : fitting) {
      bool placed = false;
      for (auto& n : fresh)
        if (k8s::fits(*pod, n, all, sched).ok()) {
          k8s::add_pod(n, *pod);
          placed = true;
          break;
        }
      if (!placed && static_cast<std::int64_t>(fresh.size()) < headroom) {
        k8s::Node copy = tmpl;
        copy.meta.name += "-new-" + std::to_string(fresh.size());
        fresh.push_back(k8s::make_node_info(copy));
        k8s::add_pod(fresh.back(), *pod);
        placed = true;
      }
      if (placed) opt.pods.push_back(pod);
    }
    opt.node_count = static_cast<std::int64_t>(fresh.size());
    if (opt.node_count > 0) options.push_back(std::move(opt));
  }

  if (options.empty() || limited_by_total) {
    for (k8s::PodId id : remaining) {
      std::string msg = limited_by_total ? std::string("pod didn't trigger scale-up: max total nodes in cluster reached")
                                         : not_trigger_scale_up_message(reasons[id.v]);
      emit_pod(id, engine::EventType::Normal, "NotTriggerScaleUp", msg);
    }
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
  auto state_of = [&](const std::string& id) -> GroupState* {
    for (auto& gs : groups_)
      if (gs.id == id) return &gs;
    return nullptr;
  };
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
      const auto& takes = fitting_by_group[other.id];
      if (!std::all_of(best.pods.begin(), best.pods.end(), [&](const k8s::Pod* p) { return takes.count(p) > 0; })) continue;
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
    gs->scale_up_time = now;
    gs->scale_up_target = info.new_size;
    gs->activities_seen = c_.log.activities().size();
    infos_text.push_back(scale_up_info(info.group, info.current, info.new_size, info.max));
    any = true;
  }
  if (!any) return false;
  last_scale_up_ = now;
  std::string msg = triggered_scale_up_message(infos_text);
  for (const k8s::Pod* pod : best.pods)
    if (auto id = c_.api.find_pod(pod->meta.ns, pod->meta.name)) emit_pod(*id, engine::EventType::Normal, "TriggeredScaleUp", msg);
  return true;
}

// --- scale-down -----------------------------------------------------------------------------

void ClusterAutoscaler::scale_down(const std::vector<LiveNode>& nodes) {
  if (!o_.scale_down_enabled) return;
  const engine::SimTime now = c_.sim.now();
  k8s::SchedulerOptions sched;
  sched.version = k8s::KubernetesVersion{c_.spec().kubernetes_minor, -1};

  // Candidates: every node of a known group not already being deleted, ready or not (an unready
  // node, including a GPU node whose GPUs never appear, goes after scale-down-unready-time).
  // Destinations for moved pods: the usable nodes.
  std::deque<k8s::NodeInfo> infos;
  std::vector<const LiveNode*> owners;
  std::vector<bool> ready;
  for (const auto& ln : nodes) {
    const std::string& n = c_.api.node(ln.id).node.meta.name;
    if (deleting_.count(n) || (!ln.usable && !ln.group)) continue;
    infos.push_back(live_node_info(c_.api, ln.id));
    owners.push_back(&ln);
    ready.push_back(ln.usable);
  }
  std::vector<const k8s::NodeInfo*> all;
  for (std::size_t i = 0; i < infos.size(); ++i)
    if (ready[i]) all.push_back(&infos[i]);

  std::map<std::string, std::int64_t> removable;  // group -> nodes that may still go (size - min)
  for (const auto& g : groups_) {
    aws::AutoScalingGroup* asg = c_.auto_scaling.find(g.id);
    std::int64_t deleting = 0;
    for (const auto& [n, gid] : deleting_) deleting += gid == g.id;
    removable[g.id] = asg ? asg->sizes.desired - deleting - g.min : 0;
  }

  std::vector<cas::RemainingPdb> pdbs = remaining_pdbs();
  // Pods as the removal simulation moves them: copies with spec.nodeName cleared
  // (simulator/cluster.go findPlaceFor), else the NodeName filter pins them to the node going away.
  std::deque<k8s::Pod> moved;
  std::set<std::string> unneeded_now;
  std::set<std::size_t> removed_in_sim;
  std::map<std::string, cas::Utilization> utils;
  unremovable_.clear();
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const LiveNode& ln = *owners[i];
    const k8s::NodeInfo& info = infos[i];
    const std::string& name = info.name();
    if (!ln.group) continue;
    // Reasons: core/scaledown/eligibility and simulator (UnremovableReason names).
    if (removable[ln.group->id] <= 0) {
      unremovable_[name] = {"NodeGroupMinSizeReached", std::nullopt};
      continue;
    }
    auto ann = info.node.meta.annotations.find(cas::kAnnotationScaleDownDisabled);
    if (ann != info.node.meta.annotations.end() && ann->second == "true") {
      unremovable_[name] = {"ScaleDownDisabledAnnotation", std::nullopt};
      continue;
    }
    aws::AutoScalingGroup* asg = c_.auto_scaling.find(ln.group->id);
    bool gpu_expected = asg && !asg->launch_template.instance_types.empty() &&
                        asg->launch_template.instance_types.front()->gpu.count > 0;
    cas::Utilization u = cas::node_utilization(info, gpu_expected);
    double threshold = u.gpu_node ? o_.scale_down_gpu_utilization_threshold : o_.scale_down_utilization_threshold;
    if (u.value >= threshold) {
      unremovable_[name] = {"NotUnderutilized", std::nullopt};
      continue;
    }
    std::optional<cas::BlockingPod> blocker;
    std::vector<const k8s::Pod*> to_move;
    for (const k8s::Pod* p : info.pods) {
      if (!blocker) blocker = cas::drain_blocker(*p, o_.drain, pdbs);
      if (cas::pod_needs_move(*p)) to_move.push_back(p);
    }
    if (blocker) {
      unremovable_[name] = {"BlockedByPod", blocker};
      continue;
    }
    // Every pod to move must fit on a ready node that stays (simulated on scratch copies).
    std::deque<k8s::NodeInfo> scratch;
    std::vector<std::size_t> index;
    for (std::size_t j = 0; j < infos.size(); ++j)
      if (j != i && ready[j] && !removed_in_sim.count(j)) {
        scratch.push_back(infos[j]);
        index.push_back(j);
      }
    bool ok = true;
    for (const k8s::Pod* original : to_move) {
      const k8s::Pod* p = original;
      if (!original->spec.node_name.empty()) {
        moved.push_back(*original);
        moved.back().spec.node_name.clear();
        p = &moved.back();
      }
      bool placed = false;
      for (auto& sn : scratch)
        if (k8s::fits(*p, sn, all, sched).ok()) {
          k8s::add_pod(sn, *p);
          placed = true;
          break;
        }
      if (!placed) {
        ok = false;
        break;
      }
    }
    if (!ok) {
      unremovable_[name] = {"NoPlaceToMovePods", std::nullopt};
      continue;
    }
    for (std::size_t k = 0; k < scratch.size(); ++k) infos[index[k]] = scratch[k];
    // RemainingPdbTracker.RemovePods: the moved pods use up their budgets for later nodes.
    for (const k8s::Pod* p : to_move)
      for (auto& pdb : pdbs)
        if (pdb.matches(*p)) --pdb.disruptions_allowed;
    removed_in_sim.insert(i);
    removable[ln.group->id]--;
    unneeded_now.insert(name);
    unneeded_since_.try_emplace(name, now);
    utils[name] = u;
  }
  std::erase_if(unneeded_since_, [&](const auto& kv) { return !unneeded_now.count(kv.first); });

  // Actuation waits out the cool-downs (unneeded time keeps accruing meanwhile).
  engine::Duration after_delete = o_.scale_down_delay_after_delete.value_or(o_.scan_interval);
  if (last_scale_up_ && now < *last_scale_up_ + o_.scale_down_delay_after_add) return;
  if (last_scale_down_fail_ && now < *last_scale_down_fail_ + o_.scale_down_delay_after_failure) return;
  if (last_scale_down_delete_ && now < *last_scale_down_delete_ + after_delete) return;
  bool draining = false;
  for (const auto& [n, gid] : deleting_) {
    auto id = c_.api.find_node(n);
    if (id && !c_.api.node(*id).pods.empty()) draining = true;
  }
  int empty_deleted = 0;
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const std::string name = c_.api.node(owners[i]->id).node.meta.name;
    auto it = unneeded_since_.find(name);
    if (it == unneeded_since_.end()) continue;
    // eligibility: a ready node must be unneeded for scale-down-unneeded-time, an unready one
    // for scale-down-unready-time (and only when scale-down-unready-enabled).
    if (!ready[i] && !o_.scale_down_unready_enabled) continue;
    engine::Duration needed = ready[i] ? o_.scale_down_unneeded_time : o_.scale_down_unready_time;
    if (now - it->second < needed) continue;
    const k8s::NodeRecord& rec = c_.api.node(owners[i]->id);
    bool empty = std::none_of(rec.pods.begin(), rec.pods.end(), [&](k8s::PodId p) {
      return !c_.api.pod(p).deleted && cas::pod_needs_move(c_.api.pod(p).pod);
    });
    GroupState* g = nullptr;
    for (auto& gs : groups_)
      if (gs.id == owners[i]->group->id) g = &gs;
    if (empty && empty_deleted < 10) {  // --max-empty-bulk-delete 10
      start_deletion(owners[i]->id, *g, true, utils[name]);
      ++empty_deleted;
    } else if (!empty && !draining) {  // --max-drain-parallelism 1
      start_deletion(owners[i]->id, *g, false, utils[name]);
      draining = true;
    }
  }
}

// Texts: core/scaledown/actuation/actuator.go (ScaleDownEmpty, ScaleDown "Scale-down: removing
// node ...", taintNode "marked the node as toBeDeleted/unschedulable"), drain.go (evictPod
// "deleting pod for node scale down", waitPodsToDisappear), delete_in_batch.go
// (RegisterAndRecordSuccessfulScaleDownEvent, CleanUpAndRecordFailedScaleDownEvent).
void ClusterAutoscaler::start_deletion(k8s::NodeId node, GroupState& g, bool empty, const cas::Utilization& util) {
  k8s::NodeRecord& rec = c_.api.node(node);
  std::string name = rec.node.meta.name;
  deleting_[name] = g.id;
  unneeded_since_.erase(name);
  last_scale_down_delete_ = c_.sim.now();
  std::vector<k8s::PodId> to_move;
  std::string pod_names;
  for (k8s::PodId p : rec.pods)
    if (!c_.api.pod(p).deleted && cas::pod_needs_move(c_.api.pod(p).pod)) {
      to_move.push_back(p);
      pod_names += (pod_names.empty() ? "" : ",") + c_.api.pod(p).pod.meta.name;
    }
  if (empty) emit_status(engine::EventType::Normal, "ScaleDownEmpty", "Scale-down: removing empty node \"" + name + "\"");
  else
    emit_status(engine::EventType::Normal, "ScaleDown",
                "Scale-down: removing node " + name + ", utilization: " + utilization_info_string(util) +
                    ", pods to reschedule: " + pod_names);
  // MarkToBeDeleted: the taint's value is the Unix time it was added.
  rec.node.taints.push_back(k8s::Taint{cas::kTaintToBeDeleted,
                                       std::to_string(c_.start_epoch_seconds() + c_.sim.now().us / 1000000),
                                       k8s::kNoSchedule});
  c_.api.node_changed(node, k8s::NodeChange::Updated);
  emit_node(node, engine::EventType::Normal, "ScaleDown", "marked the node as toBeDeleted/unschedulable");
  if (empty) {
    finish_deletion(node, false);
    return;
  }
  // Evictions with the pod's grace period capped at --max-graceful-termination-sec; CA then waits
  // up to that cap plus DefaultPodEvictionHeadroom (30 s) for the pods to go, checking every 5 s.
  for (k8s::PodId p : to_move) {
    emit_pod(p, engine::EventType::Normal, "ScaleDown", "deleting pod for node scale down");
    c_.kubelet->delete_pod(p, cas::eviction_grace_seconds(c_.api.pod(p).pod, o_.max_graceful_termination_sec));
  }
  engine::SimTime deadline =
      c_.sim.now() + engine::Duration::seconds(o_.max_graceful_termination_sec) + engine::Duration::seconds(30);
  wait_drained(node, name, std::move(to_move), deadline);
}

void ClusterAutoscaler::wait_drained(k8s::NodeId node, std::string name, std::vector<k8s::PodId> pods,
                                     engine::SimTime deadline) {
  const k8s::NodeRecord& rec = c_.api.node(node);
  if (rec.deleted) {
    deleting_.erase(name);
    return;
  }
  bool gone = std::all_of(pods.begin(), pods.end(), [&](k8s::PodId p) {
    const k8s::PodRecord& r = c_.api.pod(p);
    return r.deleted || r.node != node;
  });
  if (gone) {
    finish_deletion(node, true);
    return;
  }
  if (c_.sim.now() >= deadline) {
    emit_node(node, engine::EventType::Warning, "ScaleDownFailed",
              "failed to drain and delete node: Failed to drain node /" + name + ": pods remaining after timeout");
    k8s::NodeRecord& r = c_.api.node(node);
    std::erase_if(r.node.taints, [](const k8s::Taint& t) { return t.key == cas::kTaintToBeDeleted; });
    c_.api.node_changed(node, k8s::NodeChange::Updated);
    deleting_.erase(name);
    last_scale_down_fail_ = c_.sim.now();
    return;
  }
  c_.sim.schedule(engine::Duration::seconds(5), [this, node, name = std::move(name), pods = std::move(pods), deadline] {
    wait_drained(node, name, pods, deadline);
  });
}

void ClusterAutoscaler::finish_deletion(k8s::NodeId node, bool drain) {
  const k8s::NodeRecord& rec = c_.api.node(node);
  if (rec.deleted) return;
  std::string name = rec.node.meta.name;
  std::string instance = rec.instance_id;
  emit_node(node, engine::EventType::Normal, "ScaleDown", "nodes removed by cluster autoscaler");
  if (drain) emit_status(engine::EventType::Normal, "ScaleDown", "Scale-down: node " + name + " removed with drain");
  else emit_status(engine::EventType::Normal, "ScaleDownEmpty", "Scale-down: empty node " + name + " removed");
  c_.auto_scaling.terminate_instance(instance, /*decrement_desired=*/true);
}

std::unique_ptr<Controller> make_cluster_autoscaler(Cluster& cluster) {
  return std::make_unique<ClusterAutoscaler>(cluster, cas_options_from_flags(cluster.spec().autoscaler.flags));
}

}  // namespace eksim::autoscaling
