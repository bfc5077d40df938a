#pragma once
// Reads the NVIDIA device plugin's config file (k8s-device-plugin api/config/v1, YAML or JSON)
// into the part eksim models; installed into the cluster's AddonController at start.
#include <optional>
#include <string>

#include "models/k8s/addons/nvidia/nvidia_plugin_config.hpp"

namespace eksim::scenario {

// The plugin's checks, with its texts as they follow "error parsing config file: " in its exit
// line: "unknown version: v2", or "unmarshal error: error unmarshaling JSON: while decoding
// JSON: " and one of "no resources specified", "no resource name specified", "no replicas
// specified", "number of replicas must be >= 2", or a type mismatch. Keys the plugin does not
// know are ignored, as its non-strict unmarshalling does.
std::optional<k8s::NvidiaPluginConfig> parse_nvidia_plugin_config(const std::string& text, std::string* error);

}  // namespace eksim::scenario
