#include "models/k8s/api/admission.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/unit/models/k8s/k8s_test_util.hpp"
#include "models/k8s/scheduling/predicates.hpp"

namespace eksim::k8s {
namespace {

using testing::K8sWorld;
using testing::make_pod;

std::vector<std::string> described(const PodSpec& spec) {
  std::vector<std::string> out;
  for (const auto& t : spec.tolerations) out.push_back(describe_toleration(t));
  return out;
}

Pod gpu_pod() {
  Pod p = make_pod("gpu-pod", "nvidia/cuda:13.0.2-runtime-ubuntu22.04", {"nvidia-smi"});
  // Defaulting has run: a limit with no request implies the request.
  p.spec.containers.mut()[0].limits.set("nvidia.com/gpu", 1);
  p.spec.containers.mut()[0].requests.set("nvidia.com/gpu", 1);
  return p;
}

// Lab 001's `kubectl describe pod gpu-pod`, word for word and in order.
TEST(Admission, Lab001DescribeTolerations) {
  K8sWorld w;
  Pod p = gpu_pod();
  p.spec.tolerations.push_back(Toleration{"gpu-workload", "Exists", "", kNoSchedule, std::nullopt});
  PodId id = w.api.create_pod(std::move(p));
  EXPECT_EQ(described(w.api.pod(id).pod.spec),
            (std::vector<std::string>{"gpu-workload:NoSchedule op=Exists",
                                      "node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
                                      "node.kubernetes.io/unreachable:NoExecute op=Exists for 300s",
                                      "nvidia.com/gpu:NoSchedule op=Exists"}));
}

TEST(Admission, CpuPodGetsOnlyDefaultTolerationSeconds) {
  K8sWorld w;
  Pod p = make_pod("web", "nginx");
  p.spec.containers.mut()[0].requests.set(kCpu, 100);
  PodId id = w.api.create_pod(std::move(p));
  const auto& tol = w.api.pod(id).pod.spec.tolerations;
  ASSERT_EQ(tol.size(), 2u);
  EXPECT_EQ(tol[0], (Toleration{"node.kubernetes.io/not-ready", "Exists", "", kNoExecute, 300}));
  EXPECT_EQ(tol[1], (Toleration{"node.kubernetes.io/unreachable", "Exists", "", kNoExecute, 300}));
}

TEST(Admission, GpuPodToleratesTheGpuTaintWithoutItsOwnToleration) {
  K8sWorld w;
  PodId id = w.api.create_pod(gpu_pod());
  const Taint gpu_taint{"nvidia.com/gpu", "true", kNoSchedule};
  EXPECT_TRUE(tolerations_tolerate_taint(w.api.pod(id).pod.spec.tolerations, gpu_taint));
  // Only the GPU taint: another NoSchedule taint stays untolerated.
  const Taint other{"gpu-workload", "", kNoSchedule};
  EXPECT_FALSE(tolerations_tolerate_taint(w.api.pod(id).pod.spec.tolerations, other));
}

TEST(Admission, ExtendedResourcesSortedFromInitAndAppContainersNativeSkipped) {
  PodSpec spec;
  Container init;
  init.requests.set("vpc.amazonaws.com/efa", 1);
  spec.init_containers.push_back(init);
  Container app;
  app.requests.set("nvidia.com/gpu", 2);
  app.requests.set(kMemory, 1024);
  app.requests.set("hugepages-2Mi", 2 * 1024 * 1024);
  app.requests.set("example.kubernetes.io/thing", 1);  // a native (kubernetes.io) name
  spec.containers.push_back(app);
  extended_resource_toleration(spec);
  EXPECT_EQ(described(spec),
            (std::vector<std::string>{"nvidia.com/gpu:NoSchedule op=Exists", "vpc.amazonaws.com/efa:NoSchedule op=Exists"}));
}

TEST(Admission, ExistingTolerationsAreNotDuplicated) {
  PodSpec spec;
  Container app;
  app.requests.set("nvidia.com/gpu", 1);
  spec.containers.push_back(app);
  spec.tolerations.push_back(Toleration{"nvidia.com/gpu", "Exists", "", kNoSchedule, std::nullopt});
  spec.tolerations.push_back(Toleration{"node.kubernetes.io/not-ready", "Exists", "", kNoExecute, 60});
  admit_pod(spec);
  EXPECT_EQ(described(spec), (std::vector<std::string>{"nvidia.com/gpu:NoSchedule op=Exists",
                                                       "node.kubernetes.io/not-ready:NoExecute op=Exists for 60s",
                                                       "node.kubernetes.io/unreachable:NoExecute op=Exists for 300s"}));
  // A different toleration for the same key (Equal, a value) does not count: the plugin adds its own.
  PodSpec spec2;
  spec2.containers.push_back(app);
  spec2.tolerations.push_back(Toleration{"nvidia.com/gpu", "Equal", "true", kNoSchedule, std::nullopt});
  extended_resource_toleration(spec2);
  EXPECT_EQ(described(spec2),
            (std::vector<std::string>{"nvidia.com/gpu=true:NoSchedule", "nvidia.com/gpu:NoSchedule op=Exists"}));
}

TEST(Admission, TolerateEverythingOrEmptyEffectSkipsDefaults) {
  PodSpec all;
  all.tolerations.push_back(Toleration{"", "Exists", "", "", std::nullopt});
  default_toleration_seconds(all);
  EXPECT_EQ(described(all), (std::vector<std::string>{"op=Exists"}));

  PodSpec any_effect;
  any_effect.tolerations.push_back(Toleration{"node.kubernetes.io/unreachable", "Exists", "", "", std::nullopt});
  default_toleration_seconds(any_effect);
  EXPECT_EQ(described(any_effect),
            (std::vector<std::string>{"node.kubernetes.io/unreachable op=Exists",
                                      "node.kubernetes.io/not-ready:NoExecute op=Exists for 300s"}));

  // A NoSchedule toleration of not-ready does not cover NoExecute.
  PodSpec no_schedule;
  no_schedule.tolerations.push_back(Toleration{"node.kubernetes.io/not-ready", "Exists", "", kNoSchedule, std::nullopt});
  default_toleration_seconds(no_schedule);
  EXPECT_EQ(no_schedule.tolerations.size(), 3u);
}

TEST(Admission, ExtendedResourceNames) {
  EXPECT_TRUE(is_extended_resource_name("nvidia.com/gpu"));
  EXPECT_TRUE(is_extended_resource_name("aws.amazon.com/neuron"));
  EXPECT_FALSE(is_extended_resource_name("cpu"));
  EXPECT_FALSE(is_extended_resource_name("hugepages-1Gi"));
  EXPECT_FALSE(is_extended_resource_name("kubernetes.io/foo"));
  EXPECT_FALSE(is_extended_resource_name("requests.nvidia.com/gpu"));
}

}  // namespace
}  // namespace eksim::k8s
