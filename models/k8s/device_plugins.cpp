#include "models/k8s/device_plugins.hpp"

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

NvidiaDevicePluginFlags nvidia_device_plugin_flags(const Container& c) {
  NvidiaDevicePluginFlags f;
  for (const auto& e : c.env)
    if (e.name == "FAIL_ON_INIT_ERROR")
      if (auto b = parse_go_bool(e.value)) {
        f.fail_on_init_error = *b;
        f.fail_on_init_error_given = true;
      }
  // Arguments after the program: command[1..] then args. Go's flag syntax: -flag, --flag,
  // -flag=value, --flag=value (a bool flag takes no separate value).
  std::vector<std::string> argv(c.command.size() > 1 ? c.command.begin() + 1 : c.command.end(), c.command.end());
  argv.insert(argv.end(), c.args.begin(), c.args.end());
  for (const auto& a : argv) {
    std::string s = a.rfind("--", 0) == 0 ? a.substr(2) : a.rfind('-', 0) == 0 ? a.substr(1) : std::string();
    const std::string flag = "fail-on-init-error";
    if (s == flag) {
      f.fail_on_init_error = true;
      f.fail_on_init_error_given = true;
    } else if (s.rfind(flag + "=", 0) == 0) {
      if (auto b = parse_go_bool(s.substr(flag.size() + 1))) {
        f.fail_on_init_error = *b;
        f.fail_on_init_error_given = true;
      }
    }
  }
  return f;
}

}  // namespace eksim::k8s
