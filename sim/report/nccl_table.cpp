#include "sim/report/nccl_table.hpp"

#include <cstdio>
#include <vector>

namespace eksim::report {

namespace {

std::string printf_string(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

constexpr std::uint64_t kFloatBytes = 4;

// nccl-tests' redop and root columns for the collective.
const char* redop_of(net::Collective c) {
  return (c == net::Collective::AllReduce || c == net::Collective::ReduceScatter || c == net::Collective::Reduce)
             ? "sum"
             : "none";
}
int root_of(net::Collective c) {
  return (c == net::Collective::Broadcast || c == net::Collective::Reduce) ? 0 : -1;
}

// Which algorithm and protocol NCCL runs over which sizes, as runs of consecutive rows.
std::string choice_line(const std::vector<NcclTableRow>& rows) {
  std::string out = "# NCCL's choice:";
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    while (j + 1 < rows.size() && rows[j + 1].timing.algorithm == rows[i].timing.algorithm &&
           rows[j + 1].timing.protocol == rows[i].timing.protocol) {
      ++j;
    }
    out += printf_string("%s %s/%s %llu-%llu B", i == 0 ? "" : ",", net::algorithm_name(rows[i].timing.algorithm),
                         net::protocol_name(rows[i].timing.protocol), static_cast<unsigned long long>(rows[i].bytes),
                         static_cast<unsigned long long>(rows[j].bytes));
    i = j + 1;
  }
  return out + "\n";
}

}  // namespace

const char* perf_name(net::Collective c) {
  switch (c) {
    case net::Collective::AllReduce: return "all_reduce_perf";
    case net::Collective::AllGather: return "all_gather_perf";
    case net::Collective::ReduceScatter: return "reduce_scatter_perf";
    case net::Collective::Broadcast: return "broadcast_perf";
    case net::Collective::Reduce: return "reduce_perf";
    case net::Collective::AllToAll: return "alltoall_perf";
  }
  return "?";
}

std::string nccl_float(double value, int width) {
  int power = 0;
  // nccl-tests' getFloatStr, bounded: 10^19 is the last power of ten a uint64 holds, and an
  // infinite value must not spin.
  for (std::uint64_t val = 1; power < 20 && value >= static_cast<double>(val); val *= 10) power++;
  if (power < width - 2) return printf_string("%*.2f", width, value);
  if (power < width - 1) return printf_string("%*.1f", width, value);
  if (power < width + 1) return printf_string("%*.0f", width, value);
  return printf_string("%*.1e", width, value);
}

std::vector<NcclTableRow> all_reduce_rows(const NcclTableRequest& req, const net::NetParams& params) {
  std::vector<NcclTableRow> rows;
  net::RingTopology topo = net::make_ring_topology(req.node, req.nodes, req.gpus_per_node, req.link, params);
  topo.nccl_version = req.nccl_version;
  const std::uint64_t factor = req.step_factor < 2 ? 2 : req.step_factor;
  for (std::uint64_t size = req.min_bytes; size <= req.max_bytes; size *= factor) {
    NcclTableRow row;
    row.count = size / kFloatBytes;
    row.bytes = row.count * kFloatBytes;
    row.timing = net::nccl_collective(req.collective, topo, static_cast<double>(row.bytes), params.nccl);
    rows.push_back(row);
    if (size == 0 || size > req.max_bytes / factor) break;  // 0 never grows; avoid wrapping past 2^64
  }
  return rows;
}

std::string format_all_reduce_table(const NcclTableRequest& req, const net::NetParams& params) {
  net::RingTopology topo = net::make_ring_topology(req.node, req.nodes, req.gpus_per_node, req.link, params);
  topo.nccl_version = req.nccl_version;
  const std::vector<NcclTableRow> rows = all_reduce_rows(req, params);
  std::string out;
  out += printf_string("# eksim model of %s: %d x %s, %d GPU(s) per node, %d ranks, %s\n", perf_name(req.collective), topo.nodes,
                       req.node.instance_type.c_str(), topo.gpus_per_node, topo.ranks(),
                       req.link.cross_az ? "cross-AZ" : "same AZ");
  if (topo.nodes > 1) {
    const net::NodeLink& l = topo.inter;
    if (l.transport == net::NetTransport::Efa) {
      out += printf_string("# inter-node: EFA, NIC %g Gbps, %.4g GB/s, hop %g us (aws-ofi-nccl tells NCCL %g us)\n",
                           l.nic_gbps, net::collective_gbytes_per_s(l, params.nccl), l.hop_latency_us, l.tuner_latency_us);
    } else {
      out += printf_string(
          "# inter-node: Socket%s, NIC %g Gbps%s, %d flows x %g Gbps cap, %.4g GB/s, RTT %g us\n",
          !req.node.efa ? "" : (req.link.cross_az ? " (EFA does not cross AZs)" : " (EFA off)"), l.nic_gbps,
          req.node.nic_up_to ? (req.link.allow_burst ? " (burst)" : " (baseline)") : "", l.flows,
          l.per_flow_cap_gbps, net::collective_gbytes_per_s(l, params.nccl), l.rtt_us);
    }
  }
  if (topo.gpus_per_node > 1) {
    out += printf_string("# intra-node: %s %.4g GB/s%s\n", net::interconnect_name(topo.intra), topo.intra_gbytes_per_s,
                         topo.cpu_sockets_crossed > 1 ? " (the ring crosses the CPU socket link)" : "");
  }
  out += choice_line(rows);
  const std::uint64_t factor = req.step_factor < 2 ? 2 : req.step_factor;
  out += printf_string("# nThread 1 nGpus 1 minBytes %llu maxBytes %llu step: %llu(factor) warmup iters: 5 iters: 20 "
                       "agg iters: 1 validation: 1 graph: 0\n",
                       static_cast<unsigned long long>(req.min_bytes), static_cast<unsigned long long>(req.max_bytes),
                       static_cast<unsigned long long>(factor));
  out += "#\n";
  out += printf_string("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n",
                       "", "", "", "", "");
  out += printf_string("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s\n", "size", "count", "type",
                       "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
  out += printf_string("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n", "(B)", "(elements)",
                       "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  double busbw_sum = 0;
  for (const NcclTableRow& r : rows) {
    const std::string body = printf_string("  %7s  %6s  %6s  %5g", nccl_float(r.timing.time_us, 7).c_str(),
                                           nccl_float(r.timing.algbw_gbytes_per_s, 6).c_str(),
                                           nccl_float(r.timing.busbw_gbytes_per_s, 6).c_str(), 0.0);
    out += printf_string("%12llu  %12llu  %8s  %6s  %6i", static_cast<unsigned long long>(r.bytes),
                         static_cast<unsigned long long>(r.count), "float", redop_of(req.collective),
                         root_of(req.collective));
    out += body + body + "\n";
    busbw_sum += r.timing.busbw_gbytes_per_s;
  }
  const double avg = rows.empty() ? 0.0 : busbw_sum / static_cast<double>(rows.size());
  out += printf_string("# %-20s : %d %s\n", "Out of bounds values", 0, "OK");
  out += printf_string("# %-20s : %g %s\n", "Avg bus bandwidth", avg, "");
  out += "#\n";
  return out;
}

}  // namespace eksim::report
