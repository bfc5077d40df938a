#include "models/net/collectives.hpp"

#include <algorithm>
#include <limits>

namespace eksim::net {

namespace {

// Fraction of S that crosses each ring edge, in units of S/B.
double data_factor(Collective c, int n) {
  if (n <= 1) return 0.0;
  switch (c) {
    case Collective::AllReduce: return 2.0 * (n - 1) / n;
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::AllToAll: return static_cast<double>(n - 1) / n;
    case Collective::Broadcast:
    case Collective::Reduce: return 1.0;
  }
  return 0.0;
}

CollectiveTiming timing_of(Collective c, const RingTopology& topo, double bytes, double latency_us, double bandwidth,
                           double time_us) {
  CollectiveTiming t;
  t.time_us = time_us;
  t.alpha_total_us = latency_us;
  t.bandwidth_gbytes_per_s = bandwidth;
  t.algbw_gbytes_per_s = time_us > 0.0 ? bytes / (time_us * 1e3) : 0.0;
  t.busbw_gbytes_per_s = t.algbw_gbytes_per_s * busbw_factor(c, topo.ranks());
  return t;
}

// Alltoall: each GPU sends S/n to every peer. The ppn-1 peers of its node take (ppn-1)/n of S over
// its NVLink; the node's ppn GPUs send (n-ppn)/n of S each through the node's NICs.
CollectiveTiming all_to_all(const RingTopology& topo, double bytes, const NcclParams& nccl) {
  const int n = topo.ranks(), ppn = topo.gpus_per_node;
  double transfer = 0;
  if (ppn > 1) transfer = bytes * (ppn - 1) / n / (topo.intra_gbytes_per_s * 1e3);
  double lat = 0;
  if (topo.nodes > 1) {
    const double nic = collective_gbytes_per_s(topo.inter, nccl);
    transfer = std::max(transfer, bytes * ppn * (n - ppn) / n / (nic * 1e3));
    lat = topo.inter.hop_latency_us;
  }
  // One send/receive round: NCCL's Simple base latency and one hop of the slowest kind.
  lat += 8.4 + (topo.nodes > 1 ? 14.0 : (topo.intra == Interconnect::NVLink ? 3.4 : 5.7));
  CollectiveTiming t = timing_of(Collective::AllToAll, topo, bytes, lat, transfer > 0 ? bytes / (transfer * 1e3) : 0,
                                 lat + transfer);
  t.algorithm = Algorithm::P2P;
  return t;
}

}  // namespace

double ring_alpha_beta_us(Collective c, int n, double bytes, double alpha_us, double gbytes_per_s) {
  if (n <= 1) return 0.0;
  const double latency_steps = c == Collective::AllReduce ? 2.0 * (n - 1) : static_cast<double>(n - 1);
  return latency_steps * alpha_us + data_factor(c, n) * bytes / (gbytes_per_s * 1e3);
}

double busbw_factor(Collective c, int n) {
  if (n <= 1) return (c == Collective::Broadcast || c == Collective::Reduce) ? 1.0 : 0.0;
  return data_factor(c, n);
}

RingSteps ring_steps(Collective c, int ranks, int nodes) {
  RingSteps s;
  if (ranks <= 1) return s;
  if (c == Collective::AllReduce) {
    s.total = 2 * (ranks - 1);
    s.inter_node = nodes > 1 ? 2 * nodes : 0;
  } else {
    s.total = ranks - 1;
    s.inter_node = nodes - 1;
  }
  s.inter_node = std::clamp(s.inter_node, 0, s.total);
  return s;
}

// A communicator of one rank still launches a kernel: NCCL's LL ring base latency.
constexpr double kOneRankUs = 6.6;

CollectiveTiming collective_with(Collective c, const RingTopology& topo, double bytes, Algorithm a, Protocol p,
                                 const NcclParams& nccl) {
  if (topo.ranks() <= 1) return timing_of(c, topo, bytes, kOneRankUs, 0, kOneRankUs);
  const AlgoCost cost = algo_cost(c, topo, a, p, View::Real, nccl);
  const double time = algo_time_us(c, topo, a, p, cost, bytes);
  CollectiveTiming t = timing_of(c, topo, bytes, cost.latency_us, cost.bandwidth, time);
  t.algorithm = a;
  t.protocol = p;
  return t;
}

CollectiveTiming nccl_collective(Collective c, const RingTopology& topo, double bytes, const NcclParams& nccl) {
  if (topo.ranks() <= 1) return collective_with(c, topo, bytes, Algorithm::Ring, Protocol::LL, nccl);
  if (c == Collective::AllToAll) return all_to_all(topo, bytes, nccl);
  const AlgoChoice pick = choose_algorithm(c, topo, bytes, nccl);
  return collective_with(c, topo, bytes, pick.algorithm, pick.protocol, nccl);
}

}  // namespace eksim::net
