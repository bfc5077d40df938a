#pragma once
// NCCL communicator set-up over security groups, as a pure computation. NCCL connects over TCP to
// ephemeral listen ports: every rank to the bootstrap root, the root back to every rank, each rank
// to the next in the bootstrap ring, and, for the data ring, each rank to its ring successor on
// another node (ranks of one node use P2P/SHM, no socket). A security group that drops the SYN
// makes connect() wait the kernel's SYN timeout (127 s) and fail with ETIMEDOUT. What NCCL does
// then depends on its version (src/misc/socket.cc at each tag):
//   2.21 (before 2.24.3): a non-blocking socket (the connects that carry the communicator's abort
//     flag: to the root, the bootstrap ring, the net transport) calls connect() again on the same
//     fd and Linux answers ECONNABORTED: "misc/socket.cc:484 NCCL WARN socketStartConnect: Connect
//     to <ip><<port>> failed : Software caused connection abort" and ncclSystemError, after one SYN
//     timeout; PyTorch's lazy init raises DistBackendError at the first collective. The root's
//     blocking reply socket times out three times ("exceeded timeouts (3)") and the ranks that wait
//     for it wait forever.
//   2.24-2.26: retries: "<func>: connect returned Connection timed out, retrying (k/34) after sleep
//     for k*100 msec", then "..., exceeded error retry count (35)" -> ncclRemoteError.
//   2.27: the same with the address: "<func>: connect to <ip><<port>> returned Connection timed
//     out, retrying (k/34) after sleep for k*100 msec", then "..., exceeded error retry count
//     after 35 attempts".
// <func> is socketStartConnect for the blocking root reply and socketPollConnect for the rest.
// During the retries PyTorch's ProcessGroupNCCL watchdog (default 10 min) usually ends the job
// first, as FACTS.md records.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/net/net_params.hpp"
#include "models/net/nccl_version.hpp"
#include "sim/engine/rng.hpp"
#include "sim/engine/time.hpp"

namespace eksim::net {

// Linux net.ipv4.ip_local_port_range default: the ports bind(0) hands out.
inline constexpr int kEphemeralPortLow = 32768;
inline constexpr int kEphemeralPortHigh = 60999;

struct NcclListenPorts {
  int root_port = 0;                // bootstrap root (rank 0's process)
  std::vector<int> bootstrap_port;  // per rank
  std::vector<int> net_port;        // per rank, the net socket transport's listen port
};

// Draws every listen port uniformly from the ephemeral range, from the caller's stream.
NcclListenPorts draw_listen_ports(int ranks, engine::Rng& rng);

enum class ConnectKind { BootstrapRoot, BootstrapRootReply, BootstrapRing, NetRing };
const char* connect_kind_name(ConnectKind k);

struct NcclConnection {
  ConnectKind kind = ConnectKind::BootstrapRoot;
  int src_rank = 0;
  int dst_rank = 0;
  std::string dst_ip;
  int port = 0;
};

// NCCL's "<ip><<port>>" form (ncclSocketToString).
std::string nccl_socket_address(const std::string& ip, int port);

// Linux connect() on a dropped SYN: initial RTO x (2^(syn_retries+1) - 1); 127 s by default.
engine::Duration syn_timeout(const NetParams& params);

// When the kernel sends the SYN again within one connect: 1, 3, 7, 15, 31, 63 s by default. A
// rule restored before one of them lets that SYN through.
std::vector<engine::Duration> syn_retransmissions(const NetParams& params);

struct RetryStep {
  int attempt = 0;                 // 1-based connect attempt
  engine::Duration fails_at;       // when this attempt's connect() returns ETIMEDOUT (from its start)
  engine::Duration sleep;          // NCCL's sleep after it (0 for the last)
  bool gives_up = false;           // the WARN line, ncclRemoteError
  std::string level;               // "INFO" or "WARN"
  std::string text;                // NCCL's message, without the host:pid:tid [dev] prefix
};

// Every attempt of one connect whose SYNs are dropped, until NCCL gives up (NCCL 2.24 and later;
// before 2.27 the texts carry no address).
std::vector<RetryStep> connect_retry_timeline(const std::string& func, const std::string& address,
                                              const NetParams& params, const NcclVersion& version = {});

struct NcclRank {
  std::string ip;
  int node = 0;
};

struct NcclInitInput {
  std::vector<NcclRank> ranks;
  std::vector<int> ring;  // data ring order (a permutation of the ranks); empty = 0..n-1
  NcclListenPorts ports;
  // Would a SYN from src_rank's host to dst_rank's host on this TCP port be let through? The
  // caller answers from the security group model (same host: always).
  std::function<bool(int src_rank, int dst_rank, int port)> reachable;
  int root_rank = 0;
  // The first collective, for the watchdog text.
  std::string op_type = "ALLREDUCE";
  std::int64_t numel = 0;
  bool watchdog = true;  // PyTorch ProcessGroupNCCL watchdog (TORCH_NCCL_ASYNC_ERROR_HANDLING)
  NcclVersion version;   // the image's NCCL
};

struct NcclLogLine {
  engine::Duration at;  // since the collective started
  int rank = 0;
  std::string source;   // "NCCL INFO", "NCCL WARN", "ProcessGroupNCCL"
  std::string text;
  std::string where;    // a WARN's "<file>:<line>" in NCCL's source, printed before "NCCL WARN"
};

struct NcclInitOutcome {
  bool ok = true;
  std::vector<NcclConnection> connections;  // in the order NCCL opens them
  std::optional<NcclConnection> blocked;    // the first dropped one
  std::vector<RetryStep> retries;           // its full NCCL retry timeline
  engine::Duration nccl_gives_up_after;     // the WARN line
  engine::Duration watchdog_fires_after;    // timeout + the watchdog's poll overshoot
  engine::Duration fails_after;             // min of the two (or NCCL's when no watchdog)
  bool watchdog_first = false;
  std::vector<NcclLogLine> log;             // what the ranks print until the job fails
  std::string failure_text;                 // the line that ends the job
  bool hangs = false;                       // nothing ends the job (NCCL 2.21's root reply)
  bool failing_rank_only = false;           // only the blocked rank raises (NCCL 2.21's ECONNABORTED)
};

NcclInitOutcome simulate_nccl_init(const NcclInitInput& input, const NetParams& params);

// "[Rank R] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=.., OpType=..,
// NumelIn=.., NumelOut=.., Timeout(ms)=..) ran for .. milliseconds before timing out."
// (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp, operator<< for WorkNCCL).
std::string watchdog_timeout_text(int rank, std::uint64_t seq, const std::string& op_type, std::int64_t numel_in,
                                  std::int64_t numel_out, std::int64_t timeout_ms, std::int64_t ran_for_ms);

}  // namespace eksim::net
