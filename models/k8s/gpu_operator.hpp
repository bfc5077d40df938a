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
//                                      (needs nvidia.com/gpu allocatable), then Running
//   device plugin, GFD, DCGM exporter, MIG manager
//                                      init toolkit-validation: `until [ -f
//                                      /run/nvidia/validations/toolkit-ready ]`
//
// So nvidia.com/gpu appears only after the driver is ready and the validator has validated the
// driver and the toolkit, and the validator itself turns Running only once the plugin advertises.
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
#include <string>
#include <vector>

#include "models/k8s/api_server.hpp"

namespace eksim::k8s {

class Kubelet;

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
  // The validator's init containers (nvidia-validator COMPONENT=driver|toolkit|cuda|plugin):
  // nvidia-smi twice, a CUDA sample pod, then the plugin check (estimates).
  engine::Duration validate_driver = engine::Duration::seconds(1);
  engine::Duration validate_toolkit = engine::Duration::seconds(1);
  engine::Duration validate_cuda = engine::Duration::seconds(10);
  engine::Duration validate_plugin = engine::Duration::seconds(5);
};

class GpuOperatorOperands {
 public:
  // `daemon_sets`: operand DaemonSet name (in namespace `ns`) -> what it runs.
  GpuOperatorOperands(ApiServer& api, Kubelet& kubelet, std::string ns, std::map<std::string, GpuOperand> daemon_sets,
                      bool toolkit_enabled, GpuOperatorTimings timings);

  // The operator's ClusterPolicy controller on a node NFD found an NVIDIA PCI device on:
  // nvidia.com/gpu.present and the nvidia.com/gpu.deploy.<operand> labels, only those missing.
  void label_gpu_node(NodeId node);
  // The kubelet asks this before a pod's first start (Kubelet::init_wait).
  bool init_wait(PodId pod);
  void on_started(PodId pod);
  void on_gpus_advertised(NodeId node);

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
    std::vector<PodId> wait_driver;   // toolkit pods
    std::vector<PodId> wait_toolkit;  // device plugin, GFD, DCGM exporter, MIG manager pods
  };
  GpuOperand operand_of(const Pod& pod) const;
  NodeState& state(NodeId node);
  void release(std::vector<PodId>& pods);
  void validate(NodeId node);
  void driver_preinstalled(NodeId node);

  ApiServer& api_;
  Kubelet& kubelet_;
  std::string ns_;
  std::map<std::string, GpuOperand> daemon_sets_;
  bool toolkit_enabled_;
  GpuOperatorTimings timings_;
  bool preinstalled_hint_given_ = false;
  std::vector<NodeState> nodes_;  // by NodeId slot, reset when a node is added
};

}  // namespace eksim::k8s
