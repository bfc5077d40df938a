#pragma once
// Collectives as NCCL runs them, and as nccl-tests reports them.
//
// nccl_collective() asks NCCL's tuner (nccl_tuner.hpp) which algorithm and protocol it would run
// for the size, then times that pair on the real links: T = latency + S / bandwidth, in NCCL's
// own formulas evaluated with the real hop latencies and NIC shares. Alltoall is not a tuner
// collective: NCCL sends each peer its slice directly (P2P), so its time is the slowest of the
// GPU's NVLink share and the node's NIC share for the bytes that cross them, after one hop.
//
// The textbook ring (alpha-beta) closed forms stay for reference and tests:
//   all-reduce               T = 2(n-1)·α + 2(n-1)/n · S/B
//   all-gather, reduce-scatter T = (n-1)·α + (n-1)/n · S/B      (S = the gathered / input size)
//   broadcast, reduce (pipelined ring) T = (n-1)·α + S/B
#include "models/net/links.hpp"
#include "models/net/nccl_tuner.hpp"
#include "models/net/net_params.hpp"

namespace eksim::net {

// The closed form above, with one α for every step and no base latency. bytes in bytes, alpha in
// µs, bandwidth in GB/s (1e9 B/s); returns µs.
double ring_alpha_beta_us(Collective c, int n, double bytes, double alpha_us, double gbytes_per_s);

// nccl-tests' bus bandwidth factor: busbw = algbw x factor.
// all-reduce 2(n-1)/n; all-gather, reduce-scatter, alltoall (n-1)/n; broadcast, reduce 1.
double busbw_factor(Collective c, int n);

// Steps of the ring and how many of them cross nodes (NCCL tuning.cc: all-reduce 2(n-1) steps of
// which 2·nodes inter-node, capped; all-gather/reduce-scatter n-1 and nodes-1; broadcast and
// reduce as a pipelined chain, n-1 and nodes-1).
struct RingSteps {
  int total = 0;
  int inter_node = 0;
};
RingSteps ring_steps(Collective c, int ranks, int nodes);

struct CollectiveTiming {
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
  double time_us = 0;
  double algbw_gbytes_per_s = 0;  // S / t
  double busbw_gbytes_per_s = 0;  // algbw x busbw_factor
  double alpha_total_us = 0;      // the latency part of time_us
  double bandwidth_gbytes_per_s = 0;  // the bandwidth part's rate (NCCL's algorithm bandwidth)
};

// The real time of one algorithm and protocol on the topology.
CollectiveTiming collective_with(Collective c, const RingTopology& topo, double bytes, Algorithm a, Protocol p,
                                 const NcclParams& nccl);

// NCCL's pick for this size (choose_algorithm), timed by collective_with; alltoall by P2P.
CollectiveTiming nccl_collective(Collective c, const RingTopology& topo, double bytes, const NcclParams& nccl);

}  // namespace eksim::net
