#pragma once
// What NCCL prints while a communicator initialises, when the worker runs with NCCL_DEBUG=INFO
// (NCCL 2.21.5's texts: src/debug.cc's prefix "<host>:<pid>:<tid> [<cudaDev>] NCCL INFO ",
// bootstrap.cc, net.cc, init.cc, graph/rings.cc and trees.cc, transport/net.cc). Without
// NCCL_DEBUG NCCL prints nothing at init; torchrun with one process per node prints nothing
// either.
//
// Modelled: one rank per node over the Socket transport (no EFA), two channels, NCCL's
// double binary tree over the nodes. Not modelled (nothing is printed): several ranks on one node
// (their P2P/SHM transport lines), EFA's aws-ofi-nccl plugin lines, the CPU affinity line.
#include <cstdint>
#include <string>
#include <vector>

#include "models/k8s/api/objects.hpp"

namespace eksim::net {

// What "NCCL version" prints when the image names no NCCL (NcclDebugRank::version).
inline constexpr const char* kNcclVersion = "2.21.5+cuda12.4";  // PyTorch 2.5/2.6 wheels' NCCL

// What a worker's NCCL prints, from its container's NCCL_DEBUG (read case-insensitively): nothing
// when unset, WARN lines from WARN, INFO lines too from INFO (and TRACE).
enum class NcclDebugLevel { None, Warn, Info };
NcclDebugLevel nccl_debug_level(const k8s::Container& container);

struct NcclDebugRank {
  std::string host;       // the pod's hostname, cut at the first '.'
  int pid = 0;            // the worker process
  int init_tid = 0;       // the thread that runs ncclCommInitRank
  int rank = 0, nranks = 1;
  std::string ip;         // eth0's address
  int cuda_driver = 0;    // cudaDriverGetVersion: 12040 for CUDA 12.4
  std::string version = kNcclVersion;  // the image's NCCL, "2.21.5+cuda12.4" (the other lines stay 2.21.5's)
  std::uint64_t comm = 0;     // the ncclComm_t pointer
  std::uint64_t comm_id = 0;  // the unique id's hash, the same on every rank
  std::vector<int> ring;      // the ring order of the ranks
};

// From the first line to the transport setup (printed as the gang forms), and from
// "Connected all rings" to "Init COMPLETE" (printed once every connection is up).
std::vector<std::string> nccl_init_lines_before_connect(const NcclDebugRank& r);
std::vector<std::string> nccl_init_lines_after_connect(const NcclDebugRank& r);

// "<host>:<pid>:<tid> [0] NCCL INFO " of the rank's init thread, for its other INFO lines (the
// connect retries).
std::string nccl_info_prefix(const NcclDebugRank& r);

// NCCL's double binary tree (graph/trees.cc ncclGetDtree) as init.cc prints it per channel:
// " [c] d0/d1/d2->rank->up".
std::string nccl_trees_text(int nranks, int rank, int channels);

}  // namespace eksim::net
