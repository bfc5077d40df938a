#pragma once
// Where a training worker meets the others, read from its container as torchrun and PyTorch read
// it, and what the c10d store client prints when that name cannot be resolved.
//
// torchrun (torch/distributed/run.py): `--rdzv-endpoint=HOST[:PORT]` (also `--rdzv_endpoint`,
// or the value as the next word) with `--rdzv-backend=c10d` creates a TCPStore on HOST:PORT
// (default port 29400) with the read timeout of `--rdzv-conf read_timeout=N` (default 60 s,
// c10d_rendezvous_backend.py _create_tcp_store). Without `--rdzv-backend` torchrun uses the
// static rendezvous: HOST:PORT from `--rdzv-endpoint`, else `--master-addr`/`--master_addr`
// (`--master-port`, default 29500), with `--rdzv-conf timeout=N` (default 600 s). A program that
// calls init_process_group itself reads env MASTER_ADDR / MASTER_PORT (PyTorchJob sets them); its
// store timeout is the NCCL process group's default, also 10 minutes. $(VAR) in command/args is
// expanded from the container's env as the kubelet does; ${VAR} and $VAR as a shell would.
//
// The store client (torch/csrc/distributed/c10d/socket.cpp SocketConnectOp::tryConnect) calls
// getaddrinfo until its connect deadline: every failure logs a warning, it sleeps 1 s (the
// default FixedBackoff) and retries while now < deadline - 1 s, then throws its timeout error.
// SocketOptions prefers IPv6, so the family asked for, and named in the warning, is IPv6. A
// resolver whose nameserver never answers (UDP 53 dropped) returns EAI_AGAIN (-3, "Temporary
// failure in name resolution") after glibc's resolv.conf defaults, timeout 5 s x attempts 2; the
// search list stops at the first timed-out query (res_nsearch's TRY_AGAIN), so each call takes
// 10 s.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/k8s/api/objects.hpp"
#include "sim/engine/time.hpp"

namespace eksim::net {

enum class RendezvousBackend { C10d, Static, Env };

struct RendezvousEndpoint {
  std::string host;
  int port = 0;
  RendezvousBackend backend = RendezvousBackend::Static;
  engine::Duration store_timeout;  // the TCPStore's connect deadline
};

// From the container's command, args and env; nullopt when it names no rendezvous host.
std::optional<RendezvousEndpoint> rendezvous_endpoint(const k8s::Container& container);

// A host that needs DNS: not an IPv4/IPv6 literal and not localhost (in the pod's /etc/hosts).
bool needs_dns(std::string_view host);

// glibc's resolver on a nameserver that never answers: timeout 5 s x attempts 2.
inline constexpr engine::Duration kResolverGiveUp = engine::Duration::seconds(10);
// c10d SocketOptions' default connect back-off (FixedBackoff 1000 ms).
inline constexpr engine::Duration kStoreConnectBackoff = engine::Duration::seconds(1);

struct ResolutionAttempt {
  engine::Duration fails_at;  // since the store client started: getaddrinfo returned EAI_AGAIN
  std::string text;           // the c10d warning
};

struct ResolutionFailure {
  std::vector<ResolutionAttempt> attempts;
  engine::Duration fails_at;          // the timeout error (the last attempt's return)
  std::vector<std::string> final_lines;  // what the worker prints as it dies
  std::string failure_text;           // the last of them: the pod's message
};

// What the worker prints when its store client's deadline passes: c10d's "[c10d] The client
// socket has timed out after Nms while trying to connect to (HOST, PORT)." and, for the c10d
// backend, torchrun's RendezvousConnectionError (the last line is the pod's message).
std::vector<std::string> store_timeout_lines(const RendezvousEndpoint& endpoint);

// The store's host among an Indexed Job's pods: "<job>-<i>[.<subdomain>...]" names index i (the
// pod's hostname); any other name (a Service, MASTER_ADDR) is taken to be index 0, where
// torchrun's rank 0 hosts it.
int store_host_index(std::string_view host, std::string_view job_name);

// "The IPv6 network addresses of (HOST, PORT) cannot be retrieved (gai error: -3 - Temporary
// failure in name resolution)." once per getaddrinfo, then the client's timeout and, for the c10d
// backend, torchrun's RendezvousConnectionError.
ResolutionFailure resolution_failure(const RendezvousEndpoint& endpoint);

}  // namespace eksim::net
