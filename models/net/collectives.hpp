#pragma once
// Ring collectives by the alpha-beta model, in NCCL's terms.
//
//   all-reduce               T = 2(n-1)·α + 2(n-1)/n · S/B
//   all-gather, reduce-scatter T = (n-1)·α + (n-1)/n · S/B      (S = the gathered / input size)
//   broadcast (pipelined ring) T = (n-1)·α + S/B
//
// On a real topology α differs per ring step and NCCL adds a base latency once per operation, so
// ring_collective() computes T = base(p) + Σ_steps α_step(p) + factor · S / (B · eff(p)) where
//   base(p)      NCCL's Ring base latency for protocol p (LL/LL128/Simple 6.6/14.0/8.4 µs),
//   α_step(p)    NCCL's per-hop latency for the hardware of that step (NVLink, PCIe or NET), plus
//                RTT/2 of the AZ pair for a step that crosses nodes,
//   B            the slowest ring edge (the node's NIC share, or the intra-node link),
//   eff(p)       1/4 for LL, 0.92 for LL128, 1 for Simple (NCCL tuning.cc).
// Channels (several rings) split S between rings that share the same NICs and links, so they do
// not change B; they multiply the number of TCP flows, which matters for the per-flow cap (links.hpp).
//
// Protocol choice follows NCCL's tuner: the protocol with the smallest predicted time, predicted
// with NCCL's own view (no RTT, ENA assumed at 10 Gbps for sockets, ring Simple all-reduce across
// nodes with its latency x1.9 "plateau" correction once S >= nranks/16 x 64 KiB, LL128 only on
// NVLink nodes with EFA or a single node). The time reported is then the model's time for that
// protocol on the real link. NCCL also considers Tree/NVLS/CollNet; this model knows only rings.
#include "models/net/links.hpp"
#include "models/net/net_params.hpp"

namespace eksim::net {

enum class Collective { AllReduce, AllGather, ReduceScatter, Broadcast };
const char* collective_name(Collective c);

// The closed form above, with one α for every step and no base latency. bytes in bytes, alpha in
// µs, bandwidth in GB/s (1e9 B/s); returns µs.
double ring_alpha_beta_us(Collective c, int n, double bytes, double alpha_us, double gbytes_per_s);

// nccl-tests' bus bandwidth factor: busbw = algbw x factor.
// all-reduce 2(n-1)/n; all-gather, reduce-scatter (n-1)/n; broadcast 1.
double busbw_factor(Collective c, int n);

// Steps of the ring and how many of them cross nodes (NCCL tuning.cc: all-reduce 2(n-1) steps of
// which 2·nodes inter-node, capped; all-gather/reduce-scatter n-1 and nodes-1; broadcast as a
// pipelined chain, n-1 and nodes-1).
struct RingSteps {
  int total = 0;
  int inter_node = 0;
};
RingSteps ring_steps(Collective c, int ranks, int nodes);

struct CollectiveTiming {
  Protocol protocol = Protocol::Simple;
  double time_us = 0;
  double algbw_gbytes_per_s = 0;  // S / t
  double busbw_gbytes_per_s = 0;  // algbw x busbw_factor
  double alpha_total_us = 0;      // base + Σ α_step: the latency part of time_us
  double bandwidth_gbytes_per_s = 0;  // B · eff(p): the bandwidth part's rate
};

// Model time of one protocol on the real topology.
CollectiveTiming ring_collective_with(Collective c, const RingTopology& topo, double bytes, Protocol p,
                                      const NcclParams& nccl);

// NCCL's pick for this size (see above).
Protocol choose_protocol(Collective c, const RingTopology& topo, double bytes, const NcclParams& nccl);

// choose_protocol, then ring_collective_with.
CollectiveTiming ring_collective(Collective c, const RingTopology& topo, double bytes, const NcclParams& nccl);

}  // namespace eksim::net
