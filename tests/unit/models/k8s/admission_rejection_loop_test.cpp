// Issue 46: pods the kubelet rejects at admission (UnexpectedAdmissionError, OutOf<resource>)
// and the controllers that replace them. The ReplicaSet controller counts Failed pods as gone and
// makes a new one at once (kubernetes#108152, #72593); the loop runs at the pace of the kubelet's
// status patches through its API client (kubeAPIQPS 10, burst 20 on EKS AMIs), so simulated time
// advances and a long run ends. The DaemonSet controller kills a failed daemon pod at most once
// per failedPodsBackoff (1 s doubling to 15 min).
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "models/k8s/controllers/daemonset_controller.hpp"
#include "models/k8s/controllers/deployment_controller.hpp"
#include "models/k8s/kubelet/kubelet.hpp"
#include "models/k8s/scheduling/scheduler_controller.hpp"
#include "tests/unit/models/k8s/k8s_test_util.hpp"

namespace eksim::k8s {
namespace {

using testing::K8sWorld;

struct RejectionLoopWorld : K8sWorld {
  Kubelet kubelet{api};
  SchedulerController scheduler{api, {}, &kubelet};
  RejectionLoopWorld() {
    // The device plugin refuses every allocation (failRequestsGreaterThanOne and a 2-GPU pod).
    kubelet.device_allocate = [](PodId) -> std::optional<std::string> {
      return "invalid allocation request for \"nvidia.com/gpu.shared\": invalid request: maximum request size for "
             "shared resources is 1; found 2";
    };
  }
  int failed_pods() const {
    int n = 0;
    for (std::size_t i = 0; i < api.pod_slots(); ++i) {
      const PodRecord& r = api.pod(PodId{static_cast<std::uint32_t>(i)});
      n += !r.deleted && r.pod.status.phase == PodPhase::Failed && r.pod.status.reason == "UnexpectedAdmissionError";
    }
    return n;
  }
};

PodTemplate sleeper() {
  PodTemplate t;
  t.meta.labels = {{"app", "notebook"}};
  t.spec = testing::make_pod("x", "cuda", {"sleep", "3600"}).spec;
  return t;
}

TEST(AdmissionRejectionLoop, ReplicaSetReplacesAtTheKubeletsStatusPatchRate) {
  RejectionLoopWorld w;
  DeploymentController dc(w.api, &w.kubelet);
  w.add_ready_node("gpu", ResourceList{{"cpu", 4000}, {"pods", 110}});
  Deployment d;
  d.meta.name = "notebook";
  d.replicas = 1;
  d.tmpl = sleeper();
  dc.apply(d);
  // The burst of 20 patches goes out at t=0: 20 pods fail at once, the 21st waits 100 ms.
  w.run_until_s(0);
  EXPECT_EQ(w.failed_pods(), 20);
  EXPECT_EQ(w.events("UnexpectedAdmissionError").size(), 21u);
  // Then one pod every 100 ms: by 60 s, 20 + 600 have failed and the next is waiting.
  w.run_until_s(60);
  EXPECT_EQ(w.failed_pods(), 620);
  EXPECT_EQ(w.events("UnexpectedAdmissionError").size(), 621u);
  auto failed = w.events("UnexpectedAdmissionError");
  EXPECT_EQ(failed.back().time, engine::SimTime{} + engine::Duration::seconds(60));
  EXPECT_EQ(failed.back().message,
            "Allocate failed due to rpc error: code = Unknown desc = invalid allocation request for "
            "\"nvidia.com/gpu.shared\": invalid request: maximum request size for shared resources is 1; found 2, "
            "which is unexpected");
  EXPECT_EQ(failed.back().source, "kubelet");
  // One active pod at any time: the one waiting for its patch.
  EXPECT_EQ(dc.pods(0).size(), 1u);
}

TEST(AdmissionRejectionLoop, DaemonSetKillsFailedPodsWithinItsBackoff) {
  RejectionLoopWorld w;
  DaemonSetController dsc(w.api, &w.kubelet);
  w.add_ready_node("gpu", ResourceList{{"cpu", 4000}, {"pods", 110}});
  DaemonSet ds;
  ds.meta.name = "plugin";
  ds.meta.ns = "kube-system";
  ds.tmpl = sleeper();
  dsc.apply(ds);
  w.run_until_s(600);
  // Killed at 0, 1, 3, 7, 15, 31, 63, 127, 255 and 511 s: the back-off doubles from 1 s.
  auto found = w.events("FailedDaemonPod", "DaemonSet/kube-system/plugin");
  ASSERT_EQ(found.size(), 10u);
  const std::int64_t want[] = {0, 1, 3, 7, 15, 31, 63, 127, 255, 511};
  for (std::size_t i = 0; i < found.size(); ++i) {
    EXPECT_EQ(found[i].time, engine::SimTime{} + engine::Duration::seconds(want[i])) << i;
    EXPECT_EQ(found[i].type, k8s::EventType::Warning);
    EXPECT_EQ(found[i].source, "daemonset-controller");
  }
  EXPECT_EQ(found[0].message.rfind("Found failed daemon pod kube-system/plugin-", 0), 0u) << found[0].message;
  EXPECT_NE(found[0].message.find(" on node gpu, will try to kill it"), std::string::npos) << found[0].message;
  // Each kill is followed by the controller's delete and a new pod (11 made in all).
  EXPECT_EQ(w.events("SuccessfulDelete", "DaemonSet/kube-system/plugin").size(), 10u);
  EXPECT_EQ(w.events("SuccessfulCreate", "DaemonSet/kube-system/plugin").size(), 11u);
  // Past the 15-minute cap it kills every 15 minutes: 1023 s, then 1923 s.
  w.run_until_s(2000);
  auto later = w.events("FailedDaemonPod", "DaemonSet/kube-system/plugin");
  ASSERT_EQ(later.size(), 12u);
  EXPECT_EQ(later[10].time, engine::SimTime{} + engine::Duration::seconds(1023));
  EXPECT_EQ(later[11].time, engine::SimTime{} + engine::Duration::seconds(1923));
}

}  // namespace
}  // namespace eksim::k8s
