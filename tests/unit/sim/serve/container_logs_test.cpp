#include "sim/serve/container_logs.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sim/scenario/runner.hpp"
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
  auto run = scenario::run_scenario(s);
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
