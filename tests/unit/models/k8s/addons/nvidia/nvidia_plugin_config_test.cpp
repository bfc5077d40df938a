// The NVIDIA device plugin's config file: time-slicing replicas from a ConfigMap mounted into the
// static manifest or delivered by the chart's config-manager, renameByDefault,
// failRequestsGreaterThanOne (UnexpectedAdmissionError at the kubelet), flags.failOnInitError,
// and a config the plugin refuses (it exits and nothing is advertised).
#include "models/k8s/addons/nvidia/nvidia_plugin_config.hpp"

#include <gtest/gtest.h>

#include "models/k8s/addons/addons.hpp"
#include "models/k8s/controllers/daemonset_controller.hpp"
#include "models/k8s/addons/nvidia/gpu_operator_objects.hpp"
#include "models/k8s/kubelet/kubelet.hpp"
#include "models/k8s/kubelet/node_lifecycle.hpp"
#include "models/k8s/scheduling/scheduler_controller.hpp"
#include "sim/scenario/nvidia_plugin_config_yaml.hpp"
#include "tests/unit/models/k8s/k8s_test_util.hpp"

namespace eksim::k8s {
namespace {

using testing::K8sWorld;

const std::string kTimeSlicing4 = R"(version: v1
sharing:
  timeSlicing:
    resources:
      - name: nvidia.com/gpu
        replicas: 4
)";

struct PluginConfigWorld : K8sWorld {
  Kubelet kubelet{api};
  SchedulerController scheduler{api, SchedulerControllerOptions{KubernetesVersion{35, -1}}, &kubelet};
  DaemonSetController daemon_sets{api, &kubelet};
  AddonController addons{api, daemon_sets, kubelet};
  PluginConfigWorld() { addons.parse_plugin_config = scenario::parse_nvidia_plugin_config; }
};

MachineSpec gpu_machine(const std::string& name, int gpus, Labels labels = {}) {
  MachineSpec m;
  m.node_name = name;
  m.instance_id = "i-" + name;
  m.provider_id = "aws:///ap-northeast-2a/i-" + name;
  m.capacity = ResourceList{{"cpu", 4000}, {"memory", 16LL << 30}, {"pods", 29}};
  m.allocatable = m.capacity;
  m.gpu_count = gpus;
  m.labels = std::move(labels);
  return m;
}

// The static manifest with its config file mounted from ConfigMap kube-system/<config_map>.
DaemonSet static_plugin_with_config(const std::string& config_map, std::vector<EnvVar> env = {}) {
  DaemonSet ds;
  ds.meta.name = "nvidia-device-plugin-daemonset";
  ds.meta.ns = "kube-system";
  ds.selector.match_labels["name"] = "nvidia-device-plugin-ds";
  ds.tmpl.meta.labels["name"] = "nvidia-device-plugin-ds";
  Container c;
  c.name = "nvidia-device-plugin-ctr";
  c.image = "nvcr.io/nvidia/k8s-device-plugin:v0.18.2";
  c.env = std::move(env);
  c.env.push_back({"CONFIG_FILE", "/etc/nvidia-device-plugin/config.yaml"});
  c.volume_mounts = {{"plugin-config", "/etc/nvidia-device-plugin/"}};
  ds.tmpl.spec.containers.push_back(c);
  ds.tmpl.spec.volumes = {{"plugin-config", "configMap", config_map}};
  return ds;
}

TEST(NvidiaPluginConfig, TimeSlicingReplicasMultiplyTheAdvertisedGpus) {
  NvidiaPluginConfig c;
  EXPECT_EQ(advertised_gpus(c, 4).count, 4);
  EXPECT_EQ(advertised_gpus(c, 4).resource, "nvidia.com/gpu");
  c.time_slicing = {{"nvidia.com/gpu", 4}};
  EXPECT_EQ(advertised_gpus(c, 1).count, 4);
  EXPECT_EQ(advertised_gpus(c, 8).count, 32);
  EXPECT_TRUE(advertised_gpus(c, 1).shared);
  c.rename_by_default = true;
  EXPECT_EQ(advertised_gpus(c, 1).resource, "nvidia.com/gpu.shared");
  // Allocate refuses more than one shared device only when asked to.
  EXPECT_FALSE(validate_allocation(c, advertised_gpus(c, 1), 2));
  c.fail_requests_greater_than_one = true;
  EXPECT_FALSE(validate_allocation(c, advertised_gpus(c, 1), 1));
  EXPECT_EQ(*validate_allocation(c, advertised_gpus(c, 1), 3),
            "invalid allocation request for \"nvidia.com/gpu.shared\": invalid request: maximum request size for "
            "shared resources is 1; found 3");
}

TEST(NvidiaPluginConfig, ParserChecksAsThePluginDoes) {
  std::string err;
  auto ok = scenario::parse_nvidia_plugin_config(kTimeSlicing4, &err);
  ASSERT_TRUE(ok) << err;
  ASSERT_EQ(ok->time_slicing.size(), 1u);
  EXPECT_EQ(ok->time_slicing[0].replicas, 4);
  // "gpu" is completed with the nvidia.com/ prefix (NewResourceName).
  auto short_name = scenario::parse_nvidia_plugin_config(
      "sharing: {timeSlicing: {renameByDefault: true, failRequestsGreaterThanOne: true, resources: [{name: gpu, "
      "replicas: 2}]}}\nflags: {failOnInitError: false}\n",
      &err);
  ASSERT_TRUE(short_name) << err;
  EXPECT_EQ(short_name->time_slicing[0].name, "nvidia.com/gpu");
  EXPECT_TRUE(short_name->rename_by_default);
  EXPECT_TRUE(short_name->fail_requests_greater_than_one);
  EXPECT_EQ(short_name->fail_on_init_error, false);
  auto refused = [](const std::string& text) {
    std::string e;
    EXPECT_FALSE(scenario::parse_nvidia_plugin_config(text, &e)) << text;
    return e;
  };
  const std::string json = "unmarshal error: error unmarshaling JSON: while decoding JSON: ";
  EXPECT_EQ(refused("sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 1}]}}"),
            json + "number of replicas must be >= 2");
  EXPECT_EQ(refused("sharing: {timeSlicing: {resources: []}}"), json + "no resources specified");
  EXPECT_EQ(refused("sharing: {timeSlicing: {resources: [{replicas: 2}]}}"), json + "no resource name specified");
  EXPECT_EQ(refused("sharing: {timeSlicing: {resources: [{name: gpu}]}}"), json + "no replicas specified");
  EXPECT_EQ(refused("- a\n- b\n"), json + "json: cannot unmarshal array into Go value of type v1.Config");
  EXPECT_EQ(refused("version: v2"), "unknown version: v2");
  // An empty file and unknown keys are fine.
  EXPECT_TRUE(scenario::parse_nvidia_plugin_config("", &err));
  EXPECT_TRUE(scenario::parse_nvidia_plugin_config("version: v1\nflags: {migStrategy: none}\n", &err));
}

TEST(NvidiaPluginConfig, ConfigManagerPicksTheNodeLabelThenTheDefaultThenAFallback) {
  PluginConfigWorld w;
  w.api.config_maps()["nvidia/cfg"] = {{"a", "A"}, {"default", "D"}};
  PodSpec spec;
  Container plugin;
  plugin.name = "nvidia-device-plugin-ctr";
  plugin.image = "nvcr.io/nvidia/k8s-device-plugin:v0.18.2";
  spec.containers.push_back(plugin);
  add_config_manager(spec, plugin.image, "cfg", "", "named,single", "nvidia-device-plugin-init",
                     "nvidia-device-plugin-sidecar");
  Pod pod;
  pod.meta.ns = "nvidia";
  pod.spec = spec;
  ASSERT_EQ(spec.containers.size(), 2u);
  EXPECT_EQ(spec.containers[1].name, "nvidia-device-plugin-sidecar");
  const Container& c = pod.spec.containers[0];
  // No label, no default: "named" finds the key "default".
  EXPECT_EQ(nvidia_plugin_config_text(w.api, pod, c, {}), "D");
  // The node's nvidia.com/device-plugin.config label wins.
  EXPECT_EQ(nvidia_plugin_config_text(w.api, pod, c, {{"nvidia.com/device-plugin.config", "a"}}), "A");
  // A label naming no key: config-manager fails, eksim runs the plugin on its defaults.
  EXPECT_FALSE(nvidia_plugin_config_text(w.api, pod, c, {{"nvidia.com/device-plugin.config", "zzz"}}));
  // "single": the only key.
  w.api.config_maps()["nvidia/cfg"] = {{"only", "O"}};
  EXPECT_EQ(nvidia_plugin_config_text(w.api, pod, c, {}), "O");
  // No ConfigMap at all.
  w.api.config_maps().clear();
  EXPECT_FALSE(nvidia_plugin_config_text(w.api, pod, c, {}));
}

TEST(NvidiaPluginConfig, StaticManifestWithTimeSlicingAdvertisesFourOnOneGpu) {
  PluginConfigWorld w;
  w.api.config_maps()["kube-system/time-slicing-config"] = {{"config.yaml", kTimeSlicing4}};
  w.daemon_sets.apply(static_plugin_with_config("time-slicing-config"));
  adopt_joined_node(w.api, gpu_machine("gpu", 1));
  w.run_until_s(300);
  const Node& n = w.api.node(*w.api.find_node("gpu")).node;
  EXPECT_EQ(n.capacity.get(kNvidiaGpu), 4);
  EXPECT_EQ(n.allocatable.get(kNvidiaGpu), 4);
}

TEST(NvidiaPluginConfig, GpuOperatorDevicePluginConfig) {
  FlatValues v{{"devicePlugin.config.name", "time-slicing-config"}, {"devicePlugin.config.default", "any"}};
  GpuOperatorObjects o = build_gpu_operator("v25.10.1", v, "gpu-operator", "gpu-operator");
  for (const char* name : {"nvidia-device-plugin-daemonset", "gpu-feature-discovery"}) {
    const DaemonSet* ds = nullptr;
    for (const auto& [d, op] : o.daemon_sets)
      if (d.meta.name == name) ds = &d;
    ASSERT_NE(ds, nullptr) << name;
    const PodSpec& spec = ds->tmpl.spec;
    // toolkit-validation, then one config-manager-init (the operator's, now configured).
    ASSERT_EQ(spec.init_containers.size(), 2u);
    EXPECT_EQ(spec.init_containers[1].name, "config-manager-init");
    ASSERT_EQ(spec.containers.size(), 2u);
    EXPECT_EQ(spec.containers[1].name, "config-manager");
    Pod pod;
    pod.meta.ns = "gpu-operator";
    pod.spec = spec;
    PluginConfigWorld w;
    w.api.config_maps()["gpu-operator/time-slicing-config"] = {{"any", kTimeSlicing4}, {"other", "x"}};
    EXPECT_EQ(nvidia_plugin_config_text(w.api, pod, spec.containers[0], {}), kTimeSlicing4);
    // The operator's fallback is the empty config: without DEFAULT_CONFIG nothing is chosen.
  }
  // Without devicePlugin.config the plugin runs without a config file.
  GpuOperatorObjects plain = build_gpu_operator("v25.10.1", {}, "gpu-operator", "gpu-operator");
  for (const auto& [d, op] : plain.daemon_sets)
    if (d.meta.name == "nvidia-device-plugin-daemonset") {
      ASSERT_EQ(d.tmpl.spec.containers.size(), 1u);
      EXPECT_TRUE(d.tmpl.spec.containers[0].env.empty());
    }
}

TEST(NvidiaPluginConfig, ARefusedConfigEndsThePluginAndNothingIsAdvertised) {
  PluginConfigWorld w;
  w.api.config_maps()["kube-system/bad"] = {
      {"config.yaml", "sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 1}]}}"}};
  std::size_t ds = w.daemon_sets.apply(static_plugin_with_config("bad"));
  adopt_joined_node(w.api, gpu_machine("gpu", 1));
  w.run_until_s(300);
  EXPECT_EQ(w.api.node(*w.api.find_node("gpu")).node.allocatable.get(kNvidiaGpu), 0);
  auto pod = w.daemon_sets.pod_on(ds, "gpu");
  ASSERT_TRUE(pod);
  EXPECT_GE(w.api.pod(*pod).pod.status.restart_count, 2);
  auto backoff = w.events("BackOff");
  ASSERT_FALSE(backoff.empty());
  EXPECT_NE(backoff[0].message.find("Back-off restarting failed container nvidia-device-plugin-ctr"), std::string::npos);
}

TEST(NvidiaPluginConfig, ConfigFailOnInitErrorIsBelowTheVariable) {
  PluginConfigWorld w;
  w.api.config_maps()["kube-system/quiet"] = {{"config.yaml", "version: v1\nflags:\n  failOnInitError: false\n"}};
  std::size_t quiet = w.daemon_sets.apply(static_plugin_with_config("quiet"));
  adopt_joined_node(w.api, gpu_machine("cpu", 0));
  w.run_until_s(300);
  auto pod = w.daemon_sets.pod_on(quiet, "cpu");
  ASSERT_TRUE(pod);
  EXPECT_EQ(w.api.pod(*pod).pod.status.restart_count, 0);

  PluginConfigWorld v;
  v.api.config_maps()["kube-system/quiet"] = {{"config.yaml", "version: v1\nflags:\n  failOnInitError: false\n"}};
  std::size_t loud = v.daemon_sets.apply(static_plugin_with_config("quiet", {{"FAIL_ON_INIT_ERROR", "true"}}));
  adopt_joined_node(v.api, gpu_machine("cpu", 0));
  v.run_until_s(300);
  auto crashing = v.daemon_sets.pod_on(loud, "cpu");
  ASSERT_TRUE(crashing);
  EXPECT_GE(v.api.pod(*crashing).pod.status.restart_count, 2);
}

// main.go's validateFlags ends the plugin on any node, GPU or not; the tegra strategy finds no
// Tegra devices on EC2, so the plugin waits and the GPUs are never advertised.
TEST(NvidiaPluginConfig, DiscoveryStrategyFlagDecidesWhatTheGpuNodeAdvertises) {
  auto run = [](const std::string& strategy) {
    PluginConfigWorld w;
    w.api.config_maps()["kube-system/none"] = {{"config.yaml", "version: v1\n"}};
    std::size_t ds = w.daemon_sets.apply(static_plugin_with_config("none", {{"DEVICE_DISCOVERY_STRATEGY", strategy}}));
    adopt_joined_node(w.api, gpu_machine("gpu", 1));
    w.run_until_s(300);
    auto pod = w.daemon_sets.pod_on(ds, "gpu");
    EXPECT_TRUE(pod);
    return std::make_pair(w.api.node(*w.api.find_node("gpu")).node.allocatable.get(kNvidiaGpu), pod ? w.api.pod(*pod).pod.status.restart_count : -1);
  };
  EXPECT_EQ(run("auto"), std::make_pair(std::int64_t{1}, 0));
  EXPECT_EQ(run("nvml"), std::make_pair(std::int64_t{1}, 0));
  EXPECT_EQ(run("tegra"), std::make_pair(std::int64_t{0}, 0));
  auto [gpus, restarts] = run("cuda");
  EXPECT_EQ(gpus, 0);
  EXPECT_GE(restarts, 2);
}

TEST(NvidiaPluginConfig, ChartConfigMapRenamesAndRefusesRequestsGreaterThanOne) {
  PluginConfigWorld w;
  FlatValues values{{"config.map.default", "version: v1\nsharing:\n  timeSlicing:\n    renameByDefault: true\n"
                                           "    failRequestsGreaterThanOne: true\n    resources:\n"
                                           "      - {name: nvidia.com/gpu, replicas: 4}\n"}};
  w.addons.install("nvidiaDevicePlugin", "0.18.2", values, "nvdp", "nvidia-device-plugin");
  ASSERT_TRUE(w.api.config_maps().count("nvidia-device-plugin/nvdp-nvidia-device-plugin-configs"));
  adopt_joined_node(w.api, gpu_machine("gpu", 1, {{kLabelGpuPresent, "true"}}));
  w.run_until_s(300);
  const Node& n = w.api.node(*w.api.find_node("gpu")).node;
  EXPECT_EQ(n.allocatable.get("nvidia.com/gpu.shared"), 4);
  EXPECT_EQ(n.allocatable.get(kNvidiaGpu), 0);

  Pod one = testing::make_pod("one", "cuda");
  one.spec.containers.mut()[0].requests.set("nvidia.com/gpu.shared", 1);
  Pod two = testing::make_pod("two", "cuda", {}, {}, "Never");
  two.spec.containers.mut()[0].requests.set("nvidia.com/gpu.shared", 2);
  w.api.create_pod(one);
  w.api.create_pod(two);
  w.run_until_s(400);
  EXPECT_EQ(w.api.pod(*w.api.find_pod("default", "one")).pod.status.phase, PodPhase::Running);
  const Pod& refused = w.api.pod(*w.api.find_pod("default", "two")).pod;
  EXPECT_EQ(refused.status.phase, PodPhase::Failed);
  EXPECT_EQ(refused.status.reason, "UnexpectedAdmissionError");
  auto ev = w.events("UnexpectedAdmissionError", "Pod/default/two");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].message,
            "Allocate failed due to rpc error: code = Unknown desc = invalid allocation request for "
            "\"nvidia.com/gpu.shared\": invalid request: maximum request size for shared resources is 1; found 2, "
            "which is unexpected");
}

}  // namespace
}  // namespace eksim::k8s
