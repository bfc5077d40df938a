#include "models/net/links.hpp"

#include <algorithm>
#include <limits>

#include "models/net/sharing.hpp"

namespace eksim::net {

const char* interconnect_name(Interconnect i) { return i == Interconnect::NVLink ? "NVLink" : "PCIe"; }
const char* transport_name(NetTransport t) { return t == NetTransport::Efa ? "EFA" : "Socket"; }

double rtt_us(bool cross_az, const NetParams& params) {
  return 1000.0 * (cross_az ? params.cross_az_rtt_ms : params.same_az_rtt_ms);
}

NodeLink node_to_node_link(const NodeNetworkSpec& spec, const LinkOptions& options, const NetParams& params) {
  NodeLink link;
  // "Up to" types sustain only their baseline (AWS: the burst needs network I/O credits).
  link.nic_gbps = (spec.nic_up_to && options.allow_burst) ? spec.nic_burst_gbps : spec.nic_baseline_gbps;
  link.rtt_us = rtt_us(options.cross_az, params);
  if (spec.efa && options.efa_enabled && !options.cross_az) {
    link.transport = NetTransport::Efa;
    link.gbytes_per_s = link.nic_gbps / 8.0;
    link.tuner_gbytes_per_s = link.gbytes_per_s;
    link.tuner_latency_us = spec.efa_hw.plugin_latency_us;
    link.hop_latency_us = spec.efa_hw.hop_latency_us;
    link.simple_only = !spec.efa_hw.in_order_128b;
    return link;
  }
  link.transport = NetTransport::Socket;
  const NcclParams& n = params.nccl;
  link.flows = std::max(1, n.channels) * std::max(1, n.socket_nthreads) * std::max(1, n.nsocks_perthread);
  link.per_flow_cap_gbps =
      options.placement_group ? params.per_flow_cap_placement_group_gbps : params.per_flow_cap_gbps;
  // A flow moves at most one receive window per round trip: it binds over long RTTs only.
  if (params.tcp_window_bytes > 0 && link.rtt_us > 0)
    link.per_flow_cap_gbps = std::min(link.per_flow_cap_gbps, params.tcp_window_bytes * 8 / (link.rtt_us * 1e3));
  // The pair's TCP flows share the sender's NIC max-min fairly, each also held to the per-flow cap.
  Eigen::MatrixXd incidence = Eigen::MatrixXd::Ones(link.flows, 1);
  Eigen::VectorXd capacity(1);
  capacity(0) = link.nic_gbps;
  Eigen::VectorXd caps = Eigen::VectorXd::Constant(link.flows, link.per_flow_cap_gbps);
  const double shared = max_min_fair_rates(incidence, capacity, caps).sum();
  link.gbytes_per_s = shared / 8.0;
  link.tuner_gbytes_per_s = n.ena_assumed_gbps / 8.0;
  link.hop_latency_us = link.rtt_us / 2.0;
  return link;
}

double collective_gbytes_per_s(const NodeLink& link, const NcclParams& nccl) {
  const double rate = link.gbytes_per_s * nccl.net_bandwidth_efficiency;
  if (link.transport == NetTransport::Efa || nccl.socket_max_gbps <= 0) return rate;
  return std::min(rate, nccl.socket_max_gbps / 8.0);
}

RingTopology make_ring_topology(const NodeNetworkSpec& spec, int nodes, int gpus_per_node,
                                const LinkOptions& options, const NetParams& params) {
  RingTopology t;
  t.nodes = std::max(1, nodes);
  t.gpus_per_node = std::max(1, gpus_per_node);
  t.intra = spec.intra;
  t.intra_gbytes_per_s = spec.intra_gbytes_per_s > 0 ? spec.intra_gbytes_per_s : params.pcie_gen4_gbytes_per_s;
  // More GPUs than one socket holds: NCCL's ring leaves one socket's PCIe tree for the other's, and
  // that edge runs at the socket link's rate.
  if (spec.intra == Interconnect::PCIe && spec.cpu_sockets > 1 && spec.socket_link_gbytes_per_s > 0 &&
      t.gpus_per_node > spec.gpus / spec.cpu_sockets) {
    t.cpu_sockets_crossed = spec.cpu_sockets;
    t.intra_gbytes_per_s = std::min(t.intra_gbytes_per_s, spec.socket_link_gbytes_per_s);
  }
  t.inter = node_to_node_link(spec, options, params);
  // NCCL enables LL128 by default only with NVLink inside the node and, across nodes, a NIC close
  // to the GPU (GPUDirect RDMA, i.e. EFA here); TCP sockets go through host memory.
  t.ll128_enabled = spec.intra == Interconnect::NVLink &&
                    (t.nodes == 1 || t.inter.transport == NetTransport::Efa);
  t.gpu = spec.gpu;
  t.cpu_amd = spec.cpu_amd;
  t.channels = spec.gpu.channels > 0 ? spec.gpu.channels : std::max(1, params.nccl.channels);
  return t;
}

}  // namespace eksim::net
