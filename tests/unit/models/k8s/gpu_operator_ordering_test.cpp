// The GPU Operator's operand order on a GPU node (gpu_operator.hpp): with the containerized
// driver, nothing that needs the GPU starts before the driver's startup probe (60 s) has passed
// and the validator has validated driver and toolkit; without any driver the device plugin waits
// for ever, as its toolkit-validation init container does on a real node.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "models/k8s/addons/addons.hpp"
#include "models/k8s/kubelet/allocatable.hpp"
#include "models/k8s/controllers/daemonset_controller.hpp"
#include "models/k8s/kubelet/kubelet.hpp"
#include "models/k8s/kubelet/node_lifecycle.hpp"
#include "models/k8s/scheduling/scheduler_controller.hpp"
#include "tests/unit/models/k8s/k8s_test_util.hpp"

namespace eksim::k8s {
namespace {

using testing::K8sWorld;

struct GpuOperatorWorld : K8sWorld {
  Kubelet kubelet{api};
  SchedulerController scheduler{api, SchedulerControllerOptions{KubernetesVersion{35, -1}}, &kubelet};
  DaemonSetController daemon_sets{api, &kubelet};
  AddonController addons{api, daemon_sets, kubelet};
};

MachineSpec g5_xlarge(const std::string& name, bool nvidia_ami) {
  NodeShape shape;
  shape.vcpu = 4;
  shape.memory_ki = 16069028;
  shape.enis = 4;
  shape.ipv4_per_eni = 15;
  NodeResources res = node_resources(shape);
  MachineSpec m;
  m.node_name = name;
  m.provider_id = "aws:///ap-northeast-2a/i-0123456789abcdef0";
  m.instance_id = "i-0123456789abcdef0";
  m.labels = {{kLabelInstanceType, "g5.xlarge"}, {kLabelZone, "ap-northeast-2a"}, {kLabelArch, "amd64"}};
  m.register_with_taints = {Taint{"nvidia.com/gpu", "true", kNoSchedule}};
  m.capacity = res.capacity;
  m.allocatable = res.allocatable;
  m.gpu_count = 1;
  m.nvidia_ami = nvidia_ami;
  m.node_group = "gpu";
  m.capacity_type = "on-demand";
  return m;
}

const std::string kNode = "ip-192-168-12-34.ap-northeast-2.compute.internal";

// First time an event with this reason and message prefix was recorded, in seconds; -1 if none.
double first(const GpuOperatorWorld& w, const std::string& reason, const std::string& message_prefix) {
  for (const auto& e : w.log.events())
    if (e.reason == reason && e.message.rfind(message_prefix, 0) == 0) return e.time.us / 1e6;
  return -1;
}

TEST(GpuOperatorOrdering, DriverContainerStartupProbeGatesEverythingThatNeedsTheGpu) {
  GpuOperatorWorld w;
  w.addons.install("gpuOperator", "v26.3.1", {});
  start_node_join(w.api, g5_xlarge(kNode, /*nvidia_ami=*/false));
  w.run_until_s(900);
  const double driver = first(w, "Started", "Started container nvidia-driver-ctr");
  const double toolkit = first(w, "Started", "Started container nvidia-container-toolkit-ctr");
  const double plugin = first(w, "Started", "Started container nvidia-device-plugin");
  const double validator = first(w, "Started", "Started container nvidia-operator-validator");
  ASSERT_GT(driver, 0);
  if (std::getenv("EKSIM_DUMP_EVENTS"))
    std::printf("driver %.3f toolkit %.3f plugin %.3f validator %.3f\n", driver, toolkit, plugin, validator);
  // The toolkit's driver-validation waits for the driver container's startup probe (60 s).
  EXPECT_GE(toolkit, driver + 60);
  // The plugin's toolkit-validation waits for toolkit-ready (validator, after the toolkit).
  EXPECT_GT(plugin, toolkit);
  EXPECT_GT(validator, plugin);
  NodeId node = *w.api.find_node(kNode);
  EXPECT_EQ(w.api.node(node).node.allocatable.get(kNvidiaGpu), 1);
  EXPECT_EQ(w.api.node(node).node.meta.labels.at("nvidia.com/gpu.deploy.driver"), "true");
  EXPECT_EQ(w.api.node(node).node.meta.labels.count("nvidia.com/gpu.deploy.mig-manager"), 0u);  // A10G
}

TEST(GpuOperatorOrdering, NoDriverAnywhereLeavesThePluginInItsInitContainer) {
  GpuOperatorWorld w;
  w.addons.install("gpuOperator", "v26.3.1", {{"driver.enabled", "false"}, {"toolkit.enabled", "false"}});
  start_node_join(w.api, g5_xlarge(kNode, /*nvidia_ami=*/false));
  w.run_until_s(900);
  EXPECT_EQ(first(w, "Started", "Started container nvidia-device-plugin"), -1);
  NodeId node = *w.api.find_node(kNode);
  EXPECT_EQ(w.api.node(node).node.allocatable.get(kNvidiaGpu), 0);
  int waiting = 0;
  for (PodId p : w.api.node(node).pods) {
    const Pod& pod = w.api.pod(p).pod;
    if (pod.meta.name.rfind("nvidia-operator-validator-", 0) == 0) {
      EXPECT_EQ(pod.status.reason, "Init:0/4");
    }
    if (pod.meta.name.rfind("nvidia-device-plugin-daemonset-", 0) == 0) {
      EXPECT_EQ(pod.status.reason, "Init:0/2");
      ++waiting;
    }
  }
  EXPECT_EQ(waiting, 1);
}

// The node's pods whose name starts with `prefix`, as `kubectl get pods -n gpu-operator` lists them.
std::vector<const PodRecord*> pods_named(const GpuOperatorWorld& w, const std::string& prefix) {
  std::vector<const PodRecord*> out;
  for (std::uint32_t i = 0; i < w.api.pod_slots(); ++i) {
    const PodRecord& r = w.api.pod(PodId{i});
    if (!r.deleted && r.pod.meta.name.rfind(prefix, 0) == 0) out.push_back(&r);
  }
  return out;
}

const PodRecord& validator(const GpuOperatorWorld& w) { return *pods_named(w, "nvidia-operator-validator-").at(0); }

const FlatValues kLab000 = {{"driver.enabled", "false"},
                            {"toolkit.enabled", "false"},
                            {"validator.plugin.env[0].name", "WITH_WORKLOAD"},
                            {"validator.plugin.env[0].value", "true"}};

TEST(GpuOperatorValidator, CudaCheckRunsACompletedWorkloadPodOnTheNode) {
  GpuOperatorWorld w;
  w.addons.install("gpuOperator", "v26.3.1", {{"driver.enabled", "false"}, {"toolkit.enabled", "false"}});
  start_node_join(w.api, g5_xlarge(kNode, /*nvidia_ami=*/true));
  w.run_until_s(300);
  auto cuda = pods_named(w, "nvidia-cuda-validator-");
  ASSERT_EQ(cuda.size(), 1u);
  const Pod& pod = cuda[0]->pod;
  EXPECT_EQ(pod.meta.ns, "gpu-operator");
  EXPECT_EQ(pod.spec.node_name, kNode);  // bound by spec.nodeName: no Scheduled event
  EXPECT_TRUE(w.events("Scheduled", "Pod/gpu-operator/" + pod.meta.name).empty());
  EXPECT_EQ(pod.status.phase, PodPhase::Succeeded);
  EXPECT_EQ(pod.status.reason, "Completed");
  EXPECT_EQ(pod.spec.restart_policy, "OnFailure");
  ASSERT_EQ(pod.meta.owner_references.size(), 1u);
  EXPECT_EQ(pod.meta.owner_references[0].kind, "ClusterPolicy");
  ASSERT_EQ(pod.spec.init_containers.size(), 1u);
  EXPECT_EQ(pod.spec.init_containers[0].args, std::vector<std::string>{"vectorAdd"});
  EXPECT_EQ(pod_requests(pod.spec).get(kNvidiaGpu), 0);
  // The plugin check runs no workload by default (the asset's WITH_WORKLOAD "false").
  EXPECT_TRUE(pods_named(w, "nvidia-device-plugin-validator-").empty());
  EXPECT_EQ(validator(w).pod.status.phase, PodPhase::Running);
  // The validator polls every 5 s; the pod ends between two polls.
  ASSERT_TRUE(pod.status.finished_at.has_value());
  EXPECT_GT(validator(w).pod.status.started_at->us, pod.status.finished_at->us);
}

TEST(GpuOperatorValidator, PluginWorkloadHoldsTheGpuUntilCompleted) {
  GpuOperatorWorld w;
  w.addons.install("gpuOperator", "v26.3.1", kLab000);
  start_node_join(w.api, g5_xlarge(kNode, /*nvidia_ami=*/true));
  w.run_until_s(300);
  // plugin-validation carries the values' env over the asset's (setContainerEnv).
  std::string with_workload;
  for (const auto& c : validator(w).pod.spec.init_containers)
    if (c.name == "plugin-validation") with_workload = env_of(c, "WITH_WORKLOAD");
  EXPECT_EQ(with_workload, "true");
  auto plugin = pods_named(w, "nvidia-device-plugin-validator-");
  ASSERT_EQ(plugin.size(), 1u);
  EXPECT_EQ(pod_requests(plugin[0]->pod.spec).get(kNvidiaGpu), 1);
  EXPECT_EQ(plugin[0]->pod.status.phase, PodPhase::Succeeded);
  const PodRecord& v = validator(w);
  EXPECT_EQ(v.pod.status.phase, PodPhase::Running);
  EXPECT_GT(v.pod.status.started_at->us, plugin[0]->pod.status.finished_at->us);
  EXPECT_EQ(v.pod.status.restart_count, 0);
}

TEST(GpuOperatorValidator, RefusedPluginWorkloadIsGivenUpOnAfterFiveMinutesAndRetried) {
  GpuOperatorWorld w;
  w.addons.install("gpuOperator", "v26.3.1", kLab000);
  start_node_join(w.api, g5_xlarge(kNode, /*nvidia_ami=*/true));
  // A GPU pod takes the GPU as soon as the plugin advertises it (NVIDIA/gpu-operator#233).
  PodId hog{};
  w.api.on_node.push_back([&](NodeId id, NodeChange) {
    if (hog.valid() || w.api.node(id).node.allocatable.get(kNvidiaGpu) == 0) return;
    Pod p;
    p.meta.name = "hog";
    p.meta.ns = "default";
    Container c;
    c.name = "cuda";
    c.image = "nvidia/cuda:13.0.2-runtime-ubuntu22.04";
    c.command = {"sleep", "400"};
    c.requests.set(kNvidiaGpu, 1);
    p.spec.containers = {c};
    p.spec.restart_policy = "Never";
    p.spec.tolerations = {Toleration{"nvidia.com/gpu", "Exists", "", kNoSchedule, std::nullopt}};
    hog = w.api.create_pod(p);
    w.api.bind(hog, id);
  });
  w.run_until_s(200);
  ASSERT_TRUE(hog.valid());
  auto refused = w.events("UnexpectedAdmissionError");
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].message,
            "Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: 1, "
            "Available: 0, which is unexpected");
  const double refused_at = refused[0].time.us / 1e6;
  EXPECT_EQ(validator(w).pod.status.reason, "Init:3/4");
  EXPECT_EQ(w.log.hints().size(), 1u);
  // 60 polls 5 s apart, then the init container fails.
  w.run_until_s(refused_at + 299);
  EXPECT_EQ(validator(w).pod.status.reason, "Init:3/4");
  w.run_until_s(refused_at + 301);
  EXPECT_EQ(validator(w).pod.status.reason, "Init:Error");
  EXPECT_EQ(validator(w).pod.status.restart_count, 1);
  // After the 10 s back-off the old pod goes and a new one is made; the hog is still running
  // (400 s), so it is refused too; the next try, 300 s and a 20 s back-off later, finds the GPU
  // free and the validator runs about 640 s after the first refusal.
  w.run_until_s(refused_at + 312);
  EXPECT_EQ(pods_named(w, "nvidia-device-plugin-validator-").size(), 1u);
  EXPECT_EQ(w.events("UnexpectedAdmissionError").size(), 2u);
  w.run_until_s(refused_at + 660);
  EXPECT_EQ(validator(w).pod.status.phase, PodPhase::Running);
  EXPECT_EQ(validator(w).pod.status.restart_count, 2);
  EXPECT_EQ(w.events("BackOff").size(), 1u);
}

}  // namespace
}  // namespace eksim::k8s
