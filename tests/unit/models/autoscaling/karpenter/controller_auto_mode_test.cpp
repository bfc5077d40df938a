// Karpenter controller: EKS Auto Mode GPU nodes advertise nvidia.com/gpu through the node image's
// own device plugin; OSS Karpenter nodes need the device-plugin DaemonSet.
#include <gtest/gtest.h>

#include "tests/unit/models/autoscaling/karpenter/karpenter_world.hpp"

namespace eksim::autoscaling::karpenter {
namespace {

using engine::Duration;
using engine::SimTime;
using test::World;
using test::WorldOptions;

void gpu_pool(World& w, bool auto_mode) {
  NodePool p;
  p.name = "gpu";
  if (auto_mode) {
    p.node_class_group = "eks.amazonaws.com";
    p.node_class_kind = "NodeClass";
  }
  p.node_class_name = "default";
  p.requirements = {{"node.kubernetes.io/instance-type", "In", {"g5.xlarge"}},
                    {"karpenter.sh/capacity-type", "In", {"on-demand"}}};
  w.k->apply_node_pool(p);
}

k8s::PodId gpu_pod(World& w) {
  k8s::Pod p;
  p.meta.name = "gpu-pod";
  p.meta.ns = "default";
  k8s::Container c;
  c.name = "cuda-container";
  c.image = "nvidia/cuda:13.0.2-runtime-ubuntu22.04";
  c.limits.set(k8s::kNvidiaGpu, 1);
  c.requests.set(k8s::kNvidiaGpu, 1);
  p.spec.containers.push_back(c);
  return w.cluster->api.create_pod(p);
}

const k8s::NodeRecord* node_of(const World& w, const NodeClaimState& c) {
  auto id = w.cluster->api.find_node(c.node_name);
  return id ? &w.cluster->api.node(*id) : nullptr;
}

TEST(KarpenterAutoMode, GpuAdvertisedFiveSecondsAfterReadyWithoutDaemonSet) {
  WorldOptions auto_mode;
  auto_mode.auto_mode = true;
  World w(auto_mode);
  gpu_pool(w, true);
  auto pod = gpu_pod(w);
  // Run until the node is Ready.
  SimTime ready;
  for (int s = 1; s <= 600; ++s) {
    w.run_to(Duration::seconds(s));
    if (w.k->node_claims().empty()) continue;
    const k8s::NodeRecord* n = node_of(w, w.claim());
    if (n && n->ready_at) {
      ready = *n->ready_at;
      break;
    }
  }
  ASSERT_GT(ready.us, 0);
  EXPECT_EQ(w.claim().instance_type, "g5.xlarge");
  EXPECT_TRUE(w.cluster->api.daemon_sets().empty());
  w.cluster->sim.run_until(ready + Duration::millis(4900));
  EXPECT_EQ(node_of(w, w.claim())->node.allocatable.get(k8s::kNvidiaGpu), 0);
  EXPECT_EQ(w.claim().phase, NodeClaimPhase::Registered);
  EXPECT_EQ(w.claim().initialized_message, "Resource \"nvidia.com/gpu\" was requested but not registered");
  w.cluster->sim.run_until(ready + Duration::seconds(5));
  EXPECT_EQ(node_of(w, w.claim())->node.allocatable.get(k8s::kNvidiaGpu), 1);
  EXPECT_EQ(node_of(w, w.claim())->node.capacity.get(k8s::kNvidiaGpu), 1);
  EXPECT_EQ(w.claim().phase, NodeClaimPhase::Initialized);
  w.cluster->sim.run_until(ready + Duration::minutes(5));
  EXPECT_EQ(w.cluster->api.pod(pod).pod.status.phase, k8s::PodPhase::Running);
  EXPECT_EQ(w.cluster->api.pod(pod).node, *w.cluster->api.find_node(w.claim().node_name));
}

TEST(KarpenterAutoMode, OssNodeWithoutDevicePluginDaemonSetNeverAdvertises) {
  World w;
  gpu_pool(w, false);
  auto pod = gpu_pod(w);
  w.run_to(Duration::minutes(15));
  ASSERT_GE(w.k->node_claims().size(), 1u);
  const k8s::NodeRecord* n = node_of(w, w.claim());
  ASSERT_NE(n, nullptr);
  EXPECT_TRUE(n->node.ready);
  EXPECT_EQ(n->node.allocatable.get(k8s::kNvidiaGpu), 0);
  EXPECT_EQ(w.claim().phase, NodeClaimPhase::Registered);
  EXPECT_EQ(w.claim().initialized_message, "Resource \"nvidia.com/gpu\" was requested but not registered");
  EXPECT_EQ(w.cluster->api.pod(pod).pod.status.phase, k8s::PodPhase::Pending);
}

}  // namespace
}  // namespace eksim::autoscaling::karpenter
