#include "sim/serve/container_logs.hpp"

#include <gtest/gtest.h>

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
