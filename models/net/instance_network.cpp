#include "models/net/instance_network.hpp"

#include <algorithm>

namespace eksim::net {

NodeNetworkSpec node_network_spec(const aws::InstanceType& t, const NetParams& params) {
  NodeNetworkSpec s;
  s.instance_type = t.name;
  s.nic_baseline_gbps = t.network_baseline_gbps;
  s.nic_burst_gbps = t.network_burst_gbps;
  s.nic_up_to = t.network_up_to;
  s.efa = t.efa;
  s.gpus = std::max(1, t.gpu.count);
  s.cpu_amd = t.cpu_manufacturer == "amd";
  if (s.efa) s.efa_hw = efa_hardware(params, t.family);
  // Two vCPUs per core; more vCPUs than one socket's cores give the type both sockets.
  auto cores = params.cores_per_socket.find(t.family);
  if (cores != params.cores_per_socket.end() && t.vcpu > 2 * cores->second) {
    s.cpu_sockets = (t.vcpu + 2 * cores->second - 1) / (2 * cores->second);
    s.socket_link_gbytes_per_s = s.cpu_amd ? params.amd_socket_link_gbytes_per_s : params.intel_socket_link_gbytes_per_s;
  }
  auto board = params.gpus.find(t.gpu.name);
  if (board != params.gpus.end() && t.gpu.count > 1) {
    // NVLink as NCCL's topology counts it (links x per-link GB/s), not the marketing figure.
    s.gpu = board->second;
    s.intra = Interconnect::NVLink;
    s.intra_gbytes_per_s = board->second.nvlink_gbytes_per_s;
  } else if (board != params.gpus.end()) {
    s.gpu.arch = board->second.arch;
  } else if (t.gpu.interconnect == "nvlink") {
    // The catalog gives NVLink's bidirectional GB/s; a ring edge carries one direction.
    s.intra = Interconnect::NVLink;
    s.intra_gbytes_per_s = t.gpu.nvlink_gbytes_per_s / 2;
  }
  return s;
}

}  // namespace eksim::net
