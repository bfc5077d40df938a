// Device plugins recognised by their pods' images, whatever installed them: lab 004's static
// nvidia-device-plugin.yml advertises the GPU, crash-loops on CPU nodes with its default
// --fail-on-init-error, and waits quietly with it off; EFA and Neuron plugins advertise theirs.
#include "models/k8s/kubelet/device_plugins.hpp"

#include <gtest/gtest.h>

#include "models/k8s/addons/addons.hpp"
#include "models/k8s/controllers/daemonset_controller.hpp"
#include "models/k8s/kubelet/kubelet.hpp"
#include "models/k8s/kubelet/node_lifecycle.hpp"
#include "models/k8s/scheduling/scheduler_controller.hpp"
#include "tests/unit/models/k8s/k8s_test_util.hpp"

namespace eksim::k8s {
namespace {

using testing::K8sWorld;

Container container(std::string image, std::vector<std::string> command = {}, std::vector<std::string> args = {},
                    std::vector<EnvVar> env = {}) {
  Container c;
  c.name = "ctr";
  c.image = std::move(image);
  c.command = std::move(command);
  c.args = std::move(args);
  c.env = std::move(env);
  return c;
}

AddonRole role(Container c) {
  Pod p;
  p.spec.containers.push_back(std::move(c));
  return addon_role(p);
}

TEST(DevicePlugins, RecognisedByImageAndProgram) {
  EXPECT_EQ(image_repository_name("nvcr.io/nvidia/k8s-device-plugin:v0.18.2"), "k8s-device-plugin");
  EXPECT_EQ(image_repository_name("nvcr.io/nvidia/k8s-device-plugin@sha256:abc"), "k8s-device-plugin");
  EXPECT_EQ(image_repository_name("busybox"), "busybox");
  // The static manifest runs the image's entrypoint; the chart names the program.
  EXPECT_EQ(role(container("nvcr.io/nvidia/k8s-device-plugin:v0.18.2")), AddonRole::NvidiaDevicePlugin);
  EXPECT_EQ(role(container("nvidia/k8s-device-plugin:1.0.0-beta4")), AddonRole::NvidiaDevicePlugin);
  EXPECT_EQ(role(container("nvcr.io/nvidia/k8s-device-plugin:v0.18.2", {"nvidia-device-plugin"})),
            AddonRole::NvidiaDevicePlugin);
  EXPECT_EQ(role(container("nvcr.io/nvidia/k8s-device-plugin:v0.18.2", {"gpu-feature-discovery"})),
            AddonRole::GpuFeatureDiscovery);
  EXPECT_EQ(role(container("nvcr.io/nvidia/k8s-device-plugin:v0.18.2", {"config-manager"})), AddonRole::None);
  EXPECT_EQ(role(container("nvcr.io/nvidia/k8s-device-plugin:v0.18.2", {"mps-control-daemon"})), AddonRole::None);
  EXPECT_EQ(role(container("registry.k8s.io/nfd/node-feature-discovery:v0.17.3", {"nfd-worker"})), AddonRole::NfdWorker);
  EXPECT_EQ(role(container("registry.k8s.io/nfd/node-feature-discovery:v0.17.3", {"nfd-master"})), AddonRole::None);
  EXPECT_EQ(role(container("602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/aws-efa-k8s-device-plugin:v0.5.6")),
            AddonRole::EfaDevicePlugin);
  EXPECT_EQ(role(container("public.ecr.aws/neuron/neuron-device-plugin:2.22.4.0")), AddonRole::NeuronDevicePlugin);
  EXPECT_EQ(role(container("nvcr.io/nvidia/driver:570.124.06")), AddonRole::NvidiaDriver);
  EXPECT_EQ(role(container("example.com/someone/driver:1")), AddonRole::None);
  EXPECT_EQ(role(container("nginx:1.27")), AddonRole::None);
  // A sidecar first, the plugin second: the plugin decides.
  Pod p;
  p.spec.containers = {container("nvcr.io/nvidia/k8s-device-plugin:v0.18.2", {"config-manager"}),
                       container("nvcr.io/nvidia/k8s-device-plugin:v0.18.2", {"nvidia-device-plugin"})};
  EXPECT_EQ(addon_role(p), AddonRole::NvidiaDevicePlugin);
  EXPECT_EQ(addon_container(p), &p.spec.containers[1]);
}

TEST(DevicePlugins, FailOnInitErrorFromFlagsAndEnvironment) {
  const std::string image = "nvcr.io/nvidia/k8s-device-plugin:v0.18.2";
  EXPECT_TRUE(nvidia_device_plugin_flags(container(image)).fail_on_init_error);
  EXPECT_FALSE(nvidia_device_plugin_flags(container(image, {}, {}, {{"FAIL_ON_INIT_ERROR", "false"}})).fail_on_init_error);
  EXPECT_FALSE(nvidia_device_plugin_flags(container(image, {}, {"--fail-on-init-error=false"})).fail_on_init_error);
  EXPECT_FALSE(nvidia_device_plugin_flags(container(image, {"nvidia-device-plugin", "-fail-on-init-error=0"})).fail_on_init_error);
  // The command line wins over the variable.
  EXPECT_TRUE(nvidia_device_plugin_flags(container(image, {}, {"--fail-on-init-error"}, {{"FAIL_ON_INIT_ERROR", "false"}}))
                  .fail_on_init_error);
  // strconv.ParseBool refuses "no": the default stays.
  EXPECT_TRUE(nvidia_device_plugin_flags(container(image, {}, {}, {{"FAIL_ON_INIT_ERROR", "no"}})).fail_on_init_error);
}

struct DevicePluginWorld : K8sWorld {
  Kubelet kubelet{api};
  SchedulerController scheduler{api, SchedulerControllerOptions{KubernetesVersion{35, -1}}, &kubelet};
  DaemonSetController daemon_sets{api, &kubelet};
  AddonController addons{api, daemon_sets, kubelet};
};

// deployments/static/nvidia-device-plugin.yml (v0.18.2) as decoded.
DaemonSet static_plugin_manifest(std::vector<EnvVar> env = {}) {
  DaemonSet ds;
  ds.meta.name = "nvidia-device-plugin-daemonset";
  ds.meta.ns = "kube-system";
  ds.selector.match_labels["name"] = "nvidia-device-plugin-ds";
  ds.tmpl.meta.labels["name"] = "nvidia-device-plugin-ds";
  ds.tmpl.spec.tolerations.push_back(Toleration{"nvidia.com/gpu", "Exists", "", kNoSchedule, std::nullopt});
  ds.tmpl.spec.priority_class_name = "system-node-critical";
  Container c = container("nvcr.io/nvidia/k8s-device-plugin:v0.18.2", {}, {}, std::move(env));
  c.name = "nvidia-device-plugin-ctr";
  ds.tmpl.spec.containers.push_back(c);
  return ds;
}

MachineSpec machine(const std::string& name, int gpus) {
  MachineSpec m;
  m.node_name = name;
  m.instance_id = "i-" + name;
  m.provider_id = "aws:///ap-northeast-2a/i-" + name;
  m.capacity = ResourceList{{"cpu", 4000}, {"memory", 16LL << 30}, {"pods", 29}};
  m.allocatable = m.capacity;
  m.gpu_count = gpus;
  if (gpus > 0) m.register_with_taints = {Taint{"nvidia.com/gpu", "true", kNoSchedule}};
  return m;
}

TEST(DevicePlugins, StaticManifestAdvertisesTheGpuAndCrashLoopsOnCpuNodes) {
  DevicePluginWorld w;
  std::size_t ds = w.daemon_sets.apply(static_plugin_manifest());
  adopt_joined_node(w.api, machine("gpu", 1));
  adopt_joined_node(w.api, machine("cpu", 0));
  w.run_until_s(600);
  const Node& gpu = w.api.node(*w.api.find_node("gpu")).node;
  EXPECT_EQ(gpu.allocatable.get(kNvidiaGpu), 1);
  EXPECT_EQ(gpu.capacity.get(kNvidiaGpu), 1);
  const Node& cpu = w.api.node(*w.api.find_node("cpu")).node;
  EXPECT_EQ(cpu.allocatable.get(kNvidiaGpu), 0);

  auto on_gpu = w.daemon_sets.pod_on(ds, "gpu");
  ASSERT_TRUE(on_gpu);
  EXPECT_EQ(w.api.pod(*on_gpu).pod.status.restart_count, 0);
  // On the CPU node NVML is missing: exit 1 a second after each start, restarts 10 s, 20 s,
  // 40 s, 80 s, 160 s apart (plus the kubelet's re-sync), so five or six in ten minutes.
  auto on_cpu = w.daemon_sets.pod_on(ds, "cpu");
  ASSERT_TRUE(on_cpu);
  const Pod& crashing = w.api.pod(*on_cpu).pod;
  EXPECT_GE(crashing.status.restart_count, 4);
  EXPECT_LE(crashing.status.restart_count, 6);
  auto backoff = w.events("BackOff", "Pod/kube-system/" + crashing.meta.name);
  ASSERT_FALSE(backoff.empty());
  EXPECT_EQ(backoff[0].message, "Back-off restarting failed container nvidia-device-plugin-ctr in pod " +
                                    kubelet_pod_ref(crashing));
}

TEST(DevicePlugins, WithoutFailOnInitErrorThePluginWaitsOnCpuNodes) {
  DevicePluginWorld w;
  std::size_t ds = w.daemon_sets.apply(static_plugin_manifest({{"FAIL_ON_INIT_ERROR", "false"}}));
  adopt_joined_node(w.api, machine("cpu", 0));
  w.run_until_s(600);
  auto on_cpu = w.daemon_sets.pod_on(ds, "cpu");
  ASSERT_TRUE(on_cpu);
  EXPECT_EQ(w.api.pod(*on_cpu).pod.status.phase, PodPhase::Running);
  EXPECT_EQ(w.api.pod(*on_cpu).pod.status.restart_count, 0);
  EXPECT_TRUE(w.events("BackOff").empty());
}

TEST(DevicePlugins, EfaAndNeuronPluginsAdvertiseTheirDevices) {
  DevicePluginWorld w;
  auto plugin = [](std::string name, std::string image) {
    DaemonSet ds;
    ds.meta.name = name;
    ds.meta.ns = "kube-system";
    ds.selector.match_labels["name"] = name;
    ds.tmpl.meta.labels["name"] = name;
    ds.tmpl.spec.containers.push_back(container(std::move(image)));
    ds.tmpl.spec.containers.mut()[0].name = name;
    return ds;
  };
  w.daemon_sets.apply(plugin("aws-efa-k8s-device-plugin",
                             "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/aws-efa-k8s-device-plugin:v0.5.6"));
  w.daemon_sets.apply(plugin("neuron-device-plugin", "public.ecr.aws/neuron/neuron-device-plugin:2.22.4.0"));
  MachineSpec efa = machine("p4d", 0);
  efa.efa_count = 4;
  MachineSpec inf2 = machine("inf2", 0);
  inf2.neuron_devices = 1;
  inf2.neuron_cores = 2;
  adopt_joined_node(w.api, efa);
  adopt_joined_node(w.api, inf2);
  adopt_joined_node(w.api, machine("plain", 0));
  w.run_until_s(300);
  EXPECT_EQ(w.api.node(*w.api.find_node("p4d")).node.allocatable.get(kEfaResource), 4);
  EXPECT_EQ(w.api.node(*w.api.find_node("p4d")).node.allocatable.get(kNeuronResource), 0);
  EXPECT_EQ(w.api.node(*w.api.find_node("inf2")).node.allocatable.get(kNeuronResource), 1);
  EXPECT_EQ(w.api.node(*w.api.find_node("inf2")).node.capacity.get(kNeuronCoreResource), 2);
  EXPECT_EQ(w.api.node(*w.api.find_node("plain")).node.allocatable.get(kEfaResource), 0);
  // Neither plugin fails where its devices are missing.
  EXPECT_TRUE(w.events("BackOff").empty());
}

}  // namespace
}  // namespace eksim::k8s
