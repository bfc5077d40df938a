#pragma once
// Helm-installed GPU add-ons as the DaemonSets their charts create with default values, plus the
// behaviour of their pods once Running: NFD workers label nodes that have an NVIDIA PCI device
// (feature.node.kubernetes.io/pci-10de.present=true), GPU Feature Discovery labels
// nvidia.com/gpu.present=true, and the device plugin makes the kubelet advertise
// nvidia.com/gpu (capacity and allocatable) on GPU nodes.
//
// Values are flattened Helm paths (what `helm --set` takes), the scenario loader produces them:
//   "gfd.enabled" = "true"
//   "tolerations[0].key" = "nvidia.com/gpu", "tolerations[0].operator" = "Equal",
//   "tolerations[0].value" = "present", "tolerations[0].effect" = "NoSchedule",
//   "tolerations[0].tolerationSeconds" = "300"
//   "nodeSelector.<label key>" = "<value>"   (everything after "nodeSelector." is the label key)
//   "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
//      .matchExpressions[0].key|operator|values[0]"
//   "affinity" = "null" (or "{}") removes the chart's default affinity.
// A list or map given at all replaces the chart default entirely, as Helm does with --set/-f.
// Subchart values keep their prefix: "nfd.worker.tolerations[0].key" (device plugin chart),
// "node-feature-discovery.worker.tolerations[0].key" (GPU Operator), "worker.tolerations[..]"
// (the NFD chart itself).
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/k8s/api/api_server.hpp"
#include "models/k8s/kubelet/device_plugins.hpp"
#include "models/k8s/addons/nvidia/nvidia_device_plugin_log.hpp"
#include "models/k8s/addons/nvidia/nvidia_plugin_config.hpp"
#include "models/k8s/addons/nvidia/gpu_operator.hpp"

namespace eksim::k8s {

class Kubelet;
class DaemonSetController;
class DeploymentController;
struct ContainerRun;

using FlatValues = std::map<std::string, std::string>;

// Which program a chart's DaemonSet runs (its container's name, command and image follow the
// chart); the pods' behaviour then comes from device_plugins.hpp, as for any other manifest.
inline constexpr const char* kRoleDevicePlugin = "device-plugin";
inline constexpr const char* kRoleNfdWorker = "nfd-worker";
inline constexpr const char* kRoleGfd = "gpu-feature-discovery";
inline constexpr const char* kRoleDriver = "driver";
inline constexpr const char* kRoleToolkit = "toolkit";
inline constexpr const char* kRoleOther = "other";

inline constexpr const char* kLabelPci10de = "feature.node.kubernetes.io/pci-10de.present";
inline constexpr const char* kLabelGpuPresent = "nvidia.com/gpu.present";

// Chart names accepted: nvidiaDevicePlugin, nodeFeatureDiscovery, gpuOperator. Throws
// std::invalid_argument for an unknown add-on.
std::vector<DaemonSet> build_addon_daemonsets(const std::string& addon, const std::string& version,
                                              const FlatValues& values, const std::string& release,
                                              const std::string& ns);

// The nvidia-device-plugin chart's config values: `config.map.<name>` (each a config file's
// text), `config.name` (an existing ConfigMap), `config.default`, `config.fallbackStrategies`.
std::string device_plugin_chart_fullname(const std::string& release);
// The plugin container's variables from the chart's values (failOnInitError, migStrategy, ...).
std::vector<EnvVar> device_plugin_chart_env(const FlatValues& values, bool has_config_map);
std::map<std::string, std::string> device_plugin_config_map_data(const FlatValues& values);
// The ConfigMap the chart mounts: config.name, else "<fullname>-configs" when config.map is set.
std::string device_plugin_config_map(const FlatValues& values, const std::string& release);

// Helpers shared with tests and the scenario loader.
std::vector<Toleration> parse_tolerations(const FlatValues& values, const std::string& prefix);
std::optional<Affinity> parse_affinity(const FlatValues& values, const std::string& prefix);

// What the kubelet reports once an NVIDIA device plugin has registered on the node: nvidia.com/gpu
// in capacity and allocatable, as many as the machine has (kAnnotationGpuCount). Used by the
// DaemonSet plugin below and by node images that run the plugin themselves (EKS Auto Mode).
// Returns false when the node has no GPU or already advertises them.
bool advertise_gpus(ApiServer& api, NodeId node);
// The same for any device plugin: `resource` = the count the node's hardware annotation holds.
bool advertise_devices(ApiServer& api, NodeId node, std::string_view resource, const char* count_annotation);
// `count` of `resource` (a device plugin that shares its devices registers replicas).
bool advertise_count(ApiServer& api, NodeId node, std::string_view resource, int count);

struct AddonTimings {
  // NFD worker start -> labels on the node (worker sends features, nfd-master patches the node).
  engine::Duration nfd_label_delay = engine::Duration::seconds(2);
  // Device plugin start -> nvidia.com/gpu in the node status: the plugin registers at once, the
  // kubelet reports it with its next node status update (nodeStatusUpdateFrequency 10 s; half
  // on average).
  engine::Duration device_plugin_delay = engine::Duration::seconds(5);
  // NVIDIA device plugin start -> exit 1 on a node without NVML when --fail-on-init-error
  // (default): it loads its config and fails at once ("Incompatible strategy detected auto",
  // then "invalid device discovery strategy", ~22 ms after its first line in real logs, as
  // nvidia_device_plugin_log.cpp writes them); the kubelet restarts it with back-off.
  engine::Duration device_plugin_init_failure = engine::Duration::millis(22);
};

class AddonController {
 public:
  // `deployments`: where the GPU Operator chart's Deployments go (the operator, NFD master and
  // gc); without it only the charts' DaemonSets are installed.
  AddonController(ApiServer& api, DaemonSetController& daemon_sets, Kubelet& kubelet, AddonTimings timings = {},
                  DeploymentController* deployments = nullptr);
  // Builds the chart's DaemonSets (and the GPU Operator's Deployments) and applies them; returns
  // the DaemonSets' indexes in api.daemon_sets().
  std::vector<std::size_t> install(const std::string& addon, const std::string& version, const FlatValues& values,
                                   std::string release = {}, std::string ns = {});

  // Reads the NVIDIA device plugin's config file (YAML); installed by the scenario layer. Unset:
  // plugins run on their defaults whatever their config says.
  NvidiaPluginConfigParser parse_plugin_config;

  // How the NVIDIA device plugin container of `pod` starts on its node (its flags, its config or
  // why that does not parse, NVML there or not), for its log; nullopt for other pods.
  std::optional<NvidiaDevicePluginRun> nvidia_device_plugin_start(PodId pod) const;

 private:
  void on_started(PodId pod);
  void try_advertise(NodeId node);
  std::optional<ContainerRun> device_plugin_run(PodId pod) const;
  // The config the NVIDIA plugin (or GFD) container of `pod` runs with; nullopt with *error set
  // when its file does not parse (the plugin then exits 1).
  std::optional<NvidiaPluginConfig> plugin_config(const PodRecord& rec, const Container& c, std::string* error) const;
  std::optional<std::string> allocate(PodId pod) const;

  ApiServer& api_;
  DaemonSetController& daemon_sets_;
  Kubelet& kubelet_;
  AddonTimings timings_;
  DeploymentController* deployments_;
  std::unique_ptr<GpuOperatorOperands> gpu_operator_;  // set once the GPU Operator is installed
  // Nodes whose plugin shares its GPUs and refuses requests greater than one (Allocate's check).
  std::map<NodeId, std::pair<NvidiaPluginConfig, AdvertisedGpus>> strict_sharing_;
};

}  // namespace eksim::k8s
