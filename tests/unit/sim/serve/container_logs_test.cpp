#include "sim/serve/container_logs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sim/ops/runner.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::serve {
namespace {

// Lab 001's `kubectl logs gpu-pod` on an EKS Auto Mode g5g node (seed 001), line for line.
constexpr const char* kLab001 = R"(Wed Dec 10 06:44:46 2025       
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 570.195.03             Driver Version: 570.195.03     CUDA Version: 13.0     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA T4G                     On  |   00000000:00:1F.0 Off |                    0 |
| N/A   49C    P8              9W /   70W |       0MiB /  15360MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
                                                                                         
+-----------------------------------------------------------------------------------------+
| Processes:                                                                              |
|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |
|        ID   ID                                                               Usage      |
|=========================================================================================|
|  No running processes found                                                             |
+-----------------------------------------------------------------------------------------+
)";

TEST(ContainerLogs, NvidiaSmiTableMatchesLab001) {
  NvidiaSmiInput in;
  in.date = "Wed Dec 10 06:44:46 2025";
  in.driver = {"570.195.03", "13.0"};
  in.gpu_name = "t4g";
  in.memory_mib = 15360;  // what the lab's nvidia-smi printed (EC2 reports 16384 for g5g)
  in.arm64 = true;
  EXPECT_EQ(nvidia_smi_table(in), kLab001);
}

TEST(ContainerLogs, EveryGpuGetsItsRowsAndTheTableKeepsItsWidth) {
  NvidiaSmiInput in;
  in.date = "Thu Jan  1 00:00:00 2026";
  in.driver = {"580.126.20", "13.0"};
  in.gpu_name = "a10g";
  in.memory_mib = 22888;
  in.count = 4;
  std::string out = nvidia_smi_table(in);
  EXPECT_NE(out.find("|   3  NVIDIA A10G                    On  |   00000000:00:1E.0 Off |                    0 |"), std::string::npos) << out;
  EXPECT_NE(out.find("|   0  NVIDIA A10G                    On  |   00000000:00:1B.0 Off |"), std::string::npos) << out;
  EXPECT_NE(out.find("16W /  300W |       0MiB /  22888MiB |"), std::string::npos) << out;
  std::size_t pos = out.find('\n') + 1;
  while (pos < out.size()) {
    auto nl = out.find('\n', pos);
    EXPECT_EQ(nl - pos, out[pos] == ' ' ? 89u : 91u) << out.substr(pos, nl - pos);  // the blank separator is 89 wide
    pos = nl + 1;
  }
}

}  // namespace
}  // namespace eksim::serve

namespace eksim::serve {
namespace {

// `kubectl logs` of a worker that cannot resolve its rendezvous name: c10d's lines as the
// training controller recorded them (scenarios/networking/coredns-port-53-blocked.yaml).
TEST(ContainerLogs, TrainingWorkerPrintsItsC10dLines) {
  auto s = scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) +
                                   "/scenarios/networking/coredns-port-53-blocked.yaml");
  s.timeline.clear();
  s.duration = engine::Duration::minutes(2);
  auto run = ops::run_scenario(s);
  const Cluster& c = *run.cluster;
  int workers = 0;
  for (std::uint32_t i = 0; i < c.api.pod_slots(); ++i) {
    const k8s::PodRecord& r = c.api.pod(k8s::PodId{i});
    if (r.pod.meta.name.rfind("allreduce-", 0) != 0 || r.pod.status.phase != k8s::PodPhase::Failed) continue;
    ++workers;
    const std::string log = container_log(c, r, r.pod.spec.containers.front(), 0);
    const std::string gai =
        "[c10d] The IPv6 network addresses of (allreduce-0.allreduce, 29400) cannot be retrieved (gai error: -3 - "
        "Temporary failure in name resolution).\n";
    std::string expected;
    for (int k = 0; k < 6; ++k) expected += gai;
    expected +=
        "[c10d] The client socket has timed out after 60000ms while trying to connect to (allreduce-0.allreduce, "
        "29400).\n"
        "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has "
        "failed. See inner exception for details.\n";
    EXPECT_EQ(log, expected) << r.pod.meta.name;
  }
  EXPECT_EQ(workers, 2);
}

}  // namespace
}  // namespace eksim::serve

namespace eksim::serve {
namespace {

std::vector<std::string> lines_of(const std::string& log) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < log.size()) {
    std::size_t end = log.find('\n', pos);
    out.push_back(log.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

// Lab 000's SG experiment with NCCL_DEBUG=INFO on PyTorch 2.8 (NCCL 2.27.3,
// scenarios/nccl/sg-block-restore-nccl-2.27.yaml): the first gang's rank 1 prints its init up to
// the transport setup, then the connect retries under its own prefix, then the watchdog; the gang
// after the restore gets to Init COMPLETE.
TEST(ContainerLogs, NcclDebugInitLinesAroundTheRetries) {
  auto s = scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/nccl/sg-block-restore-nccl-2.27.yaml");
  ops::RunOptions o;
  o.until = engine::Duration::minutes(16);
  auto run = ops::run_scenario(s, o);
  const Cluster& c = *run.cluster;
  int failed = 0, completed = 0;
  for (std::uint32_t i = 0; i < c.api.pod_slots(); ++i) {
    const k8s::PodRecord& r = c.api.pod(k8s::PodId{i});
    if (r.pod.meta.name.rfind("allreduce-1-", 0) != 0) continue;
    const auto lines = lines_of(container_log(c, r, r.pod.spec.containers.front(), 0));
    ASSERT_GT(lines.size(), 20u) << r.pod.meta.name;
    const std::string prefix = lines[0].substr(0, lines[0].find(" NCCL INFO ") + 11);
    EXPECT_EQ(prefix.rfind("allreduce-1:", 0), 0u) << lines[0];   // the Indexed Job's hostname
    EXPECT_EQ(lines[0], prefix + "cudaDriverVersion 13000");    // AL2023 NVIDIA: CUDA 13.0
    EXPECT_EQ(lines[1].rfind(prefix + "Bootstrap : Using eth0:192.168.12.", 0), 0u) << lines[1];
    std::size_t retry = 0, complete = 0, watchdog = 0;
    for (std::size_t k = 0; k < lines.size(); ++k) {
      if (lines[k].find("returned Connection timed out, retrying (1/34)") != std::string::npos) retry = k;
      if (lines[k].find(" - Init COMPLETE") != std::string::npos) complete = k;
      if (lines[k].rfind("[Rank 1] Watchdog caught collective operation timeout", 0) == 0) watchdog = k;
    }
    ASSERT_GT(retry, 0u) << r.pod.meta.name;
    // The retry is the init thread's INFO line, with its prefix.
    EXPECT_NE(lines[retry].find(" [0] NCCL INFO socketPollConnect: connect to 192.168.12."), std::string::npos)
        << lines[retry];
    EXPECT_NE(lines[retry - 1].find("[send] via NET/Socket/0"), std::string::npos) << lines[retry - 1];
    if (r.pod.status.phase == k8s::PodPhase::Failed) {
      ++failed;
      EXPECT_EQ(complete, 0u);
      EXPECT_EQ(watchdog, lines.size() - 1);
    } else {
      ++completed;
      EXPECT_EQ(complete, lines.size() - 1);
      EXPECT_GT(complete, retry);
      EXPECT_EQ(lines[retry + 1].find("Connected all rings"), lines[retry + 1].size() - 19) << lines[retry + 1];
    }
  }
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(completed, 1);
}

// Without NCCL_DEBUG, NCCL prints nothing: no init lines, and neither the retries' INFO lines.
TEST(ContainerLogs, NoNcclLinesWithoutNcclDebug) {
  auto s = scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/nccl/sg-block-restore-nccl-2.27.yaml");
  for (auto& m : s.manifests)
    if (auto* job = std::get_if<k8s::Job>(&m.object)) job->tmpl->spec.containers.mut().front().env.clear();
  ops::RunOptions o;
  o.until = engine::Duration::minutes(12);
  auto run = ops::run_scenario(s, o);
  const Cluster& c = *run.cluster;
  int seen = 0;
  for (std::uint32_t i = 0; i < c.api.pod_slots(); ++i) {
    const k8s::PodRecord& r = c.api.pod(k8s::PodId{i});
    if (r.pod.meta.name.rfind("allreduce-1-", 0) != 0 || r.pod.status.phase != k8s::PodPhase::Failed) continue;
    ++seen;
    const std::string log = container_log(c, r, r.pod.spec.containers.front(), 0);
    EXPECT_EQ(log.find("NCCL INFO"), std::string::npos) << log;
    EXPECT_EQ(lines_of(log).size(), 1u) << log;  // only the PyTorch watchdog's line
    EXPECT_EQ(log.rfind("[Rank 1] Watchdog caught collective operation timeout", 0), 0u) << log;
  }
  EXPECT_EQ(seen, 1);
}

// The lab's own image, PyTorch 2.5.1 (NCCL 2.21.5, scenarios/nccl/sg-block-restore.yaml): rank 1
// prints NCCL's WARN as src/debug.cc writes it (an empty line, the prefix, file:line), the `-> 2`
// chain under its INFO prefix, then PyTorch's DistBackendError; rank 0 names its NCCL.
TEST(ContainerLogs, Nccl2215WarnChainAndDistBackendError) {
  auto s = scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/nccl/sg-block-restore.yaml");
  ops::RunOptions o;
  o.until = engine::Duration::minutes(3);
  auto run = ops::run_scenario(s, o);
  const Cluster& c = *run.cluster;
  int seen = 0;
  for (std::uint32_t i = 0; i < c.api.pod_slots(); ++i) {
    const k8s::PodRecord& r = c.api.pod(k8s::PodId{i});
    if (r.pod.meta.name.rfind("allreduce-", 0) != 0 || r.pod.status.phase != k8s::PodPhase::Failed) continue;
    const auto lines = lines_of(container_log(c, r, r.pod.spec.containers.front(), 0));
    if (r.pod.meta.name.rfind("allreduce-0-", 0) == 0) {
      EXPECT_NE(std::find(lines.begin(), lines.end(), "NCCL version 2.21.5+cuda12.4"), lines.end());
      continue;
    }
    ++seen;
    std::size_t warn = 0;
    for (std::size_t k = 0; k < lines.size(); ++k)
      if (lines[k].find(" NCCL WARN ") != std::string::npos) warn = k;
    ASSERT_GT(warn, 1u);
    ASSERT_GT(lines.size(), warn + 8);
    // The init thread's "<host>:<pid>:<tid> [0] ", the same for the WARN and the chain.
    const std::string prefix = lines[warn + 1].substr(0, lines[warn + 1].find(" NCCL INFO ") + 1);
    EXPECT_EQ(prefix.rfind("allreduce-1:", 0), 0u) << prefix;
    EXPECT_EQ(lines[warn - 1], "");
    EXPECT_EQ(lines[warn].rfind(prefix + "misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 192.168.12.", 0), 0u)
        << lines[warn];
    EXPECT_EQ(lines[warn + 1], prefix + "NCCL INFO misc/socket.cc:567 -> 2");
    EXPECT_EQ(lines[warn + 4], prefix + "NCCL INFO init.cc:1534 -> 2");
    EXPECT_EQ(lines[warn + 5].rfind("torch.distributed.DistBackendError: NCCL error in: ", 0), 0u) << lines[warn + 5];
    EXPECT_EQ(lines[warn + 7], "Last error:");
    EXPECT_EQ(r.pod.status.message, lines[warn + 5]);
  }
  EXPECT_EQ(seen, 1);
}

}  // namespace
}  // namespace eksim::serve

namespace eksim::serve {
namespace {

// Lab 004: the static device plugin manifest lands on every node. `kubectl logs` of the pods on
// the t3.medium nodes shows the plugin's crash (no NVML) and their Last State its exit 1; the one
// on the g4dn node registers nvidia.com/gpu.
TEST(ContainerLogs, DevicePluginPrintsItsCrashOnCpuNodesAndItsRegistrationOnTheGpuNode) {
  auto s = scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/labs/004-static-device-plugin.yaml");
  s.duration = engine::Duration::minutes(9);
  auto run = ops::run_scenario(s);
  const Cluster& c = *run.cluster;
  int crashing = 0, serving = 0;
  for (std::uint32_t i = 0; i < c.api.pod_slots(); ++i) {
    const k8s::PodRecord& r = c.api.pod(k8s::PodId{i});
    if (r.deleted || r.pod.meta.name.rfind("nvidia-device-plugin-daemonset-", 0) != 0) continue;
    const std::string log = container_log(c, r, r.pod.spec.containers.front(), 0);
    ASSERT_EQ(log.rfind("I0101 00:", 0), 0u) << log;  // klog's header, dated from the epoch anchor 0
    if (r.pod.status.reason == "CrashLoopBackOff") {
      ++crashing;
      EXPECT_NE(log.find("] error starting plugins: error getting plugins: unable to create plugins: failed to "
                         "construct resource managers: invalid device discovery strategy\n"),
                std::string::npos)
          << log;
      ASSERT_TRUE(r.pod.status.last_termination);
      EXPECT_EQ(r.pod.status.last_termination->exit_code, 1);
      EXPECT_GE(r.pod.status.restart_count, 2);
      // The log is the latest run's: it starts when the container last started.
      EXPECT_EQ(r.pod.status.last_termination->started_at, *r.pod.status.container_started_at);
      EXPECT_GT(*r.pod.status.container_started_at, *r.pod.status.started_at);
    } else {
      ++serving;
      EXPECT_NE(log.find("] Registered device plugin for 'nvidia.com/gpu' with Kubelet\n"), std::string::npos) << log;
      EXPECT_FALSE(r.pod.status.last_termination);
    }
  }
  EXPECT_EQ(crashing, 2);
  EXPECT_EQ(serving, 1);
}

}  // namespace
}  // namespace eksim::serve
