#pragma once
// Links between GPUs: inside a node (PCIe or NVLink) and between nodes (the NIC, over NCCL's TCP
// sockets or over EFA). The instance properties come in as a plain NodeNetworkSpec, which the CLI
// and the scenario layer fill from the instance catalog, so this model does not depend on it.
#include <string>

#include "models/net/net_params.hpp"

namespace eksim::net {

enum class Interconnect { PCIe, NVLink };
const char* interconnect_name(Interconnect i);

struct NodeNetworkSpec {
  std::string instance_type;       // for texts only
  double nic_baseline_gbps = 0;    // sustained rate; for fixed-rate types, the rating itself
  double nic_burst_gbps = 0;       // the "up to" figure; equal to the baseline for fixed types
  bool nic_up_to = false;          // the catalog says "up to N Gb"
  bool efa = false;                // the type supports EFA
  int gpus = 1;
  Interconnect intra = Interconnect::PCIe;
  // One direction, per GPU, what a ring edge between two GPUs of the node can carry. PCIe Gen4
  // x16 ~24 GB/s; for NVLink, half the bidirectional figure AWS publishes (p4d 600 -> 300,
  // p5 900 -> 450); instance_network.hpp fills it with NCCL's own per-link figures instead.
  double intra_gbytes_per_s = 24.0;
  GpuHardware gpu;      // arch, NVSwitch, NVLS, channels (PCIe boards: the defaults)
  EfaHardware efa_hw;   // meaningful when efa
  bool cpu_amd = false; // NCCL's LL bandwidth cap across nodes depends on the CPU vendor
  // PCIe boards over two CPU sockets: a ring over more GPUs than one socket holds crosses the
  // socket link (0: one socket).
  int cpu_sockets = 1;
  double socket_link_gbytes_per_s = 0;
};

struct LinkOptions {
  bool cross_az = false;
  bool allow_burst = false;      // let "up to" types run at the burst rate (credits never run out)
  bool efa_enabled = true;       // use EFA where the type has it (device plugin + aws-ofi-nccl)
  bool placement_group = false;  // cluster placement group: 10 Gbps per flow instead of 5
};
// EFA's SRD does not cross an Availability Zone: a cross-AZ pair runs NCCL's socket transport.

enum class NetTransport { Socket, Efa };
const char* transport_name(NetTransport t);

// Node-to-node path as NCCL's inter-node ring edge sees it.
struct NodeLink {
  NetTransport transport = NetTransport::Socket;
  double nic_gbps = 0;           // NIC rate used: baseline, or burst when allowed
  int flows = 0;                 // TCP connections per node pair: channels x threads x sockets; 0 for EFA
  double per_flow_cap_gbps = 0;  // 0 for EFA (SRD sprays packets over many paths)
  double gbytes_per_s = 0;       // one-direction line rate the pair gets (max-min share of the NIC);
                                 // collective_gbytes_per_s says what NCCL moves over it
  double rtt_us = 0;             // from the AZ pair
  // What NCCL's tuner believes the inter-node bandwidth is: ENA reports no link speed, so NCCL
  // assumes ena_assumed_gbps for sockets; EFA reports its real speed.
  double tuner_gbytes_per_s = 0;
  // The latency of one inter-node step: what aws-ofi-nccl reports to NCCL's tuner (0 for sockets)
  // and what the step really costs (EFA's measured hop, or RTT/2 over TCP).
  double tuner_latency_us = 0;
  double hop_latency_us = 0;
  bool simple_only = false;  // aws-ofi-nccl set NCCL_PROTO=simple (EFA without in-order 128-byte writes)
};

NodeLink node_to_node_link(const NodeNetworkSpec& spec, const LinkOptions& options, const NetParams& params);

// What a collective moves per direction over the link: the share of the line rate NCCL's pipeline
// sees (nccl.net_bandwidth_efficiency, whatever the transport), over TCP also held to what NCCL's
// socket transport moves at most (nccl.socket_max_gbps). So EFA and TCP on one NIC carry the same
// bytes; what EFA saves is latency and the host copies that cap sockets on fast NICs.
double collective_gbytes_per_s(const NodeLink& link, const NcclParams& nccl);

double rtt_us(bool cross_az, const NetParams& params);

// Everything the ring model needs about one topology.
struct RingTopology {
  int nodes = 1;
  int gpus_per_node = 1;
  Interconnect intra = Interconnect::PCIe;
  double intra_gbytes_per_s = 0;
  int cpu_sockets_crossed = 1;  // 2: the ring's PCIe edges include the link between two sockets
  NodeLink inter;           // meaningful when nodes > 1
  bool ll128_enabled = false;
  GpuHardware gpu;
  bool cpu_amd = false;
  int channels = 2;         // rings NCCL builds
  int nccl_version = 22703; // NCCL_VERSION_CODE of the NCCL whose tuner decides (2.27.3)
  int ranks() const { return nodes * gpus_per_node; }
};

RingTopology make_ring_topology(const NodeNetworkSpec& spec, int nodes, int gpus_per_node,
                                const LinkOptions& options, const NetParams& params);

}  // namespace eksim::net
