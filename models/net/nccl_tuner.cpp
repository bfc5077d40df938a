#include "models/net/nccl_tuner.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace eksim::net {

const char* collective_name(Collective c) {
  switch (c) {
    case Collective::AllReduce: return "AllReduce";
    case Collective::AllGather: return "AllGather";
    case Collective::ReduceScatter: return "ReduceScatter";
    case Collective::Broadcast: return "Broadcast";
    case Collective::Reduce: return "Reduce";
    case Collective::AllToAll: return "AllToAll";
  }
  return "?";
}

const char* algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::Tree: return "Tree";
    case Algorithm::Ring: return "Ring";
    case Algorithm::CollNetDirect: return "CollNetDirect";
    case Algorithm::CollNetChain: return "CollNetChain";
    case Algorithm::NVLS: return "NVLS";
    case Algorithm::NVLSTree: return "NVLSTree";
    case Algorithm::P2P: return "P2P";
  }
  return "?";
}

namespace {

// NCCL 2.27 src/graph/tuning.cc. Rows: Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree;
// columns LL, LL128, Simple. Latencies in us, bandwidths in GB/s.
using Table = std::array<PerProtocol, 6>;
constexpr Table kBaseLat = {{{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}};
enum Hw { kNvlink = 0, kPci = 1, kNet = 2 };
constexpr std::array<Table, 3> kHwLat = {{
    {{{.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}}},
    {{{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}}},
    {{{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 14}}},
}};
// Rows by GpuArch (Volta, Ampere, Hopper, Blackwell); columns 1 node, 2 nodes, more.
using PerNodes = std::array<std::array<double, 3>, 4>;
constexpr PerNodes kLlMaxBw = {{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}}};
constexpr PerNodes kPerChMaxRingLL128Bw = {{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {73.4, 73.4, 73.4}}};
constexpr PerNodes kPerChMaxTreeLL128Bw = {{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {73.4, 73.4, 58.0}}};
constexpr PerNodes kPerChMaxTreeBw = {{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {77.4, 82.8, 72.0}}};
// Trees at medium sizes, powers of two from 64 B to 256 MiB, per protocol.
constexpr std::array<std::array<double, 23>, 3> kTreeCorrection = {{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
}};
constexpr double kLocalBw = 5000.0;  // topo.h LOC_BW: a node of one GPU has no intra-node edge

// Before 2.24 (tuning.cc at v2.21.5-1): Tree Simple had no base latency and 28 us per hop on every
// kind of link, the network hop of a one-GPU node was its algorithm's own, and ring LL128 ran at
// 0.7 of the bus bandwidth with one GPU per node.
bool before_2_24(const RingTopology& t) { return t.nccl_version < 22400; }

std::size_t idx(auto e) { return static_cast<std::size_t>(e); }

int log2i(double x) { return x < 1 ? -1 : static_cast<int>(std::floor(std::log2(x))); }

bool available(Collective c, const RingTopology& t, Algorithm a, Protocol p) {
  const bool nvls_board = t.gpu.nvls && t.gpus_per_node > 1;
  if ((a == Algorithm::NVLS || a == Algorithm::NVLSTree) && p != Protocol::Simple) return false;
  if (p == Protocol::LL128 && !t.ll128_enabled) return false;
  // NCCL_PROTO=simple, set by aws-ofi-nccl, holds for the whole communicator.
  if (p != Protocol::Simple && t.nodes > 1 && t.inter.simple_only) return false;
  switch (a) {
    case Algorithm::Ring: return c != Collective::AllToAll;
    case Algorithm::Tree: return c == Collective::AllReduce;
    case Algorithm::NVLS:  // across nodes NVLS needs CollNet
      return nvls_board && t.nodes == 1 &&
             (c == Collective::AllReduce || c == Collective::AllGather || c == Collective::ReduceScatter);
    case Algorithm::NVLSTree: return nvls_board && t.nodes > 1 && c == Collective::AllReduce;
    default: return false;
  }
}

// The node's NICs as this view sees them (GB/s, all NICs together).
double net_bandwidth(const RingTopology& t, View v, const NcclParams& nccl) {
  return v == View::Tuner ? t.inter.tuner_gbytes_per_s : collective_gbytes_per_s(t.inter, nccl);
}

struct Steps {
  int total;
  int inter;
};

Steps tuner_steps(Collective c, int n, int nodes) {
  switch (c) {
    case Collective::AllReduce: return {2 * (n - 1), nodes > 1 ? 2 * nodes : 0};
    case Collective::AllGather:
    case Collective::ReduceScatter: return {n - 1, nodes - 1};
    default: return {n, nodes};
  }
}

// The per-channel graph bandwidths (bwIntra, bwInter) NCCL's search would settle on.
std::pair<double, double> graph_bw(const RingTopology& t, Algorithm a, View v, const NcclParams& nccl) {
  const double bi = t.gpus_per_node > 1 ? t.intra_gbytes_per_s : kLocalBw;
  const double bn = net_bandwidth(t, v, nccl);
  double intra = bi, inter = bi;
  if (a == Algorithm::NVLS || a == Algorithm::NVLSTree) {
    intra = bi * (v == View::Real ? nccl.nvls_bandwidth_efficiency : 1.0);
    inter = t.nodes > 1 ? bn : intra;
  } else if (t.nodes > 1) {
    inter = std::min(bi, bn);
    intra = a == Algorithm::Tree ? std::min(bi, 2 * bn) : inter;
  }
  const double ch = std::max(1, t.channels);
  return {intra / ch, inter / ch};
}

double bus_bandwidth(Collective c, const RingTopology& t, Algorithm a, Protocol p, View v, const NcclParams& nccl) {
  const auto [bw_intra, bw_inter] = graph_bw(t, a, v, nccl);
  const int nodes = t.nodes;
  const double ppn = t.gpus_per_node;
  double bw = nodes <= 2 ? bw_intra : bw_inter;
  if (a == Algorithm::NVLS) {
    bw = c == Collective::AllReduce ? std::min(bw_intra, bw_inter)
                                    : std::min(bw_intra * (ppn - 1) / ppn, bw_inter * 0.9);
  }
  if (a == Algorithm::NVLSTree) bw = std::min(bw_intra, nodes <= 2 ? bw_inter : bw_inter / 2);
  const double ch = std::max(1, t.channels);
  double bus = ch * bw;
  const std::size_t arch = idx(t.gpu.arch), n_idx = static_cast<std::size_t>(std::min(nodes - 1, 2));
  // LL's cap: one node by GPU generation, several by CPU vendor (Intel row 0, AMD row 1).
  const double ll_max = kLlMaxBw[nodes == 1 ? arch : (t.cpu_amd ? 1 : 0)][n_idx];
  if (a == Algorithm::Ring && p == Protocol::LL) bus = std::min(ll_max, bus * .5);
  if (a == Algorithm::Ring && p == Protocol::LL128) {
    const double eff = before_2_24(t) && t.gpus_per_node < 2 ? 0.7 : 0.92;
    bus = std::min(bus * eff, ch * kPerChMaxRingLL128Bw[arch][n_idx]);
  }
  if (a == Algorithm::Tree) bus = std::min(bus * .92, ch * kPerChMaxTreeBw[arch][n_idx]);
  if (a == Algorithm::Tree && p == Protocol::LL) bus = std::min(bus / 3.8, ll_max);
  if (a == Algorithm::Tree && p == Protocol::LL128) {
    bus = std::min(bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), ch * kPerChMaxTreeLL128Bw[arch][n_idx]);
  }
  const bool ag_rs = c == Collective::AllGather || c == Collective::ReduceScatter;
  if (a == Algorithm::Ring) {
    const Steps s = tuner_steps(c, t.ranks(), nodes);
    bus *= static_cast<double>(t.ranks()) / s.total;
  } else if (!ag_rs) {
    bus *= (a == Algorithm::NVLS || a == Algorithm::NVLSTree) ? 5.0 / 6.0 : 0.5;
  }
  return bus;
}

double latency(Collective c, const RingTopology& t, Algorithm a, Protocol p, View v, const NcclParams& nccl) {
  const int nodes = t.nodes, ppn = t.gpus_per_node;
  const bool efa = t.inter.transport == NetTransport::Efa;
  const Hw intra_hw = (t.intra == Interconnect::NVLink && ppn > 1) ? kNvlink : kPci;
  const double lat_inter = v == View::Tuner ? t.inter.tuner_latency_us : t.inter.hop_latency_us;
  const bool old_tree_simple = before_2_24(t) && a == Algorithm::Tree && p == Protocol::Simple;
  double intra_lat = old_tree_simple ? 28.0 : kHwLat[intra_hw][idx(a)][idx(p)];
  const Algorithm net_row = ppn == 1 && !before_2_24(t) ? Algorithm::Tree : a;
  double inter_lat = (old_tree_simple ? 28.0 : kHwLat[kNet][idx(net_row)][idx(p)]) + lat_inter;
  // Simple pays the GPU Direct flush once more; sockets have nothing to flush.
  if (p == Protocol::Simple && (v == View::Tuner || efa)) inter_lat += lat_inter;
  double lat = old_tree_simple ? 0.0 : kBaseLat[idx(a)][idx(p)];
  Steps s = tuner_steps(c, t.ranks(), nodes);
  // NCCL's count of inter-node steps (2 x nodes) can exceed the ring's steps when nodes hold one
  // GPU each; the tuner keeps the excess (and subtracts intra-node steps), the wire has no such steps.
  if (v == View::Real) s.inter = std::min(s.inter, s.total);
  if (a == Algorithm::Ring) {
    const double overhead = nodes > 1 ? (t.cpu_amd ? 2.0 : 1.0) * (p == Protocol::Simple ? 3 : 1) : 0.0;
    intra_lat = std::max(intra_lat, overhead);
    lat += (s.total - s.inter) * intra_lat + s.inter * inter_lat;
  } else if (a == Algorithm::Tree) {
    lat += 2 * ((ppn - 1) * intra_lat + log2i(nodes) * inter_lat);
  } else if (a == Algorithm::NVLS) {
    lat = (v == View::Real ? nccl.nvls_latency_us : intra_lat) + (nodes > 1 ? inter_lat : 0.0);
  } else if (a == Algorithm::NVLSTree) {
    lat += intra_lat + 2 * log2i(nodes) * inter_lat;
  }
  return lat;
}

}  // namespace

AlgoCost algo_cost(Collective c, const RingTopology& t, Algorithm a, Protocol p, View v, const NcclParams& nccl) {
  if (t.ranks() <= 1 || !available(c, t, a, p)) return {};
  AlgoCost cost{latency(c, t, a, p, v, nccl), bus_bandwidth(c, t, a, p, v, nccl), 0, 0};
  // Across nodes Simple moves whole chunks through NCCL's network proxy, EFA and sockets alike: the
  // first few (up to the message) cross at the GPU's share of the NICs before the pipeline runs at rate.
  if (v == View::Real && t.nodes > 1 && p == Protocol::Simple) {
    cost.fill_bytes = nccl.simple_net_fill_chunks * nccl.simple_net_chunk_bytes;
    cost.fill_gbytes_per_s = net_bandwidth(t, v, nccl) / t.gpus_per_node;
  }
  return cost;
}

double algo_time_us(Collective c, const RingTopology& t, Algorithm a, Protocol p, const AlgoCost& cost, double bytes) {
  if (cost.bandwidth <= 0) return std::numeric_limits<double>::infinity();
  double bw = cost.bandwidth;
  double lat = cost.latency_us;
  const int log_size = log2i(std::floor(bytes / 64));
  if (a == Algorithm::Tree && c == Collective::AllReduce && log_size >= 0 && log_size < 23) {
    bw *= kTreeCorrection[idx(p)][static_cast<std::size_t>(log_size)];
  }
  if (a == Algorithm::Ring && p == Protocol::Simple && t.nodes > 1 && c == Collective::AllReduce &&
      bytes / (std::max(1, t.channels) * t.ranks()) >= 64) {
    lat *= t.gpu.arch == GpuArch::Volta ? 1.9 : 1.4;  // the ring's plateau
  }
  const double fill =
      cost.fill_gbytes_per_s > 0 ? std::min(bytes, cost.fill_bytes) / (cost.fill_gbytes_per_s * 1e3) : 0.0;
  return lat + fill + bytes / (1000 * bw);
}

AlgoChoice choose_algorithm(Collective c, const RingTopology& t, double bytes, const NcclParams& nccl) {
  AlgoChoice best;
  double best_time = std::numeric_limits<double>::infinity();
  for (Algorithm a : {Algorithm::Tree, Algorithm::Ring, Algorithm::NVLS, Algorithm::NVLSTree}) {
    for (Protocol p : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
      const AlgoCost cost = algo_cost(c, t, a, p, View::Tuner, nccl);
      const double time = algo_time_us(c, t, a, p, cost, bytes);
      if (time < best_time) {
        best_time = time;
        best = {a, p};
      }
    }
  }
  return best;
}

}  // namespace eksim::net
