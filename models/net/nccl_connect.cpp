#include "models/net/nccl_connect.hpp"

#include <algorithm>
#include <cmath>

namespace eksim::net {

using engine::Duration;

const char* connect_kind_name(ConnectKind k) {
  switch (k) {
    case ConnectKind::BootstrapRoot: return "bootstrap root";
    case ConnectKind::BootstrapRootReply: return "bootstrap root reply";
    case ConnectKind::BootstrapRing: return "bootstrap ring";
    case ConnectKind::NetRing: return "net ring";
  }
  return "?";
}

NcclListenPorts draw_listen_ports(int ranks, engine::Rng& rng) {
  const auto span = static_cast<std::uint64_t>(kEphemeralPortHigh - kEphemeralPortLow + 1);
  auto draw = [&] { return kEphemeralPortLow + static_cast<int>(rng.below(span)); };
  NcclListenPorts p;
  p.root_port = draw();
  for (int r = 0; r < ranks; ++r) {
    p.bootstrap_port.push_back(draw());
    p.net_port.push_back(draw());
  }
  return p;
}

std::string nccl_socket_address(const std::string& ip, int port) {
  return ip + "<" + std::to_string(port) + ">";
}

Duration syn_timeout(const NetParams& params) {
  const double factor = std::ldexp(1.0, params.tcp_syn_retries + 1) - 1.0;
  return Duration::from_seconds(params.tcp_initial_rto_s * factor);
}

std::vector<Duration> syn_retransmissions(const NetParams& params) {
  std::vector<Duration> out;
  for (int k = 1; k <= params.tcp_syn_retries; ++k) {
    out.push_back(Duration::from_seconds(params.tcp_initial_rto_s * (std::ldexp(1.0, k) - 1.0)));
  }
  return out;
}

std::vector<RetryStep> connect_retry_timeline(const std::string& func, const std::string& address,
                                              const NetParams& params, const NcclVersion& version) {
  std::vector<RetryStep> steps;
  const Duration syn = syn_timeout(params);
  const int retry_cnt = params.nccl.socket_retry_cnt;
  const bool with_address = version.code() >= 22700;
  const std::string head =
      func + (with_address ? ": connect to " + address + " returned" : std::string(": connect returned")) +
      " Connection timed out, ";
  Duration t{};
  // socketConnectCheck: `if (errorRetries++ == RetryCnt) give up; sleep = errorRetries * 100 ms`.
  for (int attempt = 1; attempt <= retry_cnt + 1; ++attempt) {
    RetryStep s;
    s.attempt = attempt;
    t += syn;
    s.fails_at = t;
    if (attempt == retry_cnt + 1) {
      s.gives_up = true;
      s.level = "WARN";
      s.text = head + (with_address ? "exceeded error retry count after " + std::to_string(attempt) + " attempts"
                                    : "exceeded error retry count (" + std::to_string(attempt) + ")");
    } else {
      const std::int64_t sleep_ms = static_cast<std::int64_t>(attempt) * params.nccl.socket_retry_sleep_ms;
      s.sleep = Duration::millis(sleep_ms);
      s.level = "INFO";
      s.text = head + "retrying (" + std::to_string(attempt) + "/" + std::to_string(retry_cnt) +
               ") after sleep for " + std::to_string(sleep_ms) + " msec";
      t += s.sleep;
    }
    steps.push_back(std::move(s));
  }
  return steps;
}

std::string watchdog_timeout_text(int rank, std::uint64_t seq, const std::string& op_type, std::int64_t numel_in,
                                  std::int64_t numel_out, std::int64_t timeout_ms, std::int64_t ran_for_ms) {
  return "[Rank " + std::to_string(rank) + "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=" +
         std::to_string(seq) + ", OpType=" + op_type + ", NumelIn=" + std::to_string(numel_in) +
         ", NumelOut=" + std::to_string(numel_out) + ", Timeout(ms)=" + std::to_string(timeout_ms) + ") ran for " +
         std::to_string(ran_for_ms) + " milliseconds before timing out.";
}

namespace {

std::vector<NcclConnection> connections_of(const NcclInitInput& in) {
  const int n = static_cast<int>(in.ranks.size());
  std::vector<NcclConnection> out;
  auto add = [&](ConnectKind kind, int src, int dst, int port) {
    out.push_back({kind, src, dst, in.ranks[static_cast<std::size_t>(dst)].ip, port});
  };
  for (int r = 0; r < n; ++r) add(ConnectKind::BootstrapRoot, r, in.root_rank, in.ports.root_port);
  for (int r = 0; r < n; ++r) {
    add(ConnectKind::BootstrapRootReply, in.root_rank, r, in.ports.bootstrap_port[static_cast<std::size_t>(r)]);
  }
  if (n > 1) {
    for (int r = 0; r < n; ++r) {
      const int next = (r + 1) % n;
      add(ConnectKind::BootstrapRing, r, next, in.ports.bootstrap_port[static_cast<std::size_t>(next)]);
    }
    std::vector<int> ring = in.ring;
    if (ring.empty()) {
      for (int r = 0; r < n; ++r) ring.push_back(r);
    }
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const int src = ring[i];
      const int dst = ring[(i + 1) % ring.size()];
      if (in.ranks[static_cast<std::size_t>(src)].node == in.ranks[static_cast<std::size_t>(dst)].node) continue;
      add(ConnectKind::NetRing, src, dst, in.ports.net_port[static_cast<std::size_t>(dst)]);
    }
  }
  return out;
}

// NCCL's error path as INFO lines, "<file>:<line> -> <ncclResult_t>" (NCCLCHECK), from the
// failing call outwards, as far as NCCL 2.21.5's code shows it for the connect that failed.
std::vector<std::string> error_chain_2_21(ConnectKind kind, int result) {
  const std::string r = " -> " + std::to_string(result);
  switch (kind) {
    case ConnectKind::BootstrapRoot:
      return {"misc/socket.cc:567" + r, "misc/socket.cc:621" + r, "bootstrap.cc:285" + r, "init.cc:1534" + r};
    case ConnectKind::BootstrapRing:
      return {"misc/socket.cc:567" + r, "misc/socket.cc:621" + r, "bootstrap.cc:297" + r, "init.cc:1534" + r};
    case ConnectKind::BootstrapRootReply:
      return {"misc/socket.cc:567" + r, "misc/socket.cc:621" + r, "bootstrap.cc:163" + r};
    case ConnectKind::NetRing: return {"misc/socket.cc:567" + r, "misc/socket.cc:589" + r};
  }
  return {};
}

// NCCL 2.21 (src/misc/socket.cc at v2.21.5-1): no retry lines. The root's reply socket is
// blocking: connect() times out three times (RETRY_TIMEDOUT_TIMES), the root thread gives up and
// the ranks keep waiting for it. Every other socket is non-blocking: after one SYN timeout
// socketPollConnect sleeps 1 ms and socketStartConnect calls connect() again on the same fd,
// which Linux refuses with ECONNABORTED; ncclSystemError reaches PyTorch, whose lazy init raises
// it at the first collective (NCCLUtils.hpp:317 in PyTorch 2.5, as public logs of NCCL 2.21.5
// show; getNcclErrorDetailStr adds the interpretation and NCCL's last WARN).
void fail_like_2_21(const NcclInitInput& in, const NetParams& params, NcclInitOutcome& out) {
  const NcclConnection& b = *out.blocked;
  const std::string address = nccl_socket_address(b.dst_ip, b.port);
  const Duration syn = syn_timeout(params);
  const bool reply = b.kind == ConnectKind::BootstrapRootReply;
  const Duration at = reply ? syn * 3 + Duration::millis(2) : syn + Duration::millis(1);
  const std::string last_error =
      reply ? std::string("socketStartConnect: exceeded timeouts (3)")
            : "socketStartConnect: Connect to " + address + " failed : Software caused connection abort";
  out.log.push_back({at, b.src_rank, "NCCL WARN", last_error, reply ? "misc/socket.cc:476" : "misc/socket.cc:484"});
  for (const std::string& line : error_chain_2_21(b.kind, reply ? 3 : 2)) {
    out.log.push_back({at, b.src_rank, "NCCL INFO", line, ""});
  }
  out.nccl_gives_up_after = at;
  out.fails_after = at;
  if (reply) {
    out.hangs = true;
    return;
  }
  out.failing_rank_only = true;
  out.failure_text = "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
                     "NCCLUtils.hpp:317, unhandled system error (run with NCCL_DEBUG=INFO for details), "
                     "NCCL version " + in.version.text();
  const std::vector<std::string> raised = {
      out.failure_text,
      "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
      "Last error:", last_error};
  for (const std::string& line : raised) out.log.push_back({at, b.src_rank, "ProcessGroupNCCL", line, ""});
}

}  // namespace

NcclInitOutcome simulate_nccl_init(const NcclInitInput& in, const NetParams& params) {
  NcclInitOutcome out;
  out.connections = connections_of(in);
  for (const NcclConnection& c : out.connections) {
    if (in.reachable && !in.reachable(c.src_rank, c.dst_rank, c.port)) {
      out.blocked = c;
      break;
    }
  }
  if (!out.blocked) return out;

  out.ok = false;
  const NcclConnection& b = *out.blocked;
  if (in.version.code() < 22403) {
    fail_like_2_21(in, params, out);
    return out;
  }
  // Only the root's reply socket is blocking; the others carry the abort flag, which makes them
  // non-blocking, so poll() sees the timeout.
  const bool blocking_socket = b.kind == ConnectKind::BootstrapRootReply;
  const std::string func = blocking_socket ? "socketStartConnect" : "socketPollConnect";
  out.retries = connect_retry_timeline(func, nccl_socket_address(b.dst_ip, b.port), params, in.version);
  out.nccl_gives_up_after = out.retries.back().fails_at;
  out.watchdog_fires_after = Duration::millis(params.watchdog_timeout_ms + params.watchdog_overshoot_ms);
  out.watchdog_first = in.watchdog && out.watchdog_fires_after < out.nccl_gives_up_after;
  out.fails_after = out.watchdog_first ? out.watchdog_fires_after : out.nccl_gives_up_after;

  for (const RetryStep& s : out.retries) {
    if (out.watchdog_first && s.fails_at >= out.fails_after) break;
    out.log.push_back({s.fails_at, b.src_rank, "NCCL " + s.level, s.text, ""});
  }
  if (out.watchdog_first) {
    const std::int64_t ran_for = out.fails_after.us / 1000;
    for (int r = 0; r < static_cast<int>(in.ranks.size()); ++r) {
      out.log.push_back({out.fails_after, r, "ProcessGroupNCCL",
                         watchdog_timeout_text(r, 1, in.op_type, in.numel, in.numel, params.watchdog_timeout_ms,
                                               ran_for),
                         ""});
    }
    out.failure_text = out.log[out.log.size() - in.ranks.size() + static_cast<std::size_t>(b.src_rank)].text;
  } else {
    out.failure_text = out.retries.back().text;
  }
  return out;
}

}  // namespace eksim::net
