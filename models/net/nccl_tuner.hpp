#pragma once
// NCCL's tuner (src/graph/tuning.cc, NCCL 2.27): for each collective, algorithm and protocol a
// latency and a bandwidth, and the time of a size as latency + bytes / bandwidth; NCCL runs the
// pair with the smallest time. The model evaluates the same formulas twice:
//   View::Tuner  with what NCCL is told: the NIC speed the transport reports (ENA: none, so NCCL
//                assumes nccl.ena_assumed_gbps) and the latency aws-ofi-nccl reports per platform
//                (75 us on p4d/p5, 35 us on p5en/p6); this view picks the algorithm and protocol;
//   View::Real   with what the hardware does: EFA's measured hop latency or RTT/2 over TCP, the
//                NIC share the node really gets, and the calibration of az_latency.json (NVLS and
//                EFA efficiency, the pipeline fill of Simple over the network).
// The graph NCCL's topology search builds is reduced to totals per node: rings and trees carry
// min(NVLink, NICs) per node (trees up to twice the NICs inside the node, as NCCL raises bwIntra
// for trees), NVLS the NVLink rate; CollNet needs SHARP switches AWS does not have, so it is off.
#include <optional>

#include "models/net/links.hpp"
#include "models/net/net_params.hpp"

namespace eksim::net {

enum class Collective { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AllToAll };
const char* collective_name(Collective c);

// NCCL's algorithms in its own order; P2P is NCCL's send/receive path (alltoall), not a tuner entry.
enum class Algorithm { Tree = 0, Ring = 1, CollNetDirect = 2, CollNetChain = 3, NVLS = 4, NVLSTree = 5, P2P = 6 };
const char* algorithm_name(Algorithm a);

enum class View { Tuner, Real };

struct AlgoCost {
  double latency_us = 0;
  double bandwidth = 0;  // NCCL's algorithm bandwidth in GB/s (bus bandwidth x its ratio); 0: not available
  double fill_bytes = 0;         // Simple across nodes: the first bytes cross at fill_gbytes_per_s first
  double fill_gbytes_per_s = 0;  // 0: no fill
};

// The tuner's entry for (c, a, p) on this topology, in the given view.
AlgoCost algo_cost(Collective c, const RingTopology& t, Algorithm a, Protocol p, View v, const NcclParams& nccl);

// ncclTopoGetAlgoTime: the ring Simple plateau on the latency, the tree correction on the bandwidth.
double algo_time_us(Collective c, const RingTopology& t, Algorithm a, Protocol p, const AlgoCost& cost, double bytes);

struct AlgoChoice {
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
};

// The pair NCCL's tuner picks for this size (strict '<': ties keep the earlier pair in NCCL's order).
AlgoChoice choose_algorithm(Collective c, const RingTopology& t, double bytes, const NcclParams& nccl);

}  // namespace eksim::net
