#include "models/k8s/kubelet/device_plugins.hpp"

#include <algorithm>
#include <vector>

namespace eksim::k8s {

namespace {

std::string basename_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The program a container runs: its command, else (the image's entrypoint) nothing.
std::string program_of(const Container& c) { return c.command.empty() ? "" : basename_of(c.command.front()); }

AddonRole role_of(const Container& c) {
  const std::string repo = image_repository_name(c.image);
  const std::string program = program_of(c);
  if (repo == "k8s-device-plugin") {
    // One image, several programs (the chart's daemonsets pick them by command). Its entrypoint
    // is the device plugin, as the static manifest relies on.
    if (program.empty() || program == "nvidia-device-plugin") return AddonRole::NvidiaDevicePlugin;
    if (program == "gpu-feature-discovery") return AddonRole::GpuFeatureDiscovery;
    return AddonRole::None;  // config-manager sidecars, mps-control-daemon
  }
  if (repo == "gpu-feature-discovery") return AddonRole::GpuFeatureDiscovery;
  if (repo == "node-feature-discovery") return program == "nfd-worker" ? AddonRole::NfdWorker : AddonRole::None;
  if (repo == "aws-efa-k8s-device-plugin") return AddonRole::EfaDevicePlugin;
  if (repo == "neuron-device-plugin") return AddonRole::NeuronDevicePlugin;
  if (repo == "driver" && c.image.find("nvidia/driver") != std::string::npos) return AddonRole::NvidiaDriver;
  if (repo == "container-toolkit" && c.image.find("nvidia/") != std::string::npos) return AddonRole::NvidiaToolkit;
  return AddonRole::None;
}

}  // namespace

std::string image_repository_name(const std::string& image) {
  std::string name = image;
  if (auto at = name.find('@'); at != std::string::npos) name.resize(at);  // digest
  name = basename_of(name);
  if (auto colon = name.find(':'); colon != std::string::npos) name.resize(colon);  // tag
  return name;
}

const Container* addon_container(const Pod& pod) {
  for (const auto& c : pod.spec.containers)
    if (role_of(c) != AddonRole::None) return &c;
  return nullptr;
}

AddonRole addon_role(const Pod& pod) {
  const Container* c = addon_container(pod);
  return c ? role_of(*c) : AddonRole::None;
}

std::optional<bool> parse_go_bool(const std::string& s) {
  if (s == "1" || s == "t" || s == "T" || s == "true" || s == "TRUE" || s == "True") return true;
  if (s == "0" || s == "f" || s == "F" || s == "false" || s == "FALSE" || s == "False") return false;
  return std::nullopt;
}

namespace {

// cmd/nvidia-device-plugin/main.go's flags that have a place in the config (0.17-0.19).
struct PluginFlag {
  const char* name;
  std::vector<const char*> aliases;
  std::vector<const char*> env;  // the first one set wins
  bool boolean = false;
};
const std::vector<PluginFlag>& plugin_flags() {
  static const std::vector<PluginFlag> flags = {
      {"mig-strategy", {}, {"MIG_STRATEGY"}},
      {"fail-on-init-error", {}, {"FAIL_ON_INIT_ERROR"}, true},
      {"driver-root", {"nvidia-driver-root"}, {"NVIDIA_DRIVER_ROOT"}},
      {"dev-root", {"nvidia-dev-root"}, {"NVIDIA_DEV_ROOT"}},
      {"pass-device-specs", {}, {"PASS_DEVICE_SPECS"}, true},
      {"device-list-strategy", {}, {"DEVICE_LIST_STRATEGY"}},
      {"device-id-strategy", {}, {"DEVICE_ID_STRATEGY"}},
      {"gdrcopy-enabled", {}, {"GDRCOPY_ENABLED"}, true},
      {"gds-enabled", {}, {"GDS_ENABLED"}, true},
      {"mofed-enabled", {}, {"MOFED_ENABLED"}, true},
      {"cdi-annotation-prefix", {}, {"CDI_ANNOTATION_PREFIX"}},
      {"nvidia-cdi-hook-path", {"nvidia-ctk-path"}, {"NVIDIA_CDI_HOOK_PATH", "NVIDIA_CTK_PATH"}},
      {"driver-root-ctr-path", {"container-driver-root"}, {"DRIVER_ROOT_CTR_PATH", "CONTAINER_DRIVER_ROOT"}},
      {"mps-root", {}, {"MPS_ROOT"}},
      {"device-discovery-strategy", {}, {"DEVICE_DISCOVERY_STRATEGY"}},
      {"config-file", {}, {"CONFIG_FILE"}},
  };
  return flags;
}

const PluginFlag* plugin_flag(const std::string& name) {
  for (const auto& f : plugin_flags()) {
    if (name == f.name) return &f;
    for (const char* a : f.aliases)
      if (name == a) return &f;
  }
  return nullptr;
}

}  // namespace

NvidiaDevicePluginFlags nvidia_device_plugin_flags(const Container& c) {
  NvidiaDevicePluginFlags f;
  // Variables first: a flag on the command line then overrides them.
  for (const auto& flag : plugin_flags())
    for (const char* var : flag.env) {
      auto e = std::find_if(c.env.begin(), c.env.end(), [&](const EnvVar& v) { return v.name == var; });
      if (e == c.env.end()) continue;
      f.given[flag.name] = e->value;
      break;
    }
  // Arguments after the program: command[1..] then args. Go's flag syntax: -flag, --flag,
  // -flag=value, --flag=value, or the value as the next argument (not for a bool flag).
  std::vector<std::string> argv(c.command.size() > 1 ? c.command.begin() + 1 : c.command.end(), c.command.end());
  argv.insert(argv.end(), c.args.begin(), c.args.end());
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    std::string s = a.rfind("--", 0) == 0 ? a.substr(2) : a.rfind('-', 0) == 0 ? a.substr(1) : std::string();
    if (s.empty()) continue;
    const auto eq = s.find('=');
    const PluginFlag* flag = plugin_flag(s.substr(0, eq));
    if (!flag) continue;
    if (eq != std::string::npos) f.given[flag->name] = s.substr(eq + 1);
    else if (flag->boolean) f.given[flag->name] = "true";
    else if (i + 1 < argv.size()) f.given[flag->name] = argv[++i];
  }
  if (auto it = f.given.find("fail-on-init-error"); it != f.given.end())
    if (auto b = parse_go_bool(it->second)) {
      f.fail_on_init_error = *b;
      f.fail_on_init_error_given = true;
    }
  return f;
}

}  // namespace eksim::k8s
