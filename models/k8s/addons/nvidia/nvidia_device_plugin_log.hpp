#pragma once
// What the NVIDIA device plugin prints in one run, as `kubectl logs` shows it: klog lines from
// cmd/nvidia-device-plugin/main.go's start() and startPlugins(), with the file:line of the image's
// release (0.17.0-0.19.3, read from each tag), then one of three endings:
//   - a config file that does not parse, or flags validateFlags refuses: the exit line after
//     "Loading configuration.";
//   - no NVML on the node (no NVIDIA GPU or driver) under the default discovery strategy: the
//     five "Incompatible strategy detected auto" lines of internal/plugin/factory.go, then the
//     exit line "error starting plugins: ... invalid device discovery strategy" (or, with
//     failOnInitError false, "No devices found. Waiting indefinitely.");
//   - a GPU node: the gRPC server starts, registers with the kubelet, and health checks begin
//     (under the tegra strategy, which finds nothing on EC2: "No devices found").
#include <cstdint>
#include <optional>
#include <string>

#include "models/k8s/kubelet/device_plugins.hpp"
#include "models/k8s/addons/nvidia/nvidia_plugin_config.hpp"

namespace eksim::k8s {

struct NvidiaDevicePluginRun {
  std::string image_tag;          // "v0.18.2": picks the release's line numbers and build commit
  NvidiaDevicePluginFlags flags;  // from the container's arguments and variables
  std::optional<NvidiaPluginConfig> config;  // nullopt: the file did not parse (config_error)
  std::string config_error;       // what follows "error parsing config file: "
  bool nvml = false;              // an NVIDIA GPU and its driver on the node
  AdvertisedGpus advertised;      // what the plugin registers on a GPU node
};

// The device discovery strategy the run resolves to ("auto", "nvml", "tegra", or what was given)
// and validateFlags' refusal of the run's flags (main.go: an unknown discovery strategy, MIG
// strategy or device id strategy), which ends the plugin on any node.
std::string nvidia_device_plugin_discovery_strategy(const NvidiaDevicePluginRun& run);
std::optional<std::string> nvidia_device_plugin_flags_error(const NvidiaDevicePluginRun& run);

// How the run ends, which the log's last lines tell: it exits 1 (a config that does not parse,
// refused flags, no NVML with failOnInitError), waits with nothing to serve (no NVML without
// failOnInitError; the tegra strategy, which finds no devices on EC2), or serves the GPUs.
enum class NvidiaDevicePluginOutcome { Exits, Waits, Serves };
NvidiaDevicePluginOutcome nvidia_device_plugin_outcome(const NvidiaDevicePluginRun& run);

// The whole log of a run started at `unix_us` (microseconds since the epoch, UTC).
std::string nvidia_device_plugin_log(const NvidiaDevicePluginRun& run, std::int64_t unix_us);

// The config the plugin prints after "Running with config:" (json.MarshalIndent of its
// api/config/v1 Config once the flags, the file and the defaults are merged).
std::string nvidia_device_plugin_config_json(const NvidiaDevicePluginRun& run);

}  // namespace eksim::k8s
