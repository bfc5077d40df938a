// The NVIDIA device plugin's own log: its start-up, its "Running with config" dump, and how each
// run ends (a config that does not parse, a node without NVML, a GPU node), with the file:line
// of the image's release. Goldens follow the real logs quoted in NVIDIA/k8s-device-plugin#1469,
// #1470 (v0.18.0, static manifest) and #1220 (v0.17.1, no NVML).
#include "models/k8s/addons/nvidia/nvidia_device_plugin_log.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "sim/scenario/nvidia_plugin_config_yaml.hpp"

namespace eksim::k8s {
namespace {

// 2025-10-22 18:32:39.566652 UTC, the first line of the v0.18.0 log in #1470.
constexpr std::int64_t kStart = 1761157959566652;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

NvidiaDevicePluginRun static_manifest(const std::string& tag) {
  NvidiaDevicePluginRun run;
  run.image_tag = tag;
  run.config = NvidiaPluginConfig{};
  return run;
}

// v0.18.0's static manifest on a node without NVML, as #1470 shows it up to the config dump;
// the ending as factory.go and main.go print it.
constexpr const char* kStaticNoNvml = R"(I1022 18:32:39.566652       1 main.go:239] "Starting NVIDIA Device Plugin" version=<
	3c9ffca9
	commit: 3c9ffca9491f0d2d362a7064138dfcd71bb57592
 >
I1022 18:32:39.566674       1 main.go:242] Starting FS watcher for /var/lib/kubelet/device-plugins
I1022 18:32:39.566692       1 main.go:249] Starting OS watcher.
I1022 18:32:39.566840       1 main.go:264] Starting Plugins.
I1022 18:32:39.566851       1 main.go:321] Loading configuration.
I1022 18:32:39.567169       1 main.go:346] Updating config with default resource matching patterns.
I1022 18:32:39.567245       1 main.go:357] 
Running with config:
{
  "version": "v1",
  "flags": {
    "migStrategy": "none",
    "failOnInitError": true,
    "mpsRoot": "",
    "nvidiaDriverRoot": "/",
    "nvidiaDevRoot": "/",
    "gdrcopyEnabled": false,
    "gdsEnabled": false,
    "mofedEnabled": false,
    "useNodeFeatureAPI": null,
    "deviceDiscoveryStrategy": "auto",
    "plugin": {
      "passDeviceSpecs": false,
      "deviceListStrategy": [
        "envvar"
      ],
      "deviceIDStrategy": "uuid",
      "cdiAnnotationPrefix": "cdi.k8s.io/",
      "nvidiaCTKPath": "/usr/bin/nvidia-ctk",
      "containerDriverRoot": "/driver-root"
    }
  },
  "resources": {
    "gpus": [
      {
        "pattern": "*",
        "name": "nvidia.com/gpu"
      }
    ]
  },
  "sharing": {
    "timeSlicing": {}
  },
  "imex": {}
}
I1022 18:32:39.567253       1 main.go:360] Retrieving plugins.
E1022 18:32:39.567355       1 factory.go:113] Incompatible strategy detected auto
E1022 18:32:39.567364       1 factory.go:114] If this is a GPU node, did you configure the NVIDIA Container Toolkit?
E1022 18:32:39.567368       1 factory.go:115] You can check the prerequisites at: https://github.com/NVIDIA/k8s-device-plugin#prerequisites
E1022 18:32:39.567371       1 factory.go:116] You can learn how to set the runtime at: https://github.com/NVIDIA/k8s-device-plugin#quick-start
E1022 18:32:39.567376       1 factory.go:117] If this is not a GPU node, you should set up a toleration or nodeSelector to only deploy this plugin on GPU nodes
E1022 18:32:39.588152       1 main.go:177] error starting plugins: error getting plugins: unable to create plugins: failed to construct resource managers: invalid device discovery strategy
)";

TEST(NvidiaDevicePluginLog, StaticManifestOnANodeWithoutNvmlExitsAsV0180Does) {
  EXPECT_EQ(nvidia_device_plugin_log(static_manifest("v0.18.0"), kStart), kStaticNoNvml);
}

TEST(NvidiaDevicePluginLog, EachReleasePrintsItsOwnLineNumbersAndCommit) {
  // #1220, v0.17.1: "main.go:356] Retrieving plugins.", factory.go:112-116, "main.go:173] error
  // starting plugins"; no gdrcopyEnabled before 0.18.
  auto v17 = lines_of(nvidia_device_plugin_log(static_manifest("v0.17.1"), kStart));
  const std::string log17 = nvidia_device_plugin_log(static_manifest("v0.17.1"), kStart);
  EXPECT_NE(log17.find("main.go:356] Retrieving plugins.\n"), std::string::npos);
  EXPECT_NE(log17.find("factory.go:112] Incompatible strategy detected auto\n"), std::string::npos);
  EXPECT_NE(log17.find("factory.go:116] If this is not a GPU node"), std::string::npos);
  EXPECT_NE(log17.find("main.go:173] error starting plugins: "), std::string::npos);
  EXPECT_EQ(log17.find("gdrcopyEnabled"), std::string::npos);
  EXPECT_EQ(v17[1], "\t3c378193");
  // v0.18.2, the labs' image: main.go 247 ... 185.
  const std::string log182 = nvidia_device_plugin_log(static_manifest("v0.18.2"), kStart);
  EXPECT_NE(log182.find("main.go:247] \"Starting NVIDIA Device Plugin\" version=<\n\tfb1242ad\n\tcommit: "
                        "fb1242add205d8563f9c604b8ba239607b4083e6\n >\n"),
            std::string::npos);
  EXPECT_NE(log182.find("main.go:369] Retrieving plugins.\n"), std::string::npos);
  EXPECT_NE(log182.find("main.go:185] error starting plugins: "), std::string::npos);
  // A patch release eksim has no table for takes the newest one before it.
  const std::string log185 = nvidia_device_plugin_log(static_manifest("v0.18.5"), kStart);
  EXPECT_NE(log185.find("main.go:369] Retrieving plugins.\n"), std::string::npos);
}

TEST(NvidiaDevicePluginLog, AConfigThatDoesNotParseEndsAfterLoadingConfiguration) {
  NvidiaDevicePluginRun run = static_manifest("v0.18.2");
  run.config = scenario::parse_nvidia_plugin_config("sharing: {timeSlicing: {resources: []}}", &run.config_error);
  ASSERT_FALSE(run.config);
  auto lines = lines_of(nvidia_device_plugin_log(run, kStart));
  ASSERT_EQ(lines.size(), 9u);
  EXPECT_EQ(lines[7], "I1022 18:32:39.566851       1 main.go:329] Loading configuration.");
  EXPECT_EQ(lines[8],
            "E1022 18:32:39.567072       1 main.go:185] error starting plugins: unable to load config: unable to "
            "finalize config: unable to parse config file: error parsing config file: unmarshal error: error "
            "unmarshaling JSON: while decoding JSON: no resources specified");
}

TEST(NvidiaDevicePluginLog, AGpuNodeServesRegistersAndStartsHealthChecks) {
  NvidiaDevicePluginRun run = static_manifest("v0.18.2");
  run.nvml = true;
  run.advertised = {"nvidia.com/gpu", 1, false};
  auto lines = lines_of(nvidia_device_plugin_log(run, kStart));
  ASSERT_GE(lines.size(), 4u);
  const std::vector<std::string> tail(lines.end() - 4, lines.end());
  EXPECT_EQ(tail[0], "I1022 18:32:39.588152       1 server.go:197] Starting GRPC server for 'nvidia.com/gpu'");
  EXPECT_EQ(tail[1], "I1022 18:32:39.593752       1 server.go:141] Starting to serve 'nvidia.com/gpu' on "
                     "/var/lib/kubelet/device-plugins/nvidia-gpu.sock");
  EXPECT_EQ(tail[2], "I1022 18:32:39.600752       1 server.go:148] Registered device plugin for 'nvidia.com/gpu' with Kubelet");
  EXPECT_EQ(tail[3], "I1022 18:32:39.601052       1 health.go:64] Ignoring the following XIDs for health checks: "
                     "map[13:true 31:true 43:true 45:true 68:true 109:true]");
  EXPECT_EQ(nvidia_device_plugin_log(run, kStart).find("E1022"), std::string::npos);
}

TEST(NvidiaDevicePluginLog, FlagsVariablesAndTheFileMergeAsTheCliDoes) {
  // The chart's variables (MPS_ROOT, FAIL_ON_INIT_ERROR=false), a flag with an alias, and a file
  // whose flags lose to them and whose time-slicing shows in the dump.
  Container c;
  c.image = "nvcr.io/nvidia/k8s-device-plugin:v0.18.2";
  c.command = {"nvidia-device-plugin", "--nvidia-driver-root", "/run/nvidia/driver", "--pass-device-specs"};
  c.env = {{"MPS_ROOT", "/run/nvidia/mps"}, {"FAIL_ON_INIT_ERROR", "false"}, {"CONTAINER_DRIVER_ROOT", "/host"}};
  NvidiaDevicePluginRun run;
  run.image_tag = "v0.18.2";
  run.flags = nvidia_device_plugin_flags(c);
  EXPECT_EQ(run.flags.given.at("driver-root"), "/run/nvidia/driver");
  EXPECT_EQ(run.flags.given.at("pass-device-specs"), "true");
  EXPECT_EQ(run.flags.given.at("driver-root-ctr-path"), "/host");
  EXPECT_FALSE(run.flags.fail_on_init_error);
  run.config = scenario::parse_nvidia_plugin_config(R"(version: v1
flags:
  migStrategy: single
  nvidiaDriverRoot: /ignored
  plugin:
    deviceListStrategy: [envvar, volume-mounts]
sharing:
  timeSlicing:
    renameByDefault: true
    resources:
      - name: gpu
        replicas: 4
)",
                                                    &run.config_error);
  ASSERT_TRUE(run.config) << run.config_error;
  const std::string json = nvidia_device_plugin_config_json(run);
  EXPECT_NE(json.find(R"("migStrategy": "single",
    "failOnInitError": false,
    "mpsRoot": "/run/nvidia/mps",
    "nvidiaDriverRoot": "/run/nvidia/driver",
    "nvidiaDevRoot": "/run/nvidia/driver",)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("passDeviceSpecs": true,
      "deviceListStrategy": [
        "envvar",
        "volume-mounts"
      ],)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("containerDriverRoot": "/host")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("mig": [
      {
        "pattern": "*",
        "name": "nvidia.com/gpu"
      }
    ])"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("sharing": {
    "timeSlicing": {
      "renameByDefault": true,
      "resources": [
        {
          "name": "nvidia.com/gpu",
          "rename": "nvidia.com/gpu.shared",
          "devices": "all",
          "replicas": 4
        }
      ]
    }
  },)"),
            std::string::npos)
      << json;
  // failOnInitError false on a node without NVML: it waits instead of exiting.
  auto lines = lines_of(nvidia_device_plugin_log(run, kStart));
  EXPECT_EQ(lines.back(), "I1022 18:32:39.588152       1 main.go:394] No devices found. Waiting indefinitely.");
  // A GPU node registers the renamed resource on its own socket.
  run.nvml = true;
  run.advertised = advertised_gpus(*run.config, 1);
  EXPECT_NE(nvidia_device_plugin_log(run, kStart)
                .find("Starting to serve 'nvidia.com/gpu.shared' on /var/lib/kubelet/device-plugins/nvidia-gpu.shared.sock"),
            std::string::npos);
}

TEST(NvidiaDevicePluginLog, TheNvmlStrategyFailsWithNvmlsOwnLines) {
  NvidiaDevicePluginRun run = static_manifest("v0.18.2");
  run.flags.given["device-discovery-strategy"] = "nvml";
  const std::string log = nvidia_device_plugin_log(run, kStart);
  EXPECT_NE(log.find("factory.go:94] Failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND.\n"), std::string::npos) << log;
  EXPECT_NE(log.find("factory.go:95] If this is a GPU node, did you set the docker default runtime to `nvidia`?\n"),
            std::string::npos);
  EXPECT_NE(log.find("main.go:185] error starting plugins: error getting plugins: unable to create plugins: failed "
                     "to construct resource managers: nvml init failed: ERROR_LIBRARY_NOT_FOUND\n"),
            std::string::npos);
}

TEST(NvidiaDevicePluginLog, FlagsTheCliRefusesEndTheRunAndTegraFindsNothing) {
  NvidiaDevicePluginRun run = static_manifest("v0.18.2");
  run.flags.given["device-discovery-strategy"] = "cuda";
  auto lines = lines_of(nvidia_device_plugin_log(run, kStart));
  ASSERT_EQ(lines.size(), 9u);
  EXPECT_EQ(lines[8], "E1022 18:32:39.567072       1 main.go:185] error starting plugins: unable to validate flags: "
                      "invalid --device-discovery-strategy option cuda");
  run.flags.given["device-discovery-strategy"] = "tegra";
  run.flags.given["mig-strategy"] = "all";
  EXPECT_EQ(lines_of(nvidia_device_plugin_log(run, kStart)).back(),
            "E1022 18:32:39.567072       1 main.go:185] error starting plugins: unable to validate flags: unknown MIG "
            "strategy: all");
  run.flags.given.erase("mig-strategy");
  run.nvml = true;
  EXPECT_EQ(lines_of(nvidia_device_plugin_log(run, kStart)).back(),
            "I1022 18:32:39.567552       1 main.go:394] No devices found. Waiting indefinitely.");
}

}  // namespace
}  // namespace eksim::k8s
