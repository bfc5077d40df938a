// EKS Auto Mode's node image joins faster than the AL2023 NVIDIA AMI: Bottlerocket boot, the
// NVIDIA driver and VPC CNI in the image (NodeJoinTimings *_auto_mode_s, fitted to lab 001).
#include <gtest/gtest.h>

#include "models/k8s/kubelet/node_lifecycle.hpp"
#include "tests/unit/models/k8s/k8s_test_util.hpp"

namespace eksim::k8s {
namespace {

using testing::K8sWorld;

MachineSpec gpu_machine(const std::string& name, bool auto_mode) {
  MachineSpec m;
  m.node_name = name;
  m.instance_id = "i-0abc";
  m.capacity = ResourceList{{"cpu", 4000}, {"pods", 58}};
  m.allocatable = ResourceList{{"cpu", 3920}, {"pods", 58}};
  m.nvidia_ami = true;
  if (auto_mode) {
    m.bootstrap = BootstrapFlavor::Bottlerocket;
    m.eks_auto_mode_image = true;
  }
  return m;
}

// Seconds from start_node_join (instance running) to NodeReady, with every phase at its median.
double ready_after(bool auto_mode) {
  K8sWorld w;
  NodeJoinTimings t;
  t.sigma = 0.0;
  MachineSpec m = gpu_machine("n", auto_mode);
  start_node_join(w.api, m, t);
  w.run_until_s(300);
  auto ready = w.events("NodeReady");
  EXPECT_EQ(ready.size(), 1u);
  return ready.empty() ? -1.0 : ready[0].time.to_seconds();
}

TEST(NodeJoinAutoMode, GpuNodeReadyAtTheMedians) {
  // Bottlerocket boot 8 + bootstrap 3 + driver 3, kubelet 2, TLS/registration 5, CNI 4.
  EXPECT_NEAR(ready_after(true), 25.0, 0.01);
  // AL2023 NVIDIA: boot 12 + driver 20 + nodeadm 5, kubelet 2, TLS 5, aws-node 30.
  EXPECT_NEAR(ready_after(false), 74.0, 0.01);
}

TEST(NodeJoinAutoMode, CpuNodeSkipsTheDriver) {
  K8sWorld w;
  NodeJoinTimings t;
  t.sigma = 0.0;
  MachineSpec m = gpu_machine("cpu", true);
  m.nvidia_ami = false;
  start_node_join(w.api, m, t);
  w.run_until_s(300);
  auto ready = w.events("NodeReady");
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_NEAR(ready[0].time.to_seconds(), 22.0, 0.01);
}

}  // namespace
}  // namespace eksim::k8s
