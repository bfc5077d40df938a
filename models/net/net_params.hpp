#pragma once
// Defaults of the network model (RTTs by AZ pair, per-flow caps, NCCL constants, TCP and PyTorch
// timeouts). They live in models/data/az_latency.json, next to their sources, and are loaded into
// this plain struct; a scenario overrides fields of the struct directly. The JSON is chosen over
// constants in code because DESIGN.md puts the AZ latency matrix in models/data and scenarios
// override it; NCCL's constants travel with it so that one file lists every number the model uses.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace eksim::net {

// NCCL's protocols, in NCCL's own order (NCCL_PROTO_LL, NCCL_PROTO_LL128, NCCL_PROTO_SIMPLE).
enum class Protocol { LL = 0, LL128 = 1, Simple = 2 };
const char* protocol_name(Protocol p);

using PerProtocol = std::array<double, 3>;

struct NcclParams {
  int socket_nthreads = 0;   // NCCL_SOCKET_NTHREADS
  int nsocks_perthread = 0;  // NCCL_NSOCKS_PERTHREAD
  int channels = 0;          // rings NCCL builds; each has its own set of sockets
  double ena_assumed_gbps = 0;
  int socket_retry_cnt = 0;       // NCCL_SOCKET_RETRY_CNT
  int socket_retry_sleep_ms = 0;  // NCCL_SOCKET_RETRY_SLEEP_MSEC
  // Calibration against published nccl-tests (az_latency.json nccl._source_calibration).
  double socket_max_gbps = 0;            // what NCCL's socket transport moves per node pair at most
  double net_bandwidth_efficiency = 0;   // share of the NIC line rate a collective sees (EFA or TCP)
  double nvls_bandwidth_efficiency = 0;  // share of NVLink bandwidth NVLS reaches
  double nvls_latency_us = 0;            // NVLS's start-up time (NCCL's tuner says 25 us)
  int simple_net_fill_chunks = 0;        // Simple over the network: chunks in flight before data flows
  double simple_net_chunk_bytes = 0;
};

// GPU generations as NCCL's tuner tells them apart (its compute-capability rows).
enum class GpuArch { Volta = 0, Ampere = 1, Hopper = 2, Blackwell = 3 };
const char* gpu_arch_name(GpuArch a);

// The GPU board as NCCL's topology search sees it (nccl_hardware.gpus).
struct GpuHardware {
  GpuArch arch = GpuArch::Ampere;
  double nvlink_gbytes_per_s = 0;  // per GPU, one direction: links x NCCL's per-link figure; 0 = PCIe
  bool nvswitch = false;
  bool nvls = false;               // NVLink SHARP
  int channels = 0;                // rings NCCL builds; 0 = nccl.channels
};

// What aws-ofi-nccl tells NCCL about EFA, and what EFA does (nccl_hardware.efa).
struct EfaHardware {
  double plugin_latency_us = 0;  // the latency the plugin reports to NCCL's tuner
  double hop_latency_us = 0;     // one inter-node step, as measured
  // EFA delivers 128-byte writes in order, so NCCL may run LL/LL128 over it; without that
  // aws-ofi-nccl sets NCCL_PROTO=simple (src/platform-aws.cpp).
  bool in_order_128b = false;
};

struct NetParams {
  double same_az_rtt_ms = 0;
  double cross_az_rtt_ms = 0;
  double per_flow_cap_gbps = 0;                  // outside a cluster placement group
  double per_flow_cap_placement_group_gbps = 0;  // inside one
  double pcie_gen4_gbytes_per_s = 0;
  int tcp_syn_retries = 0;
  double tcp_initial_rto_s = 0;
  double tcp_window_bytes = 0;  // the largest receive window a flow advertises: one flow moves at most this per RTT
  std::int64_t watchdog_timeout_ms = 0;
  std::int64_t watchdog_overshoot_ms = 0;
  NcclParams nccl;
  std::map<std::string, GpuHardware> gpus;  // by GPU name as the catalog gives it: "a100", "h100"
  std::map<std::string, EfaHardware> efa;   // by instance family; "default" for the rest
  // PCIe GPU boards of two CPU sockets (nccl_hardware.pcie_hosts): a ring over all their GPUs
  // crosses the socket link, which NCCL rates by CPU vendor.
  std::map<std::string, int> cores_per_socket;  // by instance family
  double amd_socket_link_gbytes_per_s = 0;      // NCCL topo.h AMD_BW
  double intel_socket_link_gbytes_per_s = 0;    // NCCL topo.h SKL_QPI_BW
};

// The EFA entry of an instance family, or the "default" one.
const EfaHardware& efa_hardware(const NetParams& params, const std::string& family);

// Parses a document shaped like models/data/az_latency.json. Throws std::runtime_error naming the
// missing or mistyped key.
NetParams parse_net_params(std::string_view json_text);

// The embedded models/data/az_latency.json, parsed once.
const NetParams& default_net_params();

}  // namespace eksim::net
