#include "models/k8s/addons/nvidia/gpu_operator.hpp"

#include <utility>

#include "models/k8s/kubelet/kubelet.hpp"
#include "models/k8s/api/resources.hpp"

namespace eksim::k8s {

namespace {

using engine::Duration;
using k8s::EventType;

// cmd/nvidia-validator: waitForPod polls the workload pod every podCreationSleepIntervalSeconds,
// validateGPUResource the node every gpuResourceDiscoveryIntervalSeconds.
constexpr Duration kWorkloadPodPoll = Duration::seconds(5);
constexpr int kWorkloadPodPolls = 60;  // podCreationWaitRetries
constexpr Duration kGpuResourcePoll = Duration::seconds(5);
constexpr const char* kCudaWorkloadApp = "nvidia-cuda-validator";
constexpr const char* kPluginWorkloadApp = "nvidia-device-plugin-validator";

// state_manager.go gpuStateLabels[container]: what the operator puts on every GPU node that runs
// containers (the default workload config).
constexpr const char* kDeployLabels[] = {
    "nvidia.com/gpu.deploy.driver",         "nvidia.com/gpu.deploy.gpu-feature-discovery",
    "nvidia.com/gpu.deploy.container-toolkit", "nvidia.com/gpu.deploy.device-plugin",
    "nvidia.com/gpu.deploy.dcgm",           "nvidia.com/gpu.deploy.dcgm-exporter",
    "nvidia.com/gpu.deploy.node-status-exporter", "nvidia.com/gpu.deploy.operator-validator",
};

// MIG-capable GPUs (A100, H100, H200, B200): the operator adds nvidia.com/gpu.deploy.mig-manager
// where GFD reports nvidia.com/mig.capable=true; eksim knows the GPU by the instance family.
bool mig_capable(const Node& n) {
  auto it = n.meta.labels.find("node.kubernetes.io/instance-type");
  if (it == n.meta.labels.end()) return false;
  const std::string& t = it->second;
  for (const char* family : {"p4d.", "p4de.", "p5.", "p5e.", "p5en.", "p6-b200."})
    if (t.rfind(family, 0) == 0) return true;
  return false;
}

}  // namespace

GpuOperatorOperands::GpuOperatorOperands(ApiServer& api, Kubelet& kubelet, std::string ns,
                                         std::map<std::string, GpuOperand> daemon_sets, bool toolkit_enabled,
                                         GpuOperatorTimings timings, GpuValidatorWorkload workload)
    : api_(api),
      kubelet_(kubelet),
      ns_(std::move(ns)),
      daemon_sets_(std::move(daemon_sets)),
      toolkit_enabled_(toolkit_enabled),
      timings_(timings),
      workload_(std::move(workload)) {
  api_.on_node.push_back([this](NodeId id, NodeChange change) {
    if (change == NodeChange::Added && id.v < nodes_.size()) nodes_[id.v] = NodeState{};
  });
}

GpuOperand GpuOperatorOperands::operand_of(const Pod& pod) const {
  if (pod.meta.ns != ns_) return GpuOperand::None;
  for (const auto& o : pod.meta.owner_references) {
    if (o.kind != "DaemonSet") continue;
    auto it = daemon_sets_.find(o.name);
    if (it != daemon_sets_.end()) return it->second;
  }
  return GpuOperand::None;
}

GpuOperatorOperands::NodeState& GpuOperatorOperands::state(NodeId node) {
  if (node.v >= nodes_.size()) nodes_.resize(node.v + 1);
  NodeState& s = nodes_[node.v];
  if (!s.known) {
    s.known = true;
    const Node& n = api_.node(node).node;
    auto it = n.meta.annotations.find(kAnnotationHostNvidiaDriver);
    s.host_driver = it != n.meta.annotations.end() && it->second == "true";
    s.driver_ready = s.host_driver;
    // The NVIDIA AMIs ship the container toolkit with the driver.
    s.toolkit_installed = !toolkit_enabled_ && s.host_driver;
  }
  return s;
}

void GpuOperatorOperands::label_gpu_node(NodeId node) {
  NodeRecord& r = api_.node(node);
  if (r.deleted) return;
  bool changed = false;
  auto add = [&](const std::string& key, const std::string& value) {
    if (r.node.meta.labels.count(key)) return;  // addGPUStateLabels: only missing labels
    r.node.meta.labels[key] = value;
    changed = true;
  };
  add("nvidia.com/gpu.present", "true");
  for (const char* key : kDeployLabels) add(key, "true");
  if (mig_capable(r.node)) add("nvidia.com/gpu.deploy.mig-manager", "true");
  if (changed) api_.node_changed(node, NodeChange::Updated);
}

bool GpuOperatorOperands::init_wait(PodId id) {
  const PodRecord& rec = api_.pod(id);
  if (!rec.node.valid()) return false;
  if (is_workload_pod(rec.pod)) {
    // Its init container runs vectorAdd on the GPUs; then the kubelet starts the echo.
    api_.sim().schedule(timings_.vector_add, [this, id, uid = rec.pod.meta.uid] {
      const PodRecord& r = api_.pod(id);
      if (!r.deleted && r.pod.meta.uid == uid) kubelet_.init_done(id);
    });
    return true;
  }
  GpuOperand op = operand_of(rec.pod);
  if (op == GpuOperand::None) return false;
  NodeId node = rec.node;
  NodeState& s = state(node);
  switch (op) {
    case GpuOperand::Driver:
      if (!s.host_driver) return false;
      // k8s-driver-manager finds the host's driver; the pod then waits (its manager sleeps 60 s)
      // until the DaemonSet controller deletes it for the new label.
      api_.sim().schedule(timings_.driver_manager_detect, [this, node] { driver_preinstalled(node); });
      return true;
    case GpuOperand::Toolkit:
      if (s.driver_ready) return false;
      s.wait_driver.push_back(id);
      return true;
    case GpuOperand::DevicePlugin:
    case GpuOperand::Gfd:
    case GpuOperand::DcgmExporter:
    case GpuOperand::MigManager:
      if (s.toolkit_ready) return false;
      s.wait_toolkit.push_back(id);
      return true;
    case GpuOperand::Validator:
      s.validator = id;
      s.validator_uid = rec.pod.meta.uid;
      s.stage = 0;
      s.validating = false;
      s.workload = PodId{};
      s.polls = 0;
      s.failures = 0;
      validate(node);
      return true;
    case GpuOperand::None:
      break;
  }
  return false;
}

void GpuOperatorOperands::driver_preinstalled(NodeId node) {
  NodeRecord& r = api_.node(node);
  if (r.deleted) return;
  auto& slot = r.node.meta.labels[kLabelDeployDriver];
  if (slot == "pre-installed") return;
  slot = "pre-installed";
  api_.node_changed(node, NodeChange::Updated);
  if (!preinstalled_hint_given_) {
    preinstalled_hint_given_ = true;
    api_.log().record_hint(k8s::Hint{
        api_.now(), "PreinstalledDriver", {"Node", "", r.node.meta.name},
        "driver.enabled=true on a node whose AMI already has the NVIDIA driver: the driver pod's "
        "k8s-driver-manager logged \"NVIDIA GPU driver is already pre-installed on the node, disabling the "
        "containerized driver\" and labelled the node " + std::string(kLabelDeployDriver) +
            "=pre-installed, so nvidia-driver-daemonset deleted its pod and the host driver is used. Set "
            "driver.enabled=false on EKS NVIDIA AMIs (AL2023_x86_64_NVIDIA, BOTTLEROCKET_x86_64_NVIDIA), as lab 000 "
            "does, and the pod is never created."});
  }
}

void GpuOperatorOperands::release(std::vector<PodId>& pods) {
  std::vector<PodId> go;
  go.swap(pods);
  for (PodId p : go) {
    const PodRecord& rec = api_.pod(p);
    if (rec.deleted || rec.terminating) continue;
    kubelet_.init_done(p);
  }
}

bool GpuOperatorOperands::is_workload_pod(const Pod& pod) const {
  if (pod.meta.ns != ns_) return false;
  auto it = pod.meta.labels.find("app");
  return it != pod.meta.labels.end() && (it->second == kCudaWorkloadApp || it->second == kPluginWorkloadApp);
}

bool GpuOperatorOperands::with_workload(const NodeState& s, const char* container, bool def) const {
  for (const Container& c : api_.pod(s.validator).pod.spec.init_containers)
    if (c.name == container) {
      std::string v = env_of(c, "WITH_WORKLOAD");
      if (v.empty()) return def;
      return v == "true" || v == "True" || v == "1";  // urfave/cli BoolFlag from the environment
    }
  return def;
}

bool GpuOperatorOperands::validator_alive(NodeId node, PodId pod, const std::string& uid) {
  NodeState& st = state(node);
  if (st.validator != pod || st.validator_uid != uid) return false;
  const PodRecord& rec = api_.pod(pod);
  if (rec.deleted || rec.terminating || rec.pod.meta.uid != uid) {
    st.validator = PodId{};
    st.validating = false;
    return false;
  }
  return true;
}

void GpuOperatorOperands::validate(NodeId node) {
  NodeState& s = state(node);
  if (!s.validator.valid() || s.validating || s.stage >= 4) return;
  Duration wait = timings_.validate_component;
  bool workload = false;
  switch (s.stage) {
    case 0:
      if (!s.driver_ready) return;
      break;
    case 1:
      if (!s.toolkit_installed) return;
      break;
    case 2:
      workload = with_workload(s, "cuda-validation", true);
      break;
    default: {
      // validateGPUResource looks at the node's capacity at once, then every 5 s.
      if (!s.gpus_advertised) return;
      const std::int64_t waited = (api_.now() - s.plugin_check_began).us;
      const std::int64_t poll = kGpuResourcePoll.us;
      wait = Duration{(waited + poll - 1) / poll * poll - waited};
      workload = with_workload(s, "plugin-validation", false);
      if (!workload) wait = wait + timings_.validate_component;
    }
  }
  s.validating = true;
  api_.sim().schedule(wait, [this, node, workload, plugin = s.stage == 3, pod = s.validator, uid = s.validator_uid] {
    if (!validator_alive(node, pod, uid)) return;
    if (workload) run_workload(node, plugin);
    else stage_done(node);
  });
}

void GpuOperatorOperands::stage_done(NodeId node) {
  NodeState& st = state(node);
  st.validating = false;
  ++st.stage;
  if (st.stage == 2) {
    st.toolkit_ready = true;
    release(st.wait_toolkit);
  }
  if (st.stage == 4) {
    kubelet_.init_done(st.validator);
    return;
  }
  if (st.stage == 3) st.plugin_check_began = api_.now();
  api_.set_pod_phase(st.validator, PodPhase::Pending, "Init:" + std::to_string(st.stage) + "/4");
  validate(node);
}

void GpuOperatorOperands::run_workload(NodeId node, bool plugin) {
  NodeState& s = state(node);
  const std::string app = plugin ? kPluginWorkloadApp : kCudaWorkloadApp;
  // "check if ... validation pod is already running and cleanup": the node's previous one goes
  // at once (grace period 0).
  const PodId last = plugin ? s.plugin_pod : s.cuda_pod;
  if (last.valid() && !api_.pod(last).deleted) kubelet_.delete_pod(last, 0);
  Pod p;
  p.meta.ns = ns_;
  // Its own name stream, so the user's pods keep their names whatever the operator validates.
  p.meta.name = app + "-" + api_.random_suffix("k8s/names/" + ns_ + "/" + app + "-");
  p.meta.labels["app"] = app;
  if (!plugin) p.meta.annotations["nvidia.cdi.k8s.io/container.cuda-validation"] = "management.nvidia.com/gpu=all";
  // The validator DaemonSet's owner (the ClusterPolicy) and its template's tolerations.
  p.meta.owner_references.push_back(OwnerReference{"ClusterPolicy", "cluster-policy", true});
  p.spec.tolerations = workload_.tolerations;
  p.spec.restart_policy = "OnFailure";
  p.spec.node_name = api_.node(node).node.meta.name;
  Container init;
  init.name = plugin ? "plugin-validation" : "cuda-validation";
  init.image = workload_.image;
  init.command = {"sh", "-c"};
  init.args = {"vectorAdd"};
  if (plugin) {
    init.requests.set(kNvidiaGpu, 1);
    init.limits.set(kNvidiaGpu, 1);
  } else {
    init.env.push_back({"NVIDIA_VISIBLE_DEVICES", "all"});
  }
  Container main;
  main.name = app;
  main.image = workload_.image;
  main.command = {"sh", "-c"};
  main.args = {std::string("echo ") + (plugin ? "device-plugin" : "cuda") + " workload validation is successful"};
  p.spec.init_containers = {std::move(init)};
  p.spec.containers = {std::move(main)};
  PodId id = api_.create_pod(std::move(p));
  // create_pod runs the API's watchers: look the node's state up again rather than trust `s`.
  NodeState& st = state(node);
  (plugin ? st.plugin_pod : st.cuda_pod) = id;
  st.workload = id;
  st.polls = 0;
  api_.sim().schedule(kWorkloadPodPoll, [this, node, id, uid = st.validator_uid] { poll_workload(node, id, uid); });
}

void GpuOperatorOperands::poll_workload(NodeId node, PodId pod, std::string validator_uid) {
  NodeState& s = state(node);
  if (!validator_alive(node, s.validator, validator_uid) || s.workload != pod) return;
  const PodRecord& rec = api_.pod(pod);
  if (!rec.deleted && rec.pod.status.phase == PodPhase::Succeeded) {
    s.workload = PodId{};
    s.polls = 0;
    stage_done(node);
    return;
  }
  if (!rec.deleted && rec.pod.status.phase == PodPhase::Failed && !starved_hint_given_) {
    starved_hint_given_ = true;
    api_.log().record_hint(k8s::Hint{
        api_.now(), "ValidatorWorkloadStarved", ApiServer::ref(rec.pod),
        "The GPU Operator validator's workload pod " + rec.pod.meta.name + " was refused by the kubelet (" +
            rec.pod.status.reason + "): " + (s.stage == 3 ? "with validator.plugin.env WITH_WORKLOAD=true it asks for one "
                                                            "nvidia.com/gpu, and a GPU pod that was waiting took the node's "
                                                            "GPUs first. "
                                                          : "") +
            "The validator polls it for 5 minutes, fails " + (s.stage == 3 ? "plugin" : "cuda") +
            "-validation and tries again after its back-off until it succeeds, and the nvidia-operator-validator pod "
            "stays in Init meanwhile (NVIDIA/gpu-operator#233). Leave WITH_WORKLOAD at the chart's \"false\", or "
            "install the operator before GPU pods wait for the node."});
  }
  // waitForPod: a deleted pod fails its Get; one not Succeeded after podCreationWaitRetries (60)
  // polls is given up on ("gave up waiting for pod ... to be available"). Either way the init
  // container exits with an error.
  if (rec.deleted || ++s.polls >= kWorkloadPodPolls) {
    validation_failed(node);
    return;
  }
  api_.sim().schedule(kWorkloadPodPoll,
                      [this, node, pod, uid = std::move(validator_uid)] { poll_workload(node, pod, uid); });
}

void GpuOperatorOperands::validation_failed(NodeId node) {
  NodeState& s = state(node);
  s.workload = PodId{};
  s.polls = 0;
  ++s.failures;
  PodRecord& rec = api_.pod(s.validator);
  ++rec.pod.status.restart_count;
  // The kubelet restarts the failed init container after its back-off (10 s doubling to 5 min);
  // the pod reads Init:Error, then Init:CrashLoopBackOff from the second failure, with BackOff.
  const Duration delay = restart_backoff(kubelet_.config(), s.failures);
  if (s.failures == 1) {
    api_.set_pod_phase(s.validator, PodPhase::Pending, "Init:Error");
  } else {
    api_.set_pod_phase(s.validator, PodPhase::Pending, "Init:CrashLoopBackOff");
    api_.emit(EventType::Warning, "BackOff", ApiServer::ref(rec.pod),
              restart_backoff_message(s.stage == 2 ? "cuda-validation" : "plugin-validation", rec.pod), "kubelet");
  }
  api_.sim().schedule(delay, [this, node, pod = s.validator, uid = s.validator_uid] {
    if (!validator_alive(node, pod, uid)) return;
    NodeState& st = state(node);
    st.validating = false;
    if (st.stage == 3) st.plugin_check_began = api_.now();
    api_.set_pod_phase(pod, PodPhase::Pending, "Init:" + std::to_string(st.stage) + "/4");
    validate(node);
  });
}

std::optional<ContainerRun> GpuOperatorOperands::container_run(PodId pod) const {
  if (!is_workload_pod(api_.pod(pod).pod)) return std::nullopt;
  ContainerRun run;
  run.duration = Duration{};
  return run;
}

void GpuOperatorOperands::on_started(PodId id) {
  const PodRecord& rec = api_.pod(id);
  if (!rec.node.valid()) return;
  GpuOperand op = operand_of(rec.pod);
  NodeId node = rec.node;
  if (op == GpuOperand::Driver) {
    api_.sim().schedule(timings_.driver_probe_initial_delay, [this, node, id, uid = rec.pod.meta.uid] {
      const PodRecord& r = api_.pod(id);
      if (r.deleted || r.pod.meta.uid != uid || api_.node(node).deleted) return;
      NodeState& s = state(node);
      if (s.driver_ready) return;
      s.driver_ready = true;
      release(s.wait_driver);
      validate(node);
    });
  } else if (op == GpuOperand::Toolkit) {
    api_.sim().schedule(timings_.toolkit_install, [this, node, id, uid = rec.pod.meta.uid] {
      const PodRecord& r = api_.pod(id);
      if (r.deleted || r.pod.meta.uid != uid || api_.node(node).deleted) return;
      NodeState& s = state(node);
      if (s.toolkit_installed) return;
      s.toolkit_installed = true;
      validate(node);
    });
  }
}

void GpuOperatorOperands::on_gpus_advertised(NodeId node) {
  NodeState& s = state(node);
  s.gpus_advertised = true;
  validate(node);
}

}  // namespace eksim::k8s
