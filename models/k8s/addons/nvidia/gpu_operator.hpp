#pragma once
// The GPU Operator's operands on a GPU node, in the order the operator's manifests impose it
// (assets/state-*/0500_daemonset.yaml at the chart's tag): every operand pod waits in an init
// container for a file under /run/nvidia/validations that another operand writes.
//
//   driver (nvidia-driver-daemonset)   init k8s-driver-manager; main nvidia-driver-ctr is ready
//                                      when its startupProbe passes (driver.startupProbe,
//                                      initialDelaySeconds 60, periodSeconds 10)
//   toolkit                             init driver-validation: waits for the driver
//   validator (nvidia-operator-validator) init driver-validation -> toolkit-validation (writes
//                                      toolkit-ready) -> cuda-validation -> plugin-validation
//                                      (needs nvidia.com/gpu in the node's capacity), then Running
//   device plugin, GFD, DCGM exporter, MIG manager
//                                      init toolkit-validation: `until [ -f
//                                      /run/nvidia/validations/toolkit-ready ]`
//
// So nvidia.com/gpu appears only after the driver is ready and the validator has validated the
// driver and the toolkit, and the validator itself turns Running only once the plugin advertises.
//
// The cuda check, and the plugin check when its WITH_WORKLOAD is "true" (lab 000 sets it), run a
// workload pod on the node (cmd/nvidia-validator runWorkload): nvidia-cuda-validator-xxxxx and
// nvidia-device-plugin-validator-xxxxx, bound by spec.nodeName, an init container running
// vectorAdd (the plugin's requests one nvidia.com/gpu), a container that echoes and exits. The
// validator deletes the node's previous one, creates it and polls it every 5 s until Succeeded;
// the pods stay, Completed, as `kubectl get pods -n gpu-operator` shows them.
//
// A node whose AMI ships the driver (EKS NVIDIA AMIs): the validator's driver-validation finds
// it (`chroot /host nvidia-smi`, "Detected a pre-installed driver on the host") and goes on at
// once; with driver.enabled=true the driver pod's k8s-driver-manager init container finds it too
// ("NVIDIA GPU driver is already pre-installed on the node, disabling the containerized driver",
// NVIDIA/k8s-driver-manager cmd/driver-manager), labels the node
// nvidia.com/gpu.deploy.driver=pre-installed, and the DaemonSet, whose nodeSelector wants "true",
// deletes its pod there. The operator only adds missing deploy labels (state_manager.go
// addGPUStateLabels), so the label stays.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/k8s/api/api_server.hpp"

namespace eksim::k8s {

class Kubelet;
struct ContainerRun;

// Which AMIs ship the NVIDIA driver and container toolkit (not a real annotation: what the
// machine's image holds, set by the node lifecycle from the AMI type).
inline constexpr const char* kAnnotationHostNvidiaDriver = "eksim.io/host-nvidia-driver";
inline constexpr const char* kLabelDeployDriver = "nvidia.com/gpu.deploy.driver";

enum class GpuOperand { None, Driver, Toolkit, DevicePlugin, Gfd, DcgmExporter, Validator, MigManager };

struct GpuOperatorTimings {
  // k8s-driver-manager: `chroot /host nvidia-smi --query-gpu=driver_version` then the node label.
  engine::Duration driver_manager_detect = engine::Duration::seconds(2);
  // The driver container's startup probe (chart values driver.startupProbe.*; the scenario's
  // values override these). The driver build itself is taken to be done by the first probe.
  engine::Duration driver_probe_initial_delay = engine::Duration::seconds(60);
  // The toolkit container installs the runtime and reconfigures containerd before the validator
  // can run a container with it (an estimate, not a measured figure).
  engine::Duration toolkit_install = engine::Duration::seconds(10);
  // One nvidia-validator run's own checks (COMPONENT=driver|toolkit: nvidia-smi; cuda or plugin
  // without a workload: a status file), an estimate.
  engine::Duration validate_component = engine::Duration::seconds(1);
  // vectorAdd, the init container of both workload pods (an estimate).
  engine::Duration vector_add = engine::Duration::seconds(2);
};

// What the validator's workload pods are made of (validator/manifests/*-workload-validation.yaml
// filled in from the validator DaemonSet): its image and its template's tolerations.
struct GpuValidatorWorkload {
  std::string image;
  std::vector<Toleration> tolerations;
};

class GpuOperatorOperands {
 public:
  // `daemon_sets`: operand DaemonSet name (in namespace `ns`) -> what it runs.
  GpuOperatorOperands(ApiServer& api, Kubelet& kubelet, std::string ns, std::map<std::string, GpuOperand> daemon_sets,
                      bool toolkit_enabled, GpuOperatorTimings timings, GpuValidatorWorkload workload);

  // The operator's ClusterPolicy controller on a node NFD found an NVIDIA PCI device on:
  // nvidia.com/gpu.present and the nvidia.com/gpu.deploy.<operand> labels, only those missing.
  void label_gpu_node(NodeId node);
  // The kubelet asks this before a pod's first start (Kubelet::init_wait).
  bool init_wait(PodId pod);
  void on_started(PodId pod);
  void on_gpus_advertised(NodeId node);
  // The workload pods' container: `echo ... validation is successful` exits at once.
  std::optional<ContainerRun> container_run(PodId pod) const;

 private:
  struct NodeState {
    bool known = false;
    bool host_driver = false;
    bool driver_ready = false;       // host driver, or nvidia-driver-ctr's startup probe passed
    bool toolkit_installed = false;  // toolkit container done, or the host's (toolkit.enabled=false)
    bool toolkit_ready = false;      // /run/nvidia/validations/toolkit-ready
    bool gpus_advertised = false;
    PodId validator{};
    std::string validator_uid;
    int stage = 0;  // validator init containers done
    bool validating = false;
    engine::SimTime plugin_check_began{};  // validateGPUResource's first look at the node
    PodId workload{};                      // the stage's workload pod, once created
    int polls = 0;                         // waitForPod's Gets of it so far
    int failures = 0;                      // the cuda/plugin init container's failed runs
    PodId cuda_pod{}, plugin_pod{};        // the node's last of each (deleted before a new one)
    std::vector<PodId> wait_driver;   // toolkit pods
    std::vector<PodId> wait_toolkit;  // device plugin, GFD, DCGM exporter, MIG manager pods
  };
  GpuOperand operand_of(const Pod& pod) const;
  NodeState& state(NodeId node);
  void release(std::vector<PodId>& pods);
  void validate(NodeId node);
  void stage_done(NodeId node);
  // runWorkload: delete the node's previous pod of that kind, create the new one, poll it.
  void run_workload(NodeId node, bool plugin);
  void poll_workload(NodeId node, PodId pod, std::string validator_uid);
  // The init container exits with an error; the kubelet runs it again after its back-off.
  void validation_failed(NodeId node);
  bool with_workload(const NodeState& s, const char* container, bool def) const;
  bool is_workload_pod(const Pod& pod) const;
  // The validator pod that began a step is still the node's, and alive.
  bool validator_alive(NodeId node, PodId pod, const std::string& uid);
  void driver_preinstalled(NodeId node);

  ApiServer& api_;
  Kubelet& kubelet_;
  std::string ns_;
  std::map<std::string, GpuOperand> daemon_sets_;
  bool toolkit_enabled_;
  GpuOperatorTimings timings_;
  GpuValidatorWorkload workload_;
  bool preinstalled_hint_given_ = false;
  bool starved_hint_given_ = false;
  std::vector<NodeState> nodes_;  // by NodeId slot, reset when a node is added
};

}  // namespace eksim::k8s
