#pragma once
// Defaults of the network model (RTTs by AZ pair, per-flow caps, NCCL constants, TCP and PyTorch
// timeouts). They live in models/data/az_latency.json, next to their sources, and are loaded into
// this plain struct; a scenario overrides fields of the struct directly. The JSON is chosen over
// constants in code because DESIGN.md puts the AZ latency matrix in models/data and scenarios
// override it; NCCL's constants travel with it so that one file lists every number the model uses.
#include <array>
#include <cstdint>
#include <string_view>

namespace eksim::net {

// NCCL's protocols, in NCCL's own order (NCCL_PROTO_LL, NCCL_PROTO_LL128, NCCL_PROTO_SIMPLE).
enum class Protocol { LL = 0, LL128 = 1, Simple = 2 };
const char* protocol_name(Protocol p);

using PerProtocol = std::array<double, 3>;

struct NcclParams {
  PerProtocol ring_base_latency_us{};   // tuning.cc baseLat, Ring
  PerProtocol hop_latency_net_us{};     // tuning.cc hwLat[NET], Ring
  PerProtocol hop_latency_pcie_us{};    // tuning.cc hwLat[PCI], Ring
  PerProtocol hop_latency_nvlink_us{};  // tuning.cc hwLat[NVLINK], Ring
  double ll_bandwidth_factor = 0;
  double ll128_bandwidth_factor = 0;
  double ring_simple_plateau_factor = 0;
  int socket_nthreads = 0;   // NCCL_SOCKET_NTHREADS
  int nsocks_perthread = 0;  // NCCL_NSOCKS_PERTHREAD
  int channels = 0;          // rings NCCL builds; each has its own set of sockets
  double ena_assumed_gbps = 0;
  int socket_retry_cnt = 0;       // NCCL_SOCKET_RETRY_CNT
  int socket_retry_sleep_ms = 0;  // NCCL_SOCKET_RETRY_SLEEP_MSEC
};

struct NetParams {
  double same_az_rtt_ms = 0;
  double cross_az_rtt_ms = 0;
  double per_flow_cap_gbps = 0;                  // outside a cluster placement group
  double per_flow_cap_placement_group_gbps = 0;  // inside one
  double pcie_gen4_gbytes_per_s = 0;
  int tcp_syn_retries = 0;
  double tcp_initial_rto_s = 0;
  std::int64_t watchdog_timeout_ms = 0;
  std::int64_t watchdog_overshoot_ms = 0;
  NcclParams nccl;
};

// Parses a document shaped like models/data/az_latency.json. Throws std::runtime_error naming the
// missing or mistyped key.
NetParams parse_net_params(std::string_view json_text);

// The embedded models/data/az_latency.json, parsed once.
const NetParams& default_net_params();

}  // namespace eksim::net
