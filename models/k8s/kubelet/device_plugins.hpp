#pragma once
// Device plugins and the node agents around them, recognised by what their pods run, not by how
// they were installed: a DaemonSet pod running the NVIDIA device plugin image advertises
// nvidia.com/gpu whether it came from the project's static manifest (`kubectl apply -f
// nvidia-device-plugin.yml`), a chart the user rendered, eksim's built-in Helm add-on or the GPU
// Operator. The same for the EFA (vpc.amazonaws.com/efa) and Neuron (aws.amazon.com/neuron,
// aws.amazon.com/neuroncore) device plugins, and for the NFD worker, GPU Feature Discovery and the
// GPU Operator's driver and toolkit operands, which the device plugin chain depends on.
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "models/k8s/api/objects.hpp"

namespace eksim::k8s {

// The extended resources these plugins register (aws-efa-k8s-device-plugin; Neuron docs: "The
// device plugin registers two resource types": devices and cores).
inline constexpr std::string_view kEfaResource = "vpc.amazonaws.com/efa";
inline constexpr std::string_view kNeuronResource = "aws.amazon.com/neuron";
inline constexpr std::string_view kNeuronCoreResource = "aws.amazon.com/neuroncore";

enum class AddonRole {
  None,
  NvidiaDevicePlugin,   // nvcr.io/nvidia/k8s-device-plugin running nvidia-device-plugin (the image's default)
  GpuFeatureDiscovery,  // the same image running gpu-feature-discovery, or the older gpu-feature-discovery image
  NfdWorker,            // node-feature-discovery image running nfd-worker
  NvidiaDriver,         // GPU Operator nvcr.io/nvidia/driver
  NvidiaToolkit,        // GPU Operator nvcr.io/nvidia/k8s/container-toolkit
  EfaDevicePlugin,      // aws-efa-k8s-device-plugin (eks/aws-efa-k8s-device-plugin, ECR)
  NeuronDevicePlugin,   // neuron-device-plugin (public.ecr.aws/neuron)
};

// The image's repository name without registry, path and tag: "k8s-device-plugin" for
// "nvcr.io/nvidia/k8s-device-plugin:v0.18.2".
std::string image_repository_name(const std::string& image);

// What the pod's containers run, from their images and commands (init containers, such as the
// chart's config-manager, do not count). The first container that is an agent decides.
AddonRole addon_role(const Pod& pod);
// The container that makes the pod that agent (nullptr when addon_role is None).
const Container* addon_container(const Pod& pod);

// The NVIDIA device plugin's own flags (cmd/nvidia-device-plugin/main.go, urfave/cli): a flag on
// the command line wins over its environment variable, which wins over the default.
struct NvidiaDevicePluginFlags {
  // --fail-on-init-error / FAIL_ON_INIT_ERROR, default true: on a node without NVML (no NVIDIA
  // GPU or driver) the plugin exits with an error (CrashLoopBackOff); false: it logs "No devices
  // found. Waiting indefinitely." and keeps running.
  bool fail_on_init_error = true;
  bool fail_on_init_error_given = false;  // by flag or variable: the config file's flags.failOnInitError is below
  // Every flag of the plugin given on the command line or by one of its variables, by the flag's
  // name (an alias such as --nvidia-driver-root counts as driver-root), as text: what
  // urfave/cli's IsSet sees, which then wins over the config file (api/config/v1/flags.go).
  std::map<std::string, std::string> given;
};
NvidiaDevicePluginFlags nvidia_device_plugin_flags(const Container& c);

// Go's strconv.ParseBool, which urfave/cli uses for boolean flags and their variables.
std::optional<bool> parse_go_bool(const std::string& s);

}  // namespace eksim::k8s
