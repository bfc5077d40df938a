#include "models/net/collectives.hpp"

#include <algorithm>
#include <limits>

namespace eksim::net {

const char* collective_name(Collective c) {
  switch (c) {
    case Collective::AllReduce: return "AllReduce";
    case Collective::AllGather: return "AllGather";
    case Collective::ReduceScatter: return "ReduceScatter";
    case Collective::Broadcast: return "Broadcast";
  }
  return "?";
}

namespace {

// Fraction of S that crosses each ring edge, in units of S/B.
double data_factor(Collective c, int n) {
  if (n <= 1) return 0.0;
  switch (c) {
    case Collective::AllReduce: return 2.0 * (n - 1) / n;
    case Collective::AllGather:
    case Collective::ReduceScatter: return static_cast<double>(n - 1) / n;
    case Collective::Broadcast: return 1.0;
  }
  return 0.0;
}

double protocol_efficiency(Protocol p, const NcclParams& nccl) {
  switch (p) {
    case Protocol::LL: return nccl.ll_bandwidth_factor;
    case Protocol::LL128: return nccl.ll128_bandwidth_factor;
    case Protocol::Simple: return 1.0;
  }
  return 1.0;
}

// The slowest edge of the ring, given the inter-node rate to use.
double ring_bandwidth(const RingTopology& topo, double inter_gbytes_per_s) {
  double b = std::numeric_limits<double>::infinity();
  if (topo.nodes > 1) b = std::min(b, inter_gbytes_per_s);
  if (topo.gpus_per_node > 1) b = std::min(b, topo.intra_gbytes_per_s);
  return b;
}

struct Prediction {
  double alpha_us;
  double bandwidth;
  double time_us;
};

Prediction predict(Collective c, const RingTopology& topo, double bytes, Protocol p, const NcclParams& nccl,
                   bool tuner_view) {
  const int n = topo.ranks();
  const RingSteps steps = ring_steps(c, n, topo.nodes);
  const double intra_hop = hop_latency_us(topo.intra, p, nccl);
  const double inter_hop = net_hop_latency_us(p, nccl) + (tuner_view ? 0.0 : topo.inter.rtt_us / 2.0);
  double alpha = nccl.ring_base_latency_us[static_cast<std::size_t>(p)] +
                 (steps.total - steps.inter_node) * intra_hop + steps.inter_node * inter_hop;
  if (tuner_view && c == Collective::AllReduce && p == Protocol::Simple && topo.nodes > 1 &&
      bytes >= n / 16.0 * 65536.0) {
    alpha *= nccl.ring_simple_plateau_factor;
  }
  const double inter = tuner_view ? topo.inter.tuner_gbytes_per_s : topo.inter.gbytes_per_s;
  const double bw = ring_bandwidth(topo, inter) * protocol_efficiency(p, nccl);
  const double factor = data_factor(c, n);
  const double transfer = (factor > 0.0 && bytes > 0.0) ? factor * bytes / (bw * 1e3) : 0.0;
  return {alpha, bw, alpha + transfer};
}

}  // namespace

double ring_alpha_beta_us(Collective c, int n, double bytes, double alpha_us, double gbytes_per_s) {
  if (n <= 1) return 0.0;
  const double latency_steps = c == Collective::AllReduce ? 2.0 * (n - 1) : static_cast<double>(n - 1);
  return latency_steps * alpha_us + data_factor(c, n) * bytes / (gbytes_per_s * 1e3);
}

double busbw_factor(Collective c, int n) {
  if (n <= 1) return c == Collective::Broadcast ? 1.0 : 0.0;
  switch (c) {
    case Collective::AllReduce: return 2.0 * (n - 1) / n;
    case Collective::AllGather:
    case Collective::ReduceScatter: return static_cast<double>(n - 1) / n;
    case Collective::Broadcast: return 1.0;
  }
  return 1.0;
}

RingSteps ring_steps(Collective c, int ranks, int nodes) {
  RingSteps s;
  if (ranks <= 1) return s;
  switch (c) {
    case Collective::AllReduce:
      s.total = 2 * (ranks - 1);
      s.inter_node = nodes > 1 ? 2 * nodes : 0;
      break;
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::Broadcast:
      s.total = ranks - 1;
      s.inter_node = nodes - 1;
      break;
  }
  s.inter_node = std::clamp(s.inter_node, 0, s.total);
  return s;
}

CollectiveTiming ring_collective_with(Collective c, const RingTopology& topo, double bytes, Protocol p,
                                      const NcclParams& nccl) {
  const Prediction pr = predict(c, topo, bytes, p, nccl, /*tuner_view=*/false);
  CollectiveTiming t;
  t.protocol = p;
  t.time_us = pr.time_us;
  t.alpha_total_us = pr.alpha_us;
  t.bandwidth_gbytes_per_s = pr.bandwidth;
  t.algbw_gbytes_per_s = pr.time_us > 0.0 ? bytes / (pr.time_us * 1e3) : 0.0;
  t.busbw_gbytes_per_s = t.algbw_gbytes_per_s * busbw_factor(c, topo.ranks());
  return t;
}

Protocol choose_protocol(Collective c, const RingTopology& topo, double bytes, const NcclParams& nccl) {
  Protocol best = Protocol::Simple;
  double best_time = std::numeric_limits<double>::infinity();
  for (Protocol p : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
    if (p == Protocol::LL128 && !topo.ll128_enabled) continue;
    const double t = predict(c, topo, bytes, p, nccl, /*tuner_view=*/true).time_us;
    if (t < best_time) {  // ties keep the earlier protocol, as NCCL's strict '<' does
      best_time = t;
      best = p;
    }
  }
  return best;
}

CollectiveTiming ring_collective(Collective c, const RingTopology& topo, double bytes, const NcclParams& nccl) {
  return ring_collective_with(c, topo, bytes, choose_protocol(c, topo, bytes, nccl), nccl);
}

}  // namespace eksim::net
