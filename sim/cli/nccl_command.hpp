#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace eksim::cli {

struct NcclArgs {
  std::string instance;
  int nodes = 2;
  int gpus_per_node = 0;  // 0 = every GPU of the type
  bool cross_az = false;
  bool burst = false;
  std::uint64_t min_bytes = 8;
  std::uint64_t max_bytes = 134217728;
  std::uint64_t step_factor = 2;
  // The security groups every node's ENI carries, defined in the scenario's cluster.securityGroups.
  std::vector<std::string> security_groups;
  std::string scenario;
  // nccl-tests' collective: all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall.
  std::string op = "all_reduce";
  // NCCL_NET: "efa" (default where the type has EFA) or "socket" (NCCL_NET=Socket, or no EFA device).
  std::string net;
  // The NCCL whose tuner constants and connect failures apply ("2.21.5", "2.27.3"); default 2.27.3.
  std::string nccl_version;
};

// `eksim nccl`: the nccl-tests table (all_reduce_perf by default, --op for the others) for the topology. With --security-groups, NCCL's
// connections (bootstrap to the root, ring neighbours to their ephemeral ports) are first checked
// against the groups; a dropped one prints what NCCL and PyTorch print instead of the table.
// 0 printed; 2 invalid input.
int nccl_command(const NcclArgs& args);

}  // namespace eksim::cli
