// The GPU Operator's operand order on a GPU node (gpu_operator.hpp): with the containerized
// driver, nothing that needs the GPU starts before the driver's startup probe (60 s) has passed
// and the validator has validated driver and toolkit; without any driver the device plugin waits
// for ever, as its toolkit-validation init container does on a real node.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "models/k8s/addons.hpp"
#include "models/k8s/allocatable.hpp"
#include "models/k8s/daemonset_controller.hpp"
#include "models/k8s/kubelet.hpp"
#include "models/k8s/node_lifecycle.hpp"
#include "models/k8s/scheduler_controller.hpp"
#include "tests/unit/models/k8s/k8s_test_util.hpp"

namespace eksim::k8s {
namespace {

using testing::K8sWorld;

struct World : K8sWorld {
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
double first(const World& w, const std::string& reason, const std::string& message_prefix) {
  for (const auto& e : w.log.events())
    if (e.reason == reason && e.message.rfind(message_prefix, 0) == 0) return e.time.us / 1e6;
  return -1;
}

TEST(GpuOperatorOrdering, DriverContainerStartupProbeGatesEverythingThatNeedsTheGpu) {
  World w;
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
  World w;
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

}  // namespace
}  // namespace eksim::k8s
