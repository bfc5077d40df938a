#pragma once
// The nccl-tests table (all_reduce_perf, all_gather_perf, ...) for a simulated topology: same
// header, columns and number formats as nccl-tests prints, filled from models/net's NCCL model.
// In-place columns repeat the out-of-place figures (the model does not tell them apart); #wrong
// is always 0. Sizes are nccl-tests' "size" column: the whole buffer (all-gather: the gathered one).
#include <cstdint>
#include <string>
#include <vector>

#include "models/net/collectives.hpp"
#include "models/net/links.hpp"
#include "models/net/net_params.hpp"

namespace eksim::report {

struct NcclTableRequest {
  net::NodeNetworkSpec node;
  int nodes = 2;
  int gpus_per_node = 1;
  net::LinkOptions link;           // cross_az, allow_burst, efa_enabled, placement_group
  std::uint64_t min_bytes = 8;     // nccl-tests -b
  std::uint64_t max_bytes = 134217728;  // -e (128 MiB)
  std::uint64_t step_factor = 2;   // -f; must be >= 2
  net::Collective collective = net::Collective::AllReduce;  // which *_perf
  int nccl_version = 22703;        // NCCL_VERSION_CODE whose tuner picks (2.27.3)
};

// nccl-tests' program name for the collective: "all_reduce_perf", "alltoall_perf", ...
const char* perf_name(net::Collective c);

// One row of the table.
struct NcclTableRow {
  std::uint64_t bytes = 0;
  std::uint64_t count = 0;
  net::CollectiveTiming timing;
};

// The rows only (sizes min_bytes, min_bytes*f, ... <= max_bytes, each rounded down to whole floats
// as all_reduce_perf does).
// (The names say all_reduce; the rows are request.collective's.)
std::vector<NcclTableRow> all_reduce_rows(const NcclTableRequest& request, const net::NetParams& params);

// The whole text, header to footer, for request.collective.
std::string format_all_reduce_table(const NcclTableRequest& request, const net::NetParams& params);

// nccl-tests' getFloatStr: 2, 1 or 0 decimals so the number fits the width.
std::string nccl_float(double value, int width);

}  // namespace eksim::report
