#include "models/k8s/kubelet/kubelet.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "tests/unit/models/k8s/k8s_test_util.hpp"

namespace eksim::k8s {
namespace {

using testing::K8sWorld;
using testing::make_pod;
using testing::secs;

constexpr const char* kCuda = "nvidia/cuda:13.0.2-runtime-ubuntu22.04";

ResourceList node_alloc(std::int64_t gpus = -1) {
  ResourceList r{{"cpu", 3920}, {"memory", 15378852LL * 1024}, {"pods", 29}};
  if (gpus >= 0) r.set(kNvidiaGpu, gpus);
  return r;
}

RunAnnotations runs_for(engine::Duration d, std::int32_t exit_code) {
  RunAnnotations run;
  run.duration = d;
  run.exit_code = exit_code;
  return run;
}

TEST(KubeletContainerRun, ReadsCommandsAsTheLabsWriteThem) {
  struct Case {
    std::vector<std::string> command, args;
    RunAnnotations run;  // the decoded eksim.io annotations
    std::optional<double> seconds;
    int exit_code;
  };
  const Case cases[] = {
      {{"nvidia-smi"}, {}, {}, 1.0, 0},
      {{"/bin/sh", "-c"}, {"nvidia-smi && sleep 300"}, {}, 301.0, 0},
      {{"sleep", "5m"}, {}, {}, 300.0, 0},
      {{"sh", "-c", "sleep infinity"}, {}, {}, std::nullopt, 0},
      {{"python", "train.py"}, {}, {}, std::nullopt, 0},
      {{}, {}, {}, std::nullopt, 0},
      {{"nvidia-smi"}, {}, runs_for(engine::Duration::minutes(2), 3), 120.0, 3},
      // GNU sleep takes 1e300 seconds (longer than any run): saturated, not wrapped to "done".
      {{"sleep", "1e300"}, {}, {}, engine::Duration::max().to_seconds(), 0},
  };
  for (const auto& c : cases) {
    Pod p = make_pod("p", "img", c.command, c.args);
    p.run = c.run;
    ContainerRun r = container_run(p);
    ASSERT_EQ(r.duration.has_value(), c.seconds.has_value()) << (c.command.empty() ? "" : c.command[0]);
    if (c.seconds) {
      EXPECT_DOUBLE_EQ(r.duration->to_seconds(), *c.seconds);
    }
    EXPECT_EQ(r.exit_code, c.exit_code);
  }
}

TEST(Kubelet, Lab001OneShotNvidiaSmiGoesIntoCrashLoopBackOff) {
  K8sWorld w;
  Kubelet kubelet(w.api);
  NodeId node = w.add_ready_node("i-0b2714b5d7951c695", node_alloc(1));
  Pod p = make_pod("gpu-pod", kCuda, {"nvidia-smi"});
  p.spec.containers.mut()[0].name = "cuda-container";
  p.spec.containers.mut()[0].requests.set(kNvidiaGpu, 1);
  PodId id = w.api.create_pod(p);
  w.api.bind(id, node);
  EXPECT_EQ(w.api.pod(id).pod.status.reason, "ContainerCreating");
  w.run_until_s(400);

  auto pulling = w.events("Pulling");
  ASSERT_EQ(pulling.size(), 1u);
  EXPECT_DOUBLE_EQ(pulling[0].time.to_seconds(), 5.0);
  EXPECT_EQ(pulling[0].message, "Pulling image \"nvidia/cuda:13.0.2-runtime-ubuntu22.04\"");
  auto pulled = w.events("Pulled");
  ASSERT_GE(pulled.size(), 3u);
  EXPECT_EQ(pulled[0].message,
            "Successfully pulled image \"nvidia/cuda:13.0.2-runtime-ubuntu22.04\" in 58.965s (58.965s including "
            "waiting). Image size: 1766399024 bytes.");
  EXPECT_NEAR(pulled[0].time.to_seconds(), 63.965, 1e-6);
  EXPECT_EQ(pulled[1].message, "Container image \"nvidia/cuda:13.0.2-runtime-ubuntu22.04\" already present on machine");
  auto started = w.events("Started");
  ASSERT_GE(started.size(), 3u);
  EXPECT_EQ(started[0].message, "Started container cuda-container");
  EXPECT_EQ(w.events("Created")[0].message, "Created container: cuda-container");
  // Runs 1 s, first restart 10 s later (lab 001: first "already present" 11 s after the pull).
  EXPECT_NEAR(started[1].time.to_seconds() - started[0].time.to_seconds(), 11.0, 1e-6);
  auto backoff = w.events("BackOff");
  ASSERT_FALSE(backoff.empty());
  EXPECT_EQ(backoff[0].type, k8s::EventType::Warning);
  EXPECT_EQ(backoff[0].message, "Back-off restarting failed container cuda-container in pod gpu-pod_default(" +
                                    w.api.pod(id).pod.meta.uid + ")");
  EXPECT_NEAR(backoff[0].time.to_seconds() - started[0].time.to_seconds(), 12.0, 1e-6);
  // Lab 001 describe: Created x6 over 3m21s, BackOff x15 over 3m9s (seen 3m21s after the pull).
  int starts = 0, backoffs = 0;
  double window_end = started[0].time.to_seconds() + 201;
  for (const auto& e : started) starts += e.time.to_seconds() <= window_end;
  for (const auto& e : backoff) backoffs += e.time.to_seconds() <= window_end;
  EXPECT_GE(starts, 5);
  EXPECT_LE(starts, 6);
  EXPECT_GE(backoffs, 12);
  EXPECT_LE(backoffs, 18);
  EXPECT_EQ(backoff.back().count, static_cast<int>(backoff.size()));  // aggregated like "x15"
  const auto& st = w.api.pod(id).pod.status;
  EXPECT_EQ(st.phase, PodPhase::Running);
  EXPECT_EQ(st.reason, "CrashLoopBackOff");
  EXPECT_GE(st.restart_count, 5);
}

TEST(Kubelet, BackOffDoublesToFiveMinutes) {
  K8sWorld w;
  KubeletConfig cfg;
  cfg.resync_jitter = 0;  // syncs exactly every 10 s
  Kubelet kubelet(w.api, cfg);
  NodeId node = w.add_ready_node("n1", node_alloc());
  PodId id = w.api.create_pod(make_pod("crash", "busybox", {"sh", "-c", "sleep 1"}));
  w.api.bind(id, node);
  w.run_until_s(3600);
  auto started = w.events("Started");
  ASSERT_GE(started.size(), 9u);
  std::vector<double> gaps;
  for (std::size_t i = 1; i < started.size(); ++i)
    gaps.push_back(started[i].time.to_seconds() - started[i - 1].time.to_seconds() - 1.0);
  // Back-off 10, 20, 40, 80, 160, 300, 300 s; with 10 s syncs the restart lands on the first sync
  // at or after the back-off.
  EXPECT_DOUBLE_EQ(gaps[0], 10);
  EXPECT_DOUBLE_EQ(gaps[1], 20);
  EXPECT_DOUBLE_EQ(gaps[2], 40);
  EXPECT_DOUBLE_EQ(gaps[3], 80);
  EXPECT_DOUBLE_EQ(gaps[4], 160);
  EXPECT_DOUBLE_EQ(gaps[5], 300);
  EXPECT_DOUBLE_EQ(gaps[6], 300);
}

TEST(Kubelet, UnreachableRegistryGivesErrImagePullThenImagePullBackOff) {
  K8sWorld w;
  Kubelet kubelet(w.api);
  bool blocked = true;
  std::vector<double> attempts;
  const std::string error = "rpc error: code = Unknown desc = ...: dial tcp 52.1.2.3:443: i/o timeout";
  kubelet.pull_error = [&](PodId, const std::string&) -> std::optional<std::string> {
    attempts.push_back(secs(w.sim.now()));
    if (blocked) return error;
    return std::nullopt;
  };
  NodeId node = w.add_ready_node("n1", node_alloc());
  PodId id = w.api.create_pod(make_pod("p", kCuda, {"sleep", "infinity"}));
  w.api.bind(id, node);
  // Sandbox at 5 s, Pulling, then containerd's 30 s dial timeout.
  w.run_until_s(34);
  ASSERT_EQ(w.events("Pulling").size(), 1u);
  EXPECT_TRUE(w.events("Failed").empty());
  w.run_until_s(35.5);
  auto failed = w.events("Failed");
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].message, std::string("Failed to pull image \"") + kCuda + "\": " + error);
  EXPECT_EQ(failed[0].type, k8s::EventType::Warning);
  EXPECT_EQ(failed[1].message, "Error: ErrImagePull");
  EXPECT_EQ(w.api.pod(id).pod.status.phase, PodPhase::Pending);
  EXPECT_EQ(w.api.pod(id).pod.status.reason, "ErrImagePull");
  // The pod worker's next sync, a second later, is inside the 10 s back-off.
  w.run_until_s(35.9);
  EXPECT_EQ(w.api.pod(id).pod.status.reason, "ErrImagePull");
  w.run_until_s(36.1);
  ASSERT_GE(w.events("BackOff").size(), 1u);
  EXPECT_EQ(w.events("BackOff")[0].message, std::string("Back-off pulling image \"") + kCuda + "\"");
  EXPECT_EQ(w.api.pod(id).pod.status.reason, "ImagePullBackOff");
  // Attempts: the back-off doubles (10, 20, 40, ... s) up to 5 minutes.
  w.run_until_s(3600);
  ASSERT_GE(attempts.size(), 8u);
  for (std::size_t i = 1; i < attempts.size(); ++i) {
    double gap = attempts[i] - attempts[i - 1];
    double backoff = std::min(10.0 * (1 << std::min<std::size_t>(i - 1, 5)), 300.0);
    EXPECT_GE(gap, 30 + backoff) << i;
    EXPECT_LE(gap, 30 + backoff + 15) << i;
  }
  EXPECT_TRUE(w.events("Started").empty());
  // Fixed (the security group opened): the next attempt pulls and the container starts.
  blocked = false;
  w.run_until_s(4000);
  EXPECT_EQ(w.api.pod(id).pod.status.phase, PodPhase::Running);
  EXPECT_EQ(w.events("Pulled").size(), 1u);
}

TEST(Kubelet, RestartPolicyNeverEndsInSucceededOrFailed) {
  K8sWorld w;
  Kubelet kubelet(w.api);
  NodeId node = w.add_ready_node("n1", node_alloc(1));
  Pod ok = make_pod("gpu-pod", kCuda, {"/bin/sh", "-c"}, {"nvidia-smi && sleep 300"}, "Never");
  PodId a = w.api.create_pod(ok);
  Pod bad = make_pod("bad", "busybox", {"false"}, {}, "Never");
  bad.run.duration = engine::Duration::seconds(30);
  bad.run.exit_code = 1;
  PodId b = w.api.create_pod(bad);
  w.api.bind(a, node);
  w.api.bind(b, node);
  w.run_until_s(1000);
  const auto& sa = w.api.pod(a).pod.status;
  EXPECT_EQ(sa.phase, PodPhase::Succeeded);
  EXPECT_NEAR(secs(*sa.finished_at) - secs(*sa.started_at), 301.0, 1e-6);
  const auto& sb = w.api.pod(b).pod.status;
  EXPECT_EQ(sb.phase, PodPhase::Failed);
  EXPECT_EQ(sb.reason, "Error");
  // busybox (default size 100 MB at ~30 MB/s) pulled while the cuda pull runs.
  EXPECT_NEAR(secs(*sb.finished_at) - secs(*sb.started_at), 30.0, 1e-6);
  EXPECT_TRUE(w.events("BackOff").empty());
}

TEST(Kubelet, ImageCachedPerNodeAndConcurrentPullsWait) {
  K8sWorld w;
  Kubelet kubelet(w.api);
  NodeId n1 = w.add_ready_node("n1", node_alloc());
  NodeId n2 = w.add_ready_node("n2", node_alloc());
  Pod p = make_pod("a", "app:v1", {"sleep", "3600"});
  p.run.image_size = 300000000;
  PodId a = w.api.create_pod(p);
  w.api.bind(a, n1);
  w.run_until_s(6);  // a's pull started at 5 s and takes ~10 s
  p.meta.name = "b";
  PodId b = w.api.create_pod(p);
  w.api.bind(b, n1);  // Pulling at 11 s, waits for a's pull (done ~15 s)
  p.meta.name = "c";
  PodId c = w.api.create_pod(p);
  w.api.bind(c, n2);  // other node: its own pull
  w.run_until_s(100);
  double pull = 300000000.0 / (1766399024.0 / 58.965);
  EXPECT_NEAR(secs(*w.api.pod(a).pod.status.started_at), 5 + pull, 1e-3);
  EXPECT_NEAR(secs(*w.api.pod(b).pod.status.started_at), 5 + pull, 1e-3);
  EXPECT_NEAR(secs(*w.api.pod(c).pod.status.started_at), 11 + pull, 1e-3);
  EXPECT_TRUE(kubelet.image_present(n1, "app:v1"));
  EXPECT_TRUE(kubelet.image_present(n2, "app:v1"));
  p.meta.name = "d";
  PodId d = w.api.create_pod(p);
  w.api.bind(d, n1);
  w.run_until_s(200);
  auto pulled = w.events("Pulled", "Pod/default/d");
  ASSERT_EQ(pulled.size(), 1u);
  EXPECT_EQ(pulled[0].message, "Container image \"app:v1\" already present on machine");
}

TEST(Kubelet, GracefulDeletionHonoursTheGracePeriod) {
  K8sWorld w;
  Kubelet kubelet(w.api);
  NodeId node = w.add_ready_node("n1", node_alloc());
  Pod sleeper = make_pod("sleeper", "busybox", {"sleep", "3600"});
  sleeper.spec.termination_grace_period_seconds = 45;
  PodId s = w.api.create_pod(sleeper);
  PodId web = w.api.create_pod(make_pod("web", "nginx"));
  w.api.bind(s, node);
  w.api.bind(web, node);
  w.run_until_s(100);
  ASSERT_EQ(w.api.pod(s).pod.status.phase, PodPhase::Running);
  kubelet.delete_pod(s);
  kubelet.delete_pod(web);
  EXPECT_TRUE(w.api.pod(s).terminating);
  auto killing = w.events("Killing", "Pod/default/sleeper");
  ASSERT_EQ(killing.size(), 1u);
  EXPECT_EQ(killing[0].message, "Stopping container main");
  w.run_until_s(101.5);
  EXPECT_TRUE(w.api.pod(web).deleted);    // nginx handles SIGTERM: ~1 s
  EXPECT_FALSE(w.api.pod(s).deleted);     // sleep as PID 1 ignores SIGTERM: killed at 45 s
  w.run_until_s(144.9);
  EXPECT_FALSE(w.api.pod(s).deleted);
  w.run_until_s(145.1);
  EXPECT_TRUE(w.api.pod(s).deleted);
}

// Issue 42 item 3: a grace period of 2^63-1 seconds once wrapped to a negative delay (killed at
// once); it is as long as it says.
TEST(Kubelet, HugeGracePeriodDoesNotKillAtOnce) {
  K8sWorld w;
  Kubelet kubelet(w.api);
  NodeId node = w.add_ready_node("n1", node_alloc());
  Pod sleeper = make_pod("sleeper", "busybox", {"sleep", "1e300"});
  sleeper.spec.termination_grace_period_seconds = std::numeric_limits<std::int64_t>::max();
  PodId s = w.api.create_pod(sleeper);
  w.api.bind(s, node);
  w.run_until_s(100);
  ASSERT_EQ(w.api.pod(s).pod.status.phase, PodPhase::Running);  // sleep 1e300 has not finished
  kubelet.delete_pod(s);
  w.run_until_s(100000);
  EXPECT_FALSE(w.api.pod(s).deleted);
  EXPECT_TRUE(w.api.pod(s).terminating);
}

TEST(Kubelet, AdmissionRejectsWhatTheNodeCannotHold) {
  K8sWorld w;
  Kubelet kubelet(w.api);
  NodeId zero = w.add_ready_node("zero-gpus", node_alloc(0));
  NodeId none = w.add_ready_node("no-plugin", node_alloc());
  Pod p = make_pod("gpu-pod", kCuda, {"sleep", "60"});
  p.spec.containers.mut()[0].requests.set(kNvidiaGpu, 1);
  PodId a = w.api.create_pod(p);
  w.api.bind(a, zero);  // nodeName pinning bypasses the scheduler
  p.meta.name = "gpu-pod-2";
  PodId b = w.api.create_pod(p);
  w.api.bind(b, none);
  const auto& sa = w.api.pod(a).pod.status;
  EXPECT_EQ(sa.phase, PodPhase::Failed);
  // The device manager's admit handler runs before the resource fit (kubelet.go), so a node
  // listing nvidia.com/gpu: 0 (the plugin's devices unhealthy) refuses it in its words.
  EXPECT_EQ(sa.reason, "UnexpectedAdmissionError");
  EXPECT_EQ(sa.message, "Pod was rejected: Allocate failed due to no healthy devices present; cannot allocate "
                        "unhealthy devices nvidia.com/gpu, which is unexpected");
  auto ev = w.events("UnexpectedAdmissionError");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].source, "kubelet");
  // A node that does not list the extended resource at all admits the pod
  // (lifecycle/predicate.go removeMissingExtendedResources).
  EXPECT_EQ(w.api.pod(b).pod.status.reason, "ContainerCreating");
}

TEST(Kubelet, DeviceManagerRefusesDevicesAnotherPodHolds) {
  K8sWorld w;
  Kubelet kubelet(w.api);
  NodeId node = w.add_ready_node("one-gpu", node_alloc(1));
  Pod p = make_pod("first", kCuda, {"sleep", "600"});
  p.spec.containers.mut()[0].requests.set(kNvidiaGpu, 1);
  PodId first = w.api.create_pod(p);
  w.api.bind(first, node);
  p.meta.name = "second";
  PodId second = w.api.create_pod(p);
  w.api.bind(second, node);
  EXPECT_EQ(w.api.pod(first).pod.status.reason, "ContainerCreating");
  const auto& st = w.api.pod(second).pod.status;
  EXPECT_EQ(st.phase, PodPhase::Failed);
  EXPECT_EQ(st.reason, "UnexpectedAdmissionError");
  EXPECT_EQ(st.message, "Pod was rejected: Allocate failed due to requested number of devices unavailable for "
                        "nvidia.com/gpu. Requested: 1, Available: 0, which is unexpected");
}

}  // namespace
}  // namespace eksim::k8s
