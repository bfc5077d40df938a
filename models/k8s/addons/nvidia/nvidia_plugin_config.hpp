#pragma once
// The NVIDIA device plugin's config file (k8s-device-plugin api/config/v1) and where a plugin
// pod finds it: time-slicing replicas, renameByDefault, failRequestsGreaterThanOne and
// flags.failOnInitError. The file is YAML, parsed above the models layer (the scenario layer
// installs the parser); the models decide what a parsed config does to the node.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/k8s/api/objects.hpp"

namespace eksim::k8s {

class ApiServer;

struct NvidiaPluginConfig {
  // sharing.timeSlicing.resources[] (sharing.mps.resources[] wins when set). The plugin ignores
  // `rename` and `devices` ("not yet supported in the config"): renameByDefault is the only
  // renaming, to "<name>.shared".
  struct Replicated {
    std::string name;  // "nvidia.com/gpu" ("gpu" is completed with the nvidia.com/ prefix)
    int replicas = 1;  // >= 2 (the parser refuses less)
  };
  std::vector<Replicated> time_slicing;
  bool rename_by_default = false;
  bool fail_requests_greater_than_one = false;
  bool mps = false;  // sharing.mps: needs the MPS control daemon, not modelled (nothing shared)
  std::vector<Replicated> mps_resources;  // sharing.mps.resources[], kept for the plugin's config dump
  bool mps_rename_by_default = false;
  std::optional<bool> fail_on_init_error;  // flags.failOnInitError (below the flag and its env)
  // The file's other flags as written, by their JSON path ("migStrategy",
  // "plugin.deviceIDStrategy"; a deviceListStrategy list joined with commas): the plugin keeps
  // them unless a flag or its variable is given, and prints them in its "Running with config".
  std::map<std::string, std::string> flags;
};

// Text -> config, or nullopt with *error set to the plugin's own text (after "error parsing config file: ").
using NvidiaPluginConfigParser = std::function<std::optional<NvidiaPluginConfig>(const std::string&, std::string*)>;

// The resource the plugin registers for a node's `gpus` full GPUs under `config` and how many:
// nvidia.com/gpu x gpus without sharing; x replicas with time-slicing; named
// nvidia.com/gpu.shared under renameByDefault.
struct AdvertisedGpus {
  std::string resource;
  int count = 0;
  bool shared = false;  // replicas: Allocate may refuse requests greater than one
};
AdvertisedGpus advertised_gpus(const NvidiaPluginConfig& config, int gpus);

// The plugin's Allocate check (internal/rm/rm.go ValidateRequest) for a container asking
// `requested` shared devices: nullopt or the plugin's error, e.g. `invalid allocation request
// for "nvidia.com/gpu": invalid request: maximum request size for shared resources is 1; found 2`.
std::optional<std::string> validate_allocation(const NvidiaPluginConfig& config, const AdvertisedGpus& advertised,
                                               std::int64_t requested);

// The config file a plugin pod's container reads on `node`, found as the container finds it:
// its --config-file flag or CONFIG_FILE variable names a path; a config-manager container in the
// pod (the Helm chart's and the GPU Operator's) fills that path from the ConfigMap mounted at its
// CONFIG_FILE_SRCDIR, picking the key named by the node's label (NODE_LABEL, by default
// nvidia.com/device-plugin.config), else DEFAULT_CONFIG, else its fallback strategies (a key
// named "default", or the only key); otherwise the path lies in a configMap volume the container
// mounts, the file being the key under the mount path. nullopt: no config file (defaults), or
// the ConfigMap or key is not there (eksim does not model the kubelet's FailedMount or the
// config-manager's errors; the plugin then runs on its defaults).
std::optional<std::string> nvidia_plugin_config_text(const ApiServer& api, const Pod& pod, const Container& plugin,
                                                     const Labels& node_labels);

// What the Helm chart (and the GPU Operator) add to the plugin's and GFD's pods when a config
// ConfigMap is given (templates/daemonset-device-plugin.yml, hasConfigMap): the
// config-manager init container (ONESHOT) and sidecar with NODE_LABEL, CONFIG_FILE_SRCDIR,
// CONFIG_FILE_DST, DEFAULT_CONFIG and FALLBACK_STRATEGIES, the ConfigMap mounted at
// /available-configs, and CONFIG_FILE=/config/config.yaml for the program (spec's first
// container, the plugin or GFD).
void add_config_manager(PodSpec& spec, const std::string& image, const std::string& config_map,
                        const std::string& default_config, const std::string& fallback_strategies,
                        const std::string& init_name, const std::string& sidecar_name);

}  // namespace eksim::k8s
