#include "models/k8s/addons/nvidia/nvidia_plugin_config.hpp"

#include <algorithm>
#include <sstream>

#include "models/k8s/api/api_server.hpp"

namespace eksim::k8s {

namespace {

const std::string kGpu = "nvidia.com/gpu";

std::string program_of(const Container& c) {
  if (c.command.empty()) return {};
  const std::string& p = c.command.front();
  auto slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// urfave/cli string flag: --name=value, --name value (also with one dash); wins over its variable.
std::string flag_value(const Container& c, const std::string& name, const std::string& env) {
  std::vector<std::string> argv(c.command.size() > 1 ? c.command.begin() + 1 : c.command.end(), c.command.end());
  argv.insert(argv.end(), c.args.begin(), c.args.end());
  std::optional<std::string> found;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    std::string s = a.rfind("--", 0) == 0 ? a.substr(2) : a.rfind('-', 0) == 0 ? a.substr(1) : std::string();
    if (s == name && i + 1 < argv.size()) found = argv[i + 1];
    else if (s.rfind(name + "=", 0) == 0) found = s.substr(name.size() + 1);
  }
  return found ? *found : env_of(c, env);
}

// The configMap volume `c` mounts at `dir` (exactly), as "ns/name" of the ConfigMap.
std::optional<std::string> config_map_at(const Pod& pod, const Container& c, const std::string& dir) {
  for (const auto& m : c.volume_mounts) {
    std::string path = m.mount_path;
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    if (path != dir) continue;
    for (const auto& v : pod.spec.volumes)
      if (v.name == m.name && v.source == "configMap" && !v.config_map.empty()) return pod.meta.ns + "/" + v.config_map;
  }
  return std::nullopt;
}

const std::map<std::string, std::string>* config_map(const ApiServer& api, const std::string& key) {
  auto it = api.config_maps().find(key);
  return it == api.config_maps().end() ? nullptr : &it->second;
}

std::vector<std::string> split_nonempty_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// cmd/config-manager updateConfigName: the node label's value, DEFAULT_CONFIG, then the
// fallbacks in order ("named": a key "default"; "single": the only key; "empty": no config).
std::optional<std::string> config_manager_choice(const Container& cm, const std::map<std::string, std::string>& data,
                                                 const Labels& node_labels) {
  std::string label = env_of(cm, "NODE_LABEL");
  if (label.empty()) label = "nvidia.com/device-plugin.config";
  if (auto it = node_labels.find(label); it != node_labels.end() && !it->second.empty())
    return data.count(it->second) ? std::optional(it->second) : std::nullopt;
  if (std::string def = env_of(cm, "DEFAULT_CONFIG"); !def.empty())
    return data.count(def) ? std::optional(def) : std::nullopt;
  std::string fallbacks = env_of(cm, "FALLBACK_STRATEGIES");
  for (const auto& f : split_nonempty_commas(fallbacks.empty() ? "named,single" : fallbacks)) {
    if (f == "named" && data.count("default")) return std::string("default");
    if (f == "single" && data.size() == 1) return data.begin()->first;
    if (f == "empty") return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

AdvertisedGpus advertised_gpus(const NvidiaPluginConfig& config, int gpus) {
  AdvertisedGpus out{kGpu, gpus, false};
  if (config.mps) return out;
  for (const auto& r : config.time_slicing) {
    if (r.name != kGpu || r.replicas < 2) continue;
    out.count = gpus * r.replicas;
    out.shared = true;
    if (config.rename_by_default) out.resource = kGpu + ".shared";
  }
  return out;
}

std::optional<std::string> validate_allocation(const NvidiaPluginConfig& config, const AdvertisedGpus& advertised,
                                               std::int64_t requested) {
  if (!advertised.shared || !config.fail_requests_greater_than_one || requested <= 1) return std::nullopt;
  return "invalid allocation request for \"" + advertised.resource +
         "\": invalid request: maximum request size for shared resources is 1; found " + std::to_string(requested);
}

std::optional<std::string> nvidia_plugin_config_text(const ApiServer& api, const Pod& pod, const Container& plugin,
                                                     const Labels& node_labels) {
  const std::string file = flag_value(plugin, "config-file", "CONFIG_FILE");
  if (file.empty()) return std::nullopt;
  auto slash = file.rfind('/');
  const std::string dir = slash == std::string::npos || slash == 0 ? "/" : file.substr(0, slash);
  const std::string key = slash == std::string::npos ? file : file.substr(slash + 1);
  // A config-manager (init or sidecar) that writes this file.
  auto manager = [&](const std::vector<Container>& list) -> const Container* {
    for (const auto& c : list)
      if (program_of(c) == "config-manager" && env_of(c, "CONFIG_FILE_DST") == file) return &c;
    return nullptr;
  };
  const Container* cm = manager(pod.spec.init_containers);
  if (!cm) cm = manager(pod.spec.containers);
  if (cm) {
    auto source = config_map_at(pod, *cm, env_of(*cm, "CONFIG_FILE_SRCDIR"));
    const auto* data = source ? config_map(api, *source) : nullptr;
    if (!data) return std::nullopt;
    auto choice = config_manager_choice(*cm, *data, node_labels);
    if (!choice) return std::nullopt;
    return data->at(*choice);
  }
  auto source = config_map_at(pod, plugin, dir);
  const auto* data = source ? config_map(api, *source) : nullptr;
  if (!data) return std::nullopt;
  auto it = data->find(key);
  if (it == data->end()) return std::nullopt;
  return it->second;
}

void add_config_manager(PodSpec& spec, const std::string& image, const std::string& config_map,
                        const std::string& default_config, const std::string& fallback_strategies,
                        const std::string& init_name, const std::string& sidecar_name) {
  const std::string dst = "/config/config.yaml";
  auto manager = [&](const std::string& name, bool oneshot) {
    Container c;
    c.name = name;
    c.image = image;
    c.command = {"config-manager"};
    if (oneshot) c.env.push_back({"ONESHOT", "true"});
    c.env.push_back({"NODE_LABEL", "nvidia.com/device-plugin.config"});
    c.env.push_back({"CONFIG_FILE_SRCDIR", "/available-configs"});
    c.env.push_back({"CONFIG_FILE_DST", dst});
    c.env.push_back({"DEFAULT_CONFIG", default_config});
    c.env.push_back({"FALLBACK_STRATEGIES", fallback_strategies});
    c.volume_mounts = {{"available-configs", "/available-configs"}, {"config", "/config"}};
    return c;
  };
  if (spec.containers.empty()) return;
  Container& program = spec.containers.mut().front();
  // The chart's template already lists it among the program's variables.
  if (std::none_of(program.env.begin(), program.env.end(), [](const EnvVar& e) { return e.name == "CONFIG_FILE"; }))
    program.env.push_back({"CONFIG_FILE", dst});
  program.volume_mounts.push_back({"available-configs", "/available-configs"});
  program.volume_mounts.push_back({"config", "/config"});
  spec.init_containers.push_back(manager(init_name, true));
  // The chart lists the sidecar first; eksim's kubelet follows a pod's first container through
  // exits and restarts (BackOff names it), and the program is what exits, so it stays first.
  spec.containers.push_back(manager(sidecar_name, false));
  spec.volumes.push_back({"available-configs", "configMap", config_map});
  spec.volumes.push_back({"config", "emptyDir", ""});
}

}  // namespace eksim::k8s
