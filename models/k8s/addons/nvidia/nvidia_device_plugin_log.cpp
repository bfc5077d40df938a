#include "models/k8s/addons/nvidia/nvidia_device_plugin_log.hpp"

#include <fmt/format.h>

#include <array>
#include <ctime>
#include <vector>

namespace eksim::k8s {

namespace {

// Where each line is printed in a release (git show <tag>:cmd/nvidia-device-plugin/main.go,
// internal/plugin/factory.go, internal/plugin/server.go, internal/rm/health.go), and the commit
// the tag points at: the image prints its first eight characters as the version
// ("Starting NVIDIA Device Plugin" version=<3c9ffca9 ... > in v0.18.0's real log).
struct Release {
  std::array<int, 3> version;
  const char* commit;
  int start, fs_watcher, os_watcher, starting_plugins, loading_config, updating_config, running_with_config,
      retrieving_plugins, exit, no_devices;
  int incompatible_strategy, nvml_init_failed;  // factory.go: the first of five lines each
  int grpc_server, starting_to_serve, registered;  // server.go
  int ignoring_xids;                               // health.go; 0: the release does not print it
  bool gdrcopy;                                    // flags.gdrcopyEnabled exists (0.18+)
};

constexpr Release kReleases[] = {
    {{0, 17, 0}, "d475b2cfcf12b983a4975d4fc59d91af432cf28e", 235, 238, 245, 260, 317, 342, 353, 356, 173, 381, 112, 93, 195, 139, 146, 0, false},
    {{0, 17, 1}, "3c378193fcebf6e955f0d65bd6f2aeed099ad8ea", 235, 238, 245, 260, 317, 342, 353, 356, 173, 381, 112, 93, 195, 139, 146, 0, false},
    {{0, 17, 2}, "390b1f6ae7b4301e65cf1744ccbbb8b0d0b1cc77", 235, 238, 245, 260, 317, 342, 353, 356, 173, 381, 112, 93, 195, 139, 146, 0, false},
    {{0, 17, 3}, "e0a461e1e7ad1d239d4708c954f08c3038e2654a", 235, 238, 245, 260, 317, 342, 353, 356, 173, 381, 112, 93, 195, 139, 146, 0, false},
    {{0, 17, 4}, "fd56a747defe15333adce40fcd3a06ffb129251b", 235, 238, 245, 260, 317, 342, 353, 356, 173, 381, 112, 93, 195, 139, 146, 0, false},
    {{0, 18, 0}, "3c9ffca9491f0d2d362a7064138dfcd71bb57592", 239, 242, 249, 264, 321, 346, 357, 360, 177, 385, 113, 94, 197, 141, 148, 64, true},
    {{0, 18, 1}, "dfcf72838b8839c7a0fd9bc9d21fe8d46bed2111", 244, 247, 254, 269, 326, 352, 363, 366, 182, 391, 113, 94, 197, 141, 148, 64, true},
    {{0, 18, 2}, "fb1242add205d8563f9c604b8ba239607b4083e6", 247, 250, 257, 272, 329, 355, 366, 369, 185, 394, 113, 94, 197, 141, 148, 64, true},
    {{0, 19, 0}, "1ae8e5f02a47ad80e2b4fcc6c35a757c61ddd81f", 250, 253, 260, 275, 332, 358, 369, 372, 188, 397, 113, 94, 198, 142, 149, 64, true},
    {{0, 19, 1}, "b24f243ba9183df5727f38e758d968c7e6f91014", 250, 253, 260, 275, 332, 358, 369, 372, 188, 397, 118, 99, 198, 142, 149, 64, true},
    {{0, 19, 2}, "5939c7a14ed94eb6c848cb3ace75561fc6f5dd92", 250, 253, 260, 275, 332, 358, 369, 372, 188, 397, 118, 99, 198, 142, 149, 64, true},
    {{0, 19, 3}, "570e776d6813cb9f3e9c8c105cf8d79989db6650", 247, 250, 257, 272, 329, 355, 366, 369, 185, 394, 118, 99, 198, 142, 149, 64, true},
};

// "v0.18.2" -> {0, 18, 2}; missing parts are 0.
std::array<int, 3> parse_version(const std::string& tag) {
  std::array<int, 3> v{};
  std::size_t i = tag.rfind('v', 0) == 0 ? 1 : 0;
  for (int part = 0; part < 3 && i < tag.size(); ++part) {
    int n = 0;
    while (i < tag.size() && tag[i] >= '0' && tag[i] <= '9') n = n * 10 + (tag[i++] - '0');
    v[part] = n;
    if (i < tag.size() && tag[i] == '.') ++i;
    else break;
  }
  return v;
}

// The release itself, else the newest one before it (a patch release moves few lines), else the
// oldest known.
const Release& release_of(const std::string& tag) {
  const auto v = parse_version(tag);
  const Release* best = &kReleases[0];
  for (const auto& r : kReleases)
    if (r.version <= v) best = &r;
  return *best;
}

// klog's header: "I1127 19:57:44.123456       1 main.go:247] " (severity, month and day,
// wall time to the microsecond, the thread id, which is the container's PID 1, file:line).
std::string klog_header(char severity, std::int64_t unix_us, const char* file, int line) {
  std::time_t t = static_cast<std::time_t>(unix_us / 1000000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{}{:02}{:02} {:02}:{:02}:{:02}.{:06} {:>7} {}:{}] ", severity, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, unix_us % 1000000, 1, file, line);
}

// encoding/json's string: quotes, backslashes and control characters escaped, and <, > and &
// as \u003c, \u003e, \u0026 (its HTML-safe default).
std::string go_json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default:
        if (ch < 0x20) out += fmt::format("\\u{:04x}", ch);
        else out += static_cast<char>(ch);
    }
  }
  return out + "\"";
}

// json.MarshalIndent(v, "", "  ") of nested objects and arrays, built member by member.
class IndentedJson {
 public:
  std::string str() && { return std::move(out_); }
  void open(const std::string& key, char bracket) {
    member(key);
    out_ += bracket;
    firsts_.push_back(true);
  }
  void close(char bracket) {
    const bool empty = firsts_.back();
    firsts_.pop_back();
    if (!empty) newline();
    out_ += bracket;
  }
  void value(const std::string& key, const std::string& raw) {
    member(key);
    out_ += raw;
  }

 private:
  void member(const std::string& key) {
    if (firsts_.empty()) return;  // the top-level value
    if (!firsts_.back()) out_ += ',';
    firsts_.back() = false;
    newline();
    if (!key.empty()) out_ += go_json_string(key) + ": ";
  }
  void newline() { out_ += '\n' + std::string(2 * firsts_.size(), ' '); }
  std::string out_;
  std::vector<bool> firsts_;
};

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (true) {
    auto comma = s.find(',', pos);
    out.push_back(s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (comma == std::string::npos) return out;
    pos = comma + 1;
  }
}

// A flag's value: given by flag or variable, else the file's, else the CLI default
// (api/config/v1/flags.go updateFromCLIFlag: every flag of the plugin ends up set).
struct Merged {
  const NvidiaDevicePluginRun& run;
  std::optional<std::string> lookup(const char* cli, const char* json) const {
    if (auto it = run.flags.given.find(cli); it != run.flags.given.end()) return it->second;
    if (run.config)
      if (auto it = run.config->flags.find(json); it != run.config->flags.end()) return it->second;
    return std::nullopt;
  }
  std::string text(const char* cli, const char* json, const char* def) const { return lookup(cli, json).value_or(def); }
  std::string quoted(const char* cli, const char* json, const char* def) const { return go_json_string(text(cli, json, def)); }
  std::string boolean(const char* cli, const char* json, bool def) const {
    auto v = lookup(cli, json);
    const bool b = v ? parse_go_bool(*v).value_or(false) : def;
    return b ? "true" : "false";
  }
};

void replicated(IndentedJson& j, const char* key, bool rename_by_default, bool fail_requests_greater_than_one,
                const std::vector<NvidiaPluginConfig::Replicated>& resources) {
  j.open(key, '{');
  if (rename_by_default) j.value("renameByDefault", "true");
  if (fail_requests_greater_than_one) j.value("failRequestsGreaterThanOne", "true");
  if (!resources.empty()) {
    j.open("resources", '[');
    for (const auto& r : resources) {
      j.open("", '{');
      j.value("name", go_json_string(r.name));
      // DisableResourceNamingInConfig: renames only by default, devices always "all".
      if (rename_by_default) j.value("rename", go_json_string(r.name + ".shared"));
      j.value("devices", "\"all\"");
      j.value("replicas", std::to_string(r.replicas));
      j.close('}');
    }
    j.close(']');
  }
  j.close('}');
}

bool fails_on_init_error(const NvidiaDevicePluginRun& run) {
  if (run.flags.fail_on_init_error_given) return run.flags.fail_on_init_error;
  return run.config && run.config->fail_on_init_error ? *run.config->fail_on_init_error : true;
}

}  // namespace

std::string nvidia_device_plugin_discovery_strategy(const NvidiaDevicePluginRun& run) {
  return Merged{run}.text("device-discovery-strategy", "deviceDiscoveryStrategy", "auto");
}

std::optional<std::string> nvidia_device_plugin_flags_error(const NvidiaDevicePluginRun& run) {
  const Merged m{run};
  const std::string id = m.text("device-id-strategy", "plugin.deviceIDStrategy", "uuid");
  if (id != "uuid" && id != "index") return "invalid --device-id-strategy option: " + id;
  const std::string discovery = nvidia_device_plugin_discovery_strategy(run);
  if (discovery != "auto" && discovery != "nvml" && discovery != "tegra")
    return "invalid --device-discovery-strategy option " + discovery;
  const std::string mig = m.text("mig-strategy", "migStrategy", "none");
  if (mig != "none" && mig != "single" && mig != "mixed") return "unknown MIG strategy: " + mig;
  return std::nullopt;
}

NvidiaDevicePluginOutcome nvidia_device_plugin_outcome(const NvidiaDevicePluginRun& run) {
  // The config is loaded and the flags validated first, on any node.
  if (!run.config || nvidia_device_plugin_flags_error(run)) return NvidiaDevicePluginOutcome::Exits;
  if (nvidia_device_plugin_discovery_strategy(run) == "tegra") return NvidiaDevicePluginOutcome::Waits;
  if (run.nvml) return NvidiaDevicePluginOutcome::Serves;
  return fails_on_init_error(run) ? NvidiaDevicePluginOutcome::Exits : NvidiaDevicePluginOutcome::Waits;
}

std::string nvidia_device_plugin_config_json(const NvidiaDevicePluginRun& run) {
  const Release& rel = release_of(run.image_tag);
  const Merged m{run};
  IndentedJson j;
  j.open("", '{');
  j.value("version", "\"v1\"");
  j.open("flags", '{');
  const std::string mig = m.text("mig-strategy", "migStrategy", "none");
  j.value("migStrategy", go_json_string(mig));
  j.value("failOnInitError", fails_on_init_error(run) ? "true" : "false");
  j.value("mpsRoot", m.quoted("mps-root", "mpsRoot", ""));
  const std::string driver_root = m.text("driver-root", "nvidiaDriverRoot", "/");
  j.value("nvidiaDriverRoot", go_json_string(driver_root));
  // NewConfig: an unset or empty dev root is the driver root.
  const std::string dev_root = m.text("dev-root", "nvidiaDevRoot", "");
  j.value("nvidiaDevRoot", go_json_string(dev_root.empty() ? driver_root : dev_root));
  if (rel.gdrcopy) j.value("gdrcopyEnabled", m.boolean("gdrcopy-enabled", "gdrcopyEnabled", false));
  j.value("gdsEnabled", m.boolean("gds-enabled", "gdsEnabled", false));
  j.value("mofedEnabled", m.boolean("mofed-enabled", "mofedEnabled", false));
  // GFD's flag, not the plugin's: null unless the file sets it.
  std::string nfd_api = "null";
  if (run.config)
    if (auto it = run.config->flags.find("useNodeFeatureAPI"); it != run.config->flags.end())
      nfd_api = parse_go_bool(it->second).value_or(false) ? "true" : "false";
  j.value("useNodeFeatureAPI", nfd_api);
  j.value("deviceDiscoveryStrategy", m.quoted("device-discovery-strategy", "deviceDiscoveryStrategy", "auto"));
  j.open("plugin", '{');
  j.value("passDeviceSpecs", m.boolean("pass-device-specs", "plugin.passDeviceSpecs", false));
  j.open("deviceListStrategy", '[');
  for (const auto& s : split_commas(m.text("device-list-strategy", "plugin.deviceListStrategy", "envvar")))
    j.value("", go_json_string(s));
  j.close(']');
  j.value("deviceIDStrategy", m.quoted("device-id-strategy", "plugin.deviceIDStrategy", "uuid"));
  j.value("cdiAnnotationPrefix", m.quoted("cdi-annotation-prefix", "plugin.cdiAnnotationPrefix", "cdi.k8s.io/"));
  j.value("nvidiaCTKPath", m.quoted("nvidia-cdi-hook-path", "plugin.nvidiaCTKPath", "/usr/bin/nvidia-ctk"));
  j.value("containerDriverRoot", m.quoted("driver-root-ctr-path", "plugin.containerDriverRoot", "/driver-root"));
  j.close('}');
  j.close('}');
  // The file's own resources are dropped ("not yet supported"), then the defaults added
  // (rm.AddDefaultResourcesToConfig): every GPU, and under mig-strategy=single every MIG device,
  // as nvidia.com/gpu.
  j.open("resources", '{');
  auto gpu_pattern = [&](const char* key) {
    j.open(key, '[');
    j.open("", '{');
    j.value("pattern", "\"*\"");
    j.value("name", "\"nvidia.com/gpu\"");
    j.close('}');
    j.close(']');
  };
  gpu_pattern("gpus");
  if (mig == "single") gpu_pattern("mig");
  j.close('}');
  j.open("sharing", '{');
  const NvidiaPluginConfig none;
  const NvidiaPluginConfig& c = run.config ? *run.config : none;
  replicated(j, "timeSlicing", c.rename_by_default, c.fail_requests_greater_than_one, c.time_slicing);
  // NewConfig forces failRequestsGreaterThanOne under MPS.
  if (c.mps) replicated(j, "mps", c.mps_rename_by_default, true, c.mps_resources);
  j.close('}');
  j.open("imex", '{');
  j.close('}');
  j.close('}');
  return std::move(j).str();
}

std::string nvidia_device_plugin_log(const NvidiaDevicePluginRun& run, std::int64_t unix_us) {
  const Release& rel = release_of(run.image_tag);
  std::string out;
  // Offsets within the run as a real start spaces them (v0.18.0's log: ~0.6 ms from the first
  // line to "Retrieving plugins.", ~20 ms to build the resource managers).
  auto line = [&](char severity, std::int64_t offset_us, const char* file, int at, const std::string& text) {
    out += klog_header(severity, unix_us + offset_us, file, at) + text + "\n";
  };
  const std::string commit = rel.commit;
  line('I', 0, "main.go", rel.start,
       "\"Starting NVIDIA Device Plugin\" version=<\n\t" + commit.substr(0, 8) + "\n\tcommit: " + commit + "\n >");
  line('I', 22, "main.go", rel.fs_watcher, "Starting FS watcher for /var/lib/kubelet/device-plugins");
  line('I', 40, "main.go", rel.os_watcher, "Starting OS watcher.");
  line('I', 188, "main.go", rel.starting_plugins, "Starting Plugins.");
  line('I', 199, "main.go", rel.loading_config, "Loading configuration.");
  const std::string starting = "error starting plugins: ";
  if (!run.config) {
    line('E', 420, "main.go", rel.exit,
         starting + "unable to load config: unable to finalize config: unable to parse config file: "
                    "error parsing config file: " + run.config_error);
    return out;
  }
  if (auto refused = nvidia_device_plugin_flags_error(run)) {
    line('E', 420, "main.go", rel.exit, starting + "unable to validate flags: " + *refused);
    return out;
  }
  line('I', 517, "main.go", rel.updating_config, "Updating config with default resource matching patterns.");
  line('I', 593, "main.go", rel.running_with_config, "\nRunning with config:\n" + nvidia_device_plugin_config_json(run));
  line('I', 601, "main.go", rel.retrieving_plugins, "Retrieving plugins.");
  const std::string strategy = nvidia_device_plugin_discovery_strategy(run);
  if (strategy == "tegra") {
    // NewTegraResourceManagers finds no Tegra devices on an EC2 instance.
    line('I', 900, "main.go", rel.no_devices, "No devices found. Waiting indefinitely.");
    return out;
  }
  if (!run.nvml) {
    // factory.go's five lines: what failed, the runtime question, and three lines of advice.
    const bool nvml_strategy = strategy == "nvml";
    const int at = nvml_strategy ? rel.nvml_init_failed : rel.incompatible_strategy;
    line('E', 703, "factory.go", at,
         nvml_strategy ? "Failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND." : "Incompatible strategy detected " + strategy);
    line('E', 712, "factory.go", at + 1,
         nvml_strategy ? "If this is a GPU node, did you set the docker default runtime to `nvidia`?"
                       : "If this is a GPU node, did you configure the NVIDIA Container Toolkit?");
    line('E', 716, "factory.go", at + 2,
         "You can check the prerequisites at: https://github.com/NVIDIA/k8s-device-plugin#prerequisites");
    line('E', 719, "factory.go", at + 3,
         "You can learn how to set the runtime at: https://github.com/NVIDIA/k8s-device-plugin#quick-start");
    line('E', 724, "factory.go", at + 4,
         "If this is not a GPU node, you should set up a toleration or nodeSelector to only deploy this plugin on GPU nodes");
    const std::string error = nvml_strategy ? "nvml init failed: ERROR_LIBRARY_NOT_FOUND" : "invalid device discovery strategy";
    if (fails_on_init_error(run)) {
      line('E', 21500, "main.go", rel.exit,
           starting + "error getting plugins: unable to create plugins: failed to construct resource managers: " + error);
    } else {
      if (nvml_strategy) line('W', 730, "factory.go", rel.nvml_init_failed + 8, error);
      line('I', 21500, "main.go", rel.no_devices, "No devices found. Waiting indefinitely.");
    }
    return out;
  }
  const std::string resource = "'" + run.advertised.resource + "'";
  line('I', 21500, "server.go", rel.grpc_server, "Starting GRPC server for " + resource);
  line('I', 27100, "server.go", rel.starting_to_serve,
       "Starting to serve " + resource + " on /var/lib/kubelet/device-plugins/nvidia-" +
           run.advertised.resource.substr(run.advertised.resource.rfind('/') + 1) + ".sock");
  line('I', 34100, "server.go", rel.registered, "Registered device plugin for " + resource + " with Kubelet");
  if (rel.ignoring_xids)
    line('I', 34400, "health.go", rel.ignoring_xids,
         "Ignoring the following XIDs for health checks: map[13:true 31:true 43:true 45:true 68:true 109:true]");
  return out;
}

}  // namespace eksim::k8s
