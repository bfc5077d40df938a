// Integration of ApiServer + scheduler controller + node join + kubelet + device-plugin add-on,
// replaying labs 004 (a g4dn.xlarge joins, the device plugin advertises its GPU), 001 (one-shot
// nvidia-smi with restartPolicy Always) and 003 (taint value the NFD worker does not tolerate).
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

struct Cluster : K8sWorld {
  Kubelet kubelet{api};
  SchedulerController scheduler{api, SchedulerControllerOptions{KubernetesVersion{33, -1}}, &kubelet};
  DaemonSetController daemon_sets{api, &kubelet};
  AddonController addons{api, daemon_sets, kubelet};
};

MachineSpec g4dn_xlarge(const std::string& name, std::string taint_value) {
  NodeShape shape;
  shape.vcpu = 4;
  shape.memory_ki = 16069028;  // lab 004 `kubectl describe node` Capacity
  shape.enis = 3;
  shape.ipv4_per_eni = 10;
  NodeResources res = node_resources(shape);
  MachineSpec m;
  m.node_name = name;
  m.provider_id = "aws:///ap-northeast-2a/i-0123456789abcdef0";
  m.instance_id = "i-0123456789abcdef0";
  m.labels = {{kLabelInstanceType, "g4dn.xlarge"}, {kLabelZone, "ap-northeast-2a"}, {kLabelArch, "amd64"}};
  m.register_with_taints = {Taint{"nvidia.com/gpu", std::move(taint_value), kNoSchedule}};
  m.capacity = res.capacity;
  m.allocatable = res.allocatable;
  m.gpu_count = 1;
  m.nvidia_ami = true;
  m.node_group = "gpu";
  m.capacity_type = "on-demand";
  return m;
}

Pod nvidia_smi_pod() {
  Pod p = testing::make_pod("gpu-pod", "nvidia/cuda:13.0.2-runtime-ubuntu22.04", {"nvidia-smi"});
  p.spec.containers.mut()[0].name = "cuda-container";
  p.spec.containers.mut()[0].requests.set(kNvidiaGpu, 1);
  p.spec.containers.mut()[0].limits.set(kNvidiaGpu, 1);
  p.spec.tolerations.push_back(Toleration{"nvidia.com/gpu", "Exists", "", kNoSchedule, std::nullopt});
  return p;
}

TEST(GpuNodeStory, Lab004DevicePluginAdvertisesTheGpuAndLab001PodCrashLoops) {
  Cluster c;
  c.add_ready_node("ip-192-168-1-10.ap-northeast-2.compute.internal", ResourceList{{"cpu", 1930}, {"memory", 3LL << 30}, {"pods", 17}});
  auto ds = c.addons.install("nvidiaDevicePlugin", "0.18.2", {{"gfd.enabled", "true"}});
  ASSERT_EQ(ds.size(), 4u);  // plugin, gfd, mps-control-daemon, nfd worker
  EXPECT_EQ(c.api.daemon_sets()[ds[0]].meta.name, "nvdp-nvidia-device-plugin");
  EXPECT_EQ(c.api.daemon_sets()[ds[3]].meta.name, "nvdp-node-feature-discovery-worker");
  PodId gpu_pod = c.api.create_pod(nvidia_smi_pod());
  c.run_until_s(1);
  auto failed = c.events("FailedScheduling", "Pod/default/gpu-pod");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message,
            "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available: 1 No "
            "preemption victims found for incoming pod.");
  EXPECT_EQ(c.scheduler.unschedulable_pods(), std::vector<PodId>{gpu_pod});

  const std::string name = "ip-192-168-12-34.ap-northeast-2.compute.internal";
  c.sim.schedule(engine::Duration::seconds(10), [&] { start_node_join(c.api, g4dn_xlarge(name, "present")); });
  c.run_until_s(600);

  if (std::getenv("EKSIM_DUMP_EVENTS"))
    for (const auto& e : c.log.events())
      std::printf("%9.3f %-7s %-22s %-60s %s\n", e.time.to_seconds(), k8s::to_string(e.type), e.reason.c_str(),
                  e.object.str().c_str(), e.message.c_str());
  auto node_id = c.api.find_node(name);
  ASSERT_TRUE(node_id);
  const NodeRecord& node = c.api.node(*node_id);
  EXPECT_TRUE(node.node.ready);
  EXPECT_EQ(format_amount(kCpu, node.node.allocatable.get(kCpu)), "3920m");
  EXPECT_EQ(format_amount(kMemory, node.node.allocatable.get(kMemory)), "15378852Ki");
  EXPECT_EQ(node.node.allocatable.get(kPods), 29);
  EXPECT_EQ(node.node.allocatable.get(kNvidiaGpu), 1);
  EXPECT_EQ(node.node.capacity.get(kNvidiaGpu), 1);
  EXPECT_EQ(node.node.meta.labels.at(kLabelPci10de), "true");
  EXPECT_EQ(node.node.meta.labels.at(kLabelGpuPresent), "true");
  EXPECT_EQ(c.daemon_sets.desired_number_scheduled(ds[0]), 1);
  EXPECT_EQ(c.daemon_sets.desired_number_scheduled(ds[2]), 0);  // mps: needs nvidia.com/mps.capable

  auto registered = c.events("RegisteredNode", "Node/" + name);
  ASSERT_EQ(registered.size(), 1u);
  EXPECT_EQ(registered[0].message, "Node " + name + " event: Registered Node " + name + " in Controller");
  auto ready = c.events("NodeReady", "Node/" + name);
  ASSERT_EQ(ready.size(), 1u);
  // NVIDIA AMI: slower than the ~70 s of a plain AL2023 node (join started at 10 s).
  EXPECT_GT(ready[0].time.to_seconds(), 60.0);
  EXPECT_LT(ready[0].time.to_seconds(), 130.0);

  // The plugin pod runs on the GPU node only after NFD labelled it.
  auto plugin_pod = c.daemon_sets.pod_on(ds[0], name);
  ASSERT_TRUE(plugin_pod);
  const auto& pp = c.api.pod(*plugin_pod).pod;
  EXPECT_EQ(pp.status.phase, PodPhase::Running);
  auto plugin_scheduled = c.events("Scheduled", "Pod/nvidia/" + pp.meta.name);
  ASSERT_EQ(plugin_scheduled.size(), 1u);
  auto nfd_pod = c.daemon_sets.pod_on(ds[3], name);
  ASSERT_TRUE(nfd_pod);
  EXPECT_LT(*c.api.pod(*nfd_pod).pod.status.started_at, *pp.status.scheduled_at);

  // The GPU pod: rejected by NodeResourcesFit only, so the queueing hints keep it parked while the
  // new node joins without a GPU (it would fail there too) and move it back only when the device
  // plugin advertises nvidia.com/gpu: one FailedScheduling for the whole wait, as lab 001's
  // `kubectl describe pod` shows.
  failed = c.events("FailedScheduling", "Pod/default/gpu-pod");
  EXPECT_EQ(failed.size(), 1u);
  auto scheduled = c.events("Scheduled", "Pod/default/gpu-pod");
  ASSERT_EQ(scheduled.size(), 1u);
  EXPECT_EQ(scheduled[0].message, "Successfully assigned default/gpu-pod to " + name);
  EXPECT_GT(scheduled[0].time, *pp.status.started_at);
  EXPECT_FALSE(c.scheduler.is_unschedulable(gpu_pod));

  // Lab 001: nvidia-smi exits, restartPolicy Always -> CrashLoopBackOff.
  const auto& st = c.api.pod(gpu_pod).pod.status;
  EXPECT_EQ(st.phase, PodPhase::Running);
  EXPECT_EQ(st.reason, "CrashLoopBackOff");
  auto pulled = c.events("Pulled", "Pod/default/gpu-pod");
  ASSERT_FALSE(pulled.empty());
  EXPECT_EQ(pulled[0].message,
            "Successfully pulled image \"nvidia/cuda:13.0.2-runtime-ubuntu22.04\" in 58.965s (58.965s including "
            "waiting). Image size: 1766399024 bytes.");
  auto backoff = c.events("BackOff", "Pod/default/gpu-pod");
  ASSERT_FALSE(backoff.empty());
  EXPECT_EQ(backoff[0].message, "Back-off restarting failed container cuda-container in pod gpu-pod_default(" +
                                    c.api.pod(gpu_pod).pod.meta.uid + ")");
}

TEST(GpuNodeStory, Lab003TaintValueTheNfdWorkerDoesNotTolerateLeavesTheGpuUnadvertised) {
  Cluster c;
  auto ds = c.addons.install("nvidiaDevicePlugin", "0.18.2", {{"gfd.enabled", "true"}});
  PodId gpu_pod = c.api.create_pod(nvidia_smi_pod());
  const std::string name = "ip-192-168-12-35.ap-northeast-2.compute.internal";
  start_node_join(c.api, g4dn_xlarge(name, "true"));
  c.run_until_s(900);
  auto node_id = c.api.find_node(name);
  ASSERT_TRUE(node_id);
  EXPECT_TRUE(c.api.node(*node_id).node.ready);
  EXPECT_FALSE(c.api.node(*node_id).node.allocatable.has(kNvidiaGpu));
  EXPECT_EQ(c.daemon_sets.desired_number_scheduled(ds[0]), 0);  // DESIRED 0, as in lab 003
  EXPECT_EQ(c.daemon_sets.desired_number_scheduled(ds[3]), 0);
  EXPECT_FALSE(c.api.pod(gpu_pod).node.valid());
  auto failed = c.events("FailedScheduling", "Pod/default/gpu-pod");
  ASSERT_FALSE(failed.empty());
  EXPECT_EQ(failed.back().message,
            "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available: 1 No "
            "preemption victims found for incoming pod.");
  // The 5-minute flush keeps retrying a parked pod even without cluster events.
  EXPECT_GE(failed.size(), 3u);
}

}  // namespace
}  // namespace eksim::k8s
