#include "models/k8s/kubelet/node_lifecycle.hpp"

#include <algorithm>
#include <string_view>

#include "models/k8s/addons/nvidia/gpu_operator.hpp"
#include "models/k8s/kubelet/kubelet.hpp"

namespace eksim::k8s {

namespace {

using engine::Duration;
using k8s::EventType;

k8s::ObjectRef node_ref(const std::string& name) { return {"Node", "", name}; }

void emit_status(ApiServer& api, const std::string& node, const std::string& status) {
  // kubelet recordNodeStatusEvent: "Node %s status is now: %s".
  api.emit(EventType::Normal, status, node_ref(node), "Node " + node + " status is now: " + status, "kubelet");
}

NodeRecord node_record(const MachineSpec& spec) {
  NodeRecord rec;
  Node& n = rec.node;
  n.meta.name = spec.node_name;
  n.meta.labels = spec.labels;
  n.meta.labels.emplace(kLabelHostname, spec.node_name);
  n.meta.labels.emplace(kLabelOs, "linux");
  if (spec.gpu_count > 0) n.meta.annotations[kAnnotationGpuCount] = std::to_string(spec.gpu_count);
  // EKS GPU AMIs (and Auto Mode's image) ship the NVIDIA driver and container toolkit.
  if (spec.gpu_count > 0 && (spec.nvidia_ami || spec.eks_auto_mode_image))
    n.meta.annotations[kAnnotationHostNvidiaDriver] = "true";
  if (spec.efa_count > 0) n.meta.annotations[kAnnotationEfaCount] = std::to_string(spec.efa_count);
  if (spec.neuron_devices > 0) {
    n.meta.annotations[kAnnotationNeuronDeviceCount] = std::to_string(spec.neuron_devices);
    n.meta.annotations[kAnnotationNeuronCoreCount] = std::to_string(spec.neuron_cores);
  }
  n.taints = spec.register_with_taints;
  n.taints.push_back(Taint{kTaintNotReady, "", kNoSchedule});
  n.ready_reason = kReasonKubeletNotReady;
  n.ready_message = kNetworkNotReadyMessage;
  n.provider_id = spec.provider_id;
  n.capacity = spec.capacity;
  n.allocatable = spec.allocatable;
  rec.instance_id = spec.instance_id;
  rec.node_group = spec.node_group;
  rec.node_pool = spec.node_pool;
  rec.capacity_type = spec.capacity_type;
  return rec;
}

void register_node(ApiServer& api, const MachineSpec& spec) {
  NodeRecord rec = node_record(spec);
  // The kubelet's first status update carries its conditions; the node controller then sees
  // the new Node.
  for (const char* s : {"NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID"})
    emit_status(api, spec.node_name, s);
  api.emit(EventType::Normal, "NodeAllocatableEnforced", node_ref(spec.node_name),
           "Updated Node Allocatable limit across pods", "kubelet");
  NodeId id = api.register_node(std::move(rec));
  api.emit(EventType::Normal, "RegisteredNode", node_ref(spec.node_name),
           "Node " + spec.node_name + " event: Registered Node " + spec.node_name + " in Controller",
           "node-controller");
  (void)id;
}

void mark_ready(ApiServer& api, const std::string& name) {
  auto id = api.find_node(name);
  if (!id) return;
  NodeRecord& rec = api.node(*id);
  if (rec.deleted || rec.node.ready) return;
  rec.node.ready = true;
  rec.node.ready_reason = kReasonKubeletReady;
  rec.node.ready_message = kMessageKubeletReady;
  rec.ready_at = api.now();
  std::erase_if(rec.node.taints, [](const Taint& t) { return t.key == kTaintNotReady; });
  emit_status(api, name, "NodeReady");
  api.node_changed(*id, NodeChange::Ready);
}

}  // namespace

std::optional<NodeId> adopt_joined_node(ApiServer& api, const MachineSpec& spec) {
  if (!spec.role_mapped || !spec.api_server_reachable) return std::nullopt;
  NodeRecord rec = node_record(spec);
  if (!spec.cni_initializes) return api.register_node(std::move(rec));  // joined, never Ready
  std::erase_if(rec.node.taints, [](const Taint& t) { return t.key == kTaintNotReady; });
  rec.node.ready = true;
  rec.node.ready_reason = kReasonKubeletReady;
  rec.node.ready_message = kMessageKubeletReady;
  NodeId id = api.register_node(std::move(rec));
  api.node(id).ready_at = api.now();
  api.node_changed(id, NodeChange::Ready);
  return id;
}

NodeJoinHandle start_node_join(ApiServer& api, MachineSpec spec, const NodeJoinTimings& t) {
  NodeJoinHandle handle;
  auto& rng = api.rng().get("k8s/node-join/" + spec.node_name);
  auto draw = [&](double median) { return Duration::from_seconds(rng.lognormal_median(median, t.sigma)); };
  // All phases are drawn now, in a fixed order, so that overrides and cancellation never shift
  // the numbers another node sees.
  double boot_median = spec.bootstrap == BootstrapFlavor::Bottlerocket ? t.os_boot_bottlerocket_s : t.os_boot_s;
  if (spec.nvidia_ami) boot_median += spec.eks_auto_mode_image ? t.nvidia_extra_boot_auto_mode_s : t.nvidia_extra_boot_s;
  double bootstrap_median = spec.bootstrap == BootstrapFlavor::Al2BootstrapSh   ? t.bootstrap_sh_s
                            : spec.bootstrap == BootstrapFlavor::Bottlerocket ? t.bootstrap_bottlerocket_s
                                                                                : t.bootstrap_nodeadm_s;
  // Two statements, not `draw(a) + draw(b)`: the order of an operator's operands is unspecified
  // (GCC and clang differ), and so would be which median gets which draw. Bootstrap is drawn
  // first, as the GCC builds always did.
  const Duration bootstrap = draw(bootstrap_median);
  Duration boot = draw(boot_median) + bootstrap;
  Duration kubelet_start = draw(t.kubelet_start_s);
  Duration tls = draw(t.tls_register_s);
  Duration cni = draw(spec.eks_auto_mode_image ? t.cni_ready_auto_mode_s : t.cni_ready_s);
  if (spec.boot_time) boot = *spec.boot_time;
  if (spec.register_time) {
    // Keep the "Starting kubelet." split proportional inside the overridden window.
    Duration total = *spec.register_time;
    kubelet_start = Duration{total.us * kubelet_start.us / std::max<std::int64_t>(1, (kubelet_start + tls).us)};
    tls = total - kubelet_start;
  }
  if (spec.ready_time) cni = *spec.ready_time;

  auto flag = handle.cancelled;
  auto s = std::make_shared<MachineSpec>(std::move(spec));
  api.sim().schedule(boot + kubelet_start, [&api, s, flag, tls, cni] {
    if (*flag) return;
    // Without a mapped role the kubelet cannot authenticate: it never gets this far in the
    // API server's view, and nothing is recorded.
    if (!s->role_mapped || !s->api_server_reachable) return;
    api.emit(EventType::Normal, "Starting", node_ref(s->node_name), "Starting kubelet.", "kubelet");
    api.sim().schedule(tls, [&api, s, flag, cni] {
      if (*flag) return;
      if (api.find_node(s->node_name)) return;  // already registered (a reused name)
      register_node(api, *s);
      if (!s->cni_initializes) return;  // aws-node never writes the CNI config
      api.sim().schedule(cni, [&api, s, flag] {
        if (*flag) return;
        mark_ready(api, s->node_name);
      });
    });
  });
  return handle;
}

void cordon_node(ApiServer& api, NodeId id) {
  NodeRecord& rec = api.node(id);
  if (rec.deleted || rec.node.unschedulable) return;
  rec.node.unschedulable = true;
  bool has = std::any_of(rec.node.taints.begin(), rec.node.taints.end(),
                         [](const Taint& t) { return t.key == kTaintUnschedulable; });
  if (!has) rec.node.taints.push_back(Taint{kTaintUnschedulable, "", kNoSchedule});
  emit_status(api, rec.node.meta.name, "NodeNotSchedulable");
  api.node_changed(id, NodeChange::Updated);
}

void uncordon_node(ApiServer& api, NodeId id) {
  NodeRecord& rec = api.node(id);
  if (rec.deleted || !rec.node.unschedulable) return;
  rec.node.unschedulable = false;
  std::erase_if(rec.node.taints, [](const Taint& t) { return t.key == kTaintUnschedulable; });
  emit_status(api, rec.node.meta.name, "NodeSchedulable");
  api.node_changed(id, NodeChange::Updated);
}

bool is_daemonset_pod(const Pod& pod) {
  // A string_view compares lengths first: the autoscalers ask this of every pending pod per pass,
  // and a ReplicaSet's or Job's kind then costs no character comparison.
  constexpr std::string_view kDaemonSet = "DaemonSet";
  return std::any_of(pod.meta.owner_references.begin(), pod.meta.owner_references.end(),
                     [&](const OwnerReference& o) { return o.controller && o.kind == kDaemonSet; });
}

namespace {
bool has_evictable(ApiServer& api, NodeId id) {
  for (PodId p : api.node(id).pods) {
    const PodRecord& r = api.pod(p);
    if (!r.deleted && !is_daemonset_pod(r.pod)) return true;
  }
  return false;
}

void wait_drained(ApiServer& api, NodeId id, std::function<void()> done) {
  if (!has_evictable(api, id) || api.node(id).deleted) {
    if (done) done();
    return;
  }
  api.sim().schedule(Duration::seconds(1), [&api, id, done] { wait_drained(api, id, done); });
}
}  // namespace

void drain_node(ApiServer& api, Kubelet& kubelet, NodeId id, std::function<void()> done) {
  cordon_node(api, id);
  auto pods = api.node(id).pods;
  for (PodId p : pods) {
    const PodRecord& r = api.pod(p);
    if (r.deleted || is_daemonset_pod(r.pod)) continue;
    kubelet.delete_pod(p);
  }
  wait_drained(api, id, std::move(done));
}

void remove_node_and_pods(ApiServer& api, NodeId id) {
  if (api.node(id).deleted) return;
  auto pods = api.node(id).pods;
  for (PodId p : pods) api.remove_pod(p);
  api.remove_node(id);
}

}  // namespace eksim::k8s
