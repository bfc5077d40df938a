#include "models/k8s/gpu_operator.hpp"

#include <utility>

#include "models/k8s/kubelet.hpp"

namespace eksim::k8s {

namespace {

using engine::Duration;

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
                                         GpuOperatorTimings timings)
    : api_(api),
      kubelet_(kubelet),
      ns_(std::move(ns)),
      daemon_sets_(std::move(daemon_sets)),
      toolkit_enabled_(toolkit_enabled),
      timings_(timings) {
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
  GpuOperand op = operand_of(rec.pod);
  if (op == GpuOperand::None || !rec.node.valid()) return false;
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
    api_.log().record_hint(engine::Hint{
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

void GpuOperatorOperands::validate(NodeId node) {
  NodeState& s = state(node);
  if (!s.validator.valid() || s.validating || s.stage >= 4) return;
  const bool can = s.stage == 0   ? s.driver_ready
                   : s.stage == 1 ? s.toolkit_installed
                   : s.stage == 2 ? true
                                  : s.gpus_advertised;
  if (!can) return;
  const Duration d = s.stage == 0   ? timings_.validate_driver
                     : s.stage == 1 ? timings_.validate_toolkit
                     : s.stage == 2 ? timings_.validate_cuda
                                    : timings_.validate_plugin;
  s.validating = true;
  api_.sim().schedule(d, [this, node, pod = s.validator, uid = s.validator_uid] {
    NodeState& st = state(node);
    if (st.validator != pod || st.validator_uid != uid) return;
    st.validating = false;
    const PodRecord& rec = api_.pod(pod);
    if (rec.deleted || rec.terminating || rec.pod.meta.uid != uid) {
      st.validator = PodId{};
      return;
    }
    ++st.stage;
    if (st.stage == 2) {
      st.toolkit_ready = true;
      release(st.wait_toolkit);
    }
    if (st.stage == 4) {
      kubelet_.init_done(pod);
      return;
    }
    api_.set_pod_phase(pod, PodPhase::Pending, "Init:" + std::to_string(st.stage) + "/4");
    validate(node);
  });
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
