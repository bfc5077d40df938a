// A gang's NCCL communicator init: the connections NCCL opens (nccl_connect.hpp) checked
// against the security groups, NCCL_DEBUG's init records, the hang of a blocked connection with
// NCCL's retries and PyTorch's watchdog, and how a failed attempt ends the workers.
#include "models/net/training_controller_impl.hpp"

#include <algorithm>

#include "models/k8s/controllers/job_controller.hpp"
#include "models/k8s/api/pod_factory.hpp"
#include "models/net/links.hpp"

namespace eksim::net {

using engine::Duration;
using k8s::EventType;
using engine::SimTime;
using namespace training_detail;

namespace {

// A node whose type the catalog does not know: one GPU behind a 10 Gbps NIC.
NodeNetworkSpec unknown_node_spec() {
  NodeNetworkSpec s;
  s.nic_baseline_gbps = s.nic_burst_gbps = 10;
  return s;
}

}  // namespace

void TrainingController::Impl::start_run(Tracked& t, std::vector<k8s::PodId> pods) {
  auto run = std::make_unique<Run>();
  Run& r = *run;
  r.pods = std::move(pods);
  r.started = c.sim.now();
  r.params = params;
  if (t.spec.watchdog_timeout) r.params.watchdog_timeout_ms = t.spec.watchdog_timeout->us / 1000;
  std::map<std::uint32_t, int> node_index;
  std::vector<std::string> ips;
  for (std::size_t i = 0; i < r.pods.size(); ++i) {
    in_runs.insert(r.pods[i].v);
    k8s::NodeId node = c.api.pod(r.pods[i]).node;
    auto [it, added] = node_index.emplace(node.v, static_cast<int>(r.nodes.size()));
    if (added) {
      r.nodes.push_back(node);
      const k8s::NodeRecord& rec = c.api.node(node);
      auto z = rec.node.meta.labels.find(k8s::kLabelZone);
      r.zones.push_back(z == rec.node.meta.labels.end() ? "" : z->second);
      auto ty = rec.node.meta.labels.find(k8s::kLabelInstanceType);
      const aws::InstanceType* type = ty == rec.node.meta.labels.end() ? nullptr : c.catalog().find(ty->second);
      r.specs.push_back(type ? node_network_spec(*type, params) : unknown_node_spec());
      std::string ip;
      r.enis.push_back(eni_of(node, &ip));
      ips.push_back(ip.empty() ? "0.0.0.0" : ip);
    }
    for (int g = 0; g < t.spec.gpus_per_pod; ++g) {
      r.rank_pod.push_back(static_cast<int>(i));
      r.input.ranks.push_back(NcclRank{ips[static_cast<std::size_t>(it->second)], it->second});
    }
  }
  const int ranks = static_cast<int>(r.input.ranks.size());
  const k8s::Job& job = c.api.jobs()[t.job];
  r.input.ports = draw_listen_ports(ranks, c.rng.get("net/nccl/" + job.meta.ns + "/" + job.meta.name));
  r.input.numel = static_cast<std::int64_t>(t.spec.gradient_bytes / 4);  // fp32 gradients
  if (!r.pods.empty()) {
    const k8s::PodRecord& first = c.api.pod(r.pods.front());
    if (!first.pod.spec.containers.empty()) r.input.version = nccl_version_of(first.pod.spec.containers.front());
  }
  Run* rp = &r;
  r.input.reachable = [this, rp](int src, int dst, int port) {
    const int a = rp->input.ranks[static_cast<std::size_t>(src)].node;
    const int b = rp->input.ranks[static_cast<std::size_t>(dst)].node;
    if (a == b) return true;
    return c.security_groups.reachable(rp->enis[static_cast<std::size_t>(a)], rp->enis[static_cast<std::size_t>(b)],
                                       "tcp", port);
  };
  r.outcome = simulate_nccl_init(r.input, r.params);
  record_debug_inits(t, r);

  t.status.attempts += 1;
  t.status.ranks = ranks;
  t.status.nodes = static_cast<int>(r.nodes.size());
  t.status.cross_az = std::any_of(r.zones.begin(), r.zones.end(), [&](const std::string& z) { return z != r.zones[0]; });
  t.status.blocked.clear();
  t.run = std::move(run);
  if (t.run->outcome.ok) begin_training(t);
  else hang(t);
}

void TrainingController::Impl::record_debug_inits(const Tracked& t, Run& r) {
  const int n = static_cast<int>(r.input.ranks.size());
  if (t.spec.efa || t.spec.gpus_per_pod != 1 || static_cast<int>(r.nodes.size()) != n) return;
  auto debug_info = [&](k8s::PodId p) {
    const k8s::PodRecord& rec = c.api.pod(p);
    return !rec.pod.spec.containers.empty() &&
           nccl_debug_level(rec.pod.spec.containers.front()) == NcclDebugLevel::Info;
  };
  if (std::none_of(r.pods.begin(), r.pods.end(), debug_info)) return;
  const k8s::Job& job = c.api.jobs()[t.job];
  engine::Rng& rng = c.rng.get("net/nccl-debug/" + job.meta.ns + "/" + job.meta.name);
  const std::uint64_t comm_id = rng.next_u64();
  std::vector<int> ring = r.input.ring;
  if (ring.empty())
    for (int k = 0; k < n; ++k) ring.push_back(k);
  for (int k = 0; k < n; ++k) {
    const k8s::PodId p = pod_of_rank(r, k);
    const k8s::PodRecord& rec = c.api.pod(p);
    const int pid = 30 + static_cast<int>(rng.below(170));
    const int tid = pid + 40 + static_cast<int>(rng.below(80));
    const std::uint64_t comm = 0x550000000000ULL + (rng.below(0x10000000000ULL) & ~0xFULL);
    if (!debug_info(p)) continue;
    NcclDebugRank dr;
    // An Indexed Job's pod is named <job>-<index> as its hostname (the Job controller sets it).
    auto index = rec.pod.meta.annotations.find(k8s::kAnnotationCompletionIndex);
    dr.host = index != rec.pod.meta.annotations.end() ? job.meta.name + "-" + index->second : rec.pod.meta.name;
    dr.host = dr.host.substr(0, dr.host.find('.'));
    dr.pid = pid;
    dr.init_tid = tid;
    dr.rank = k;
    dr.nranks = n;
    dr.ip = r.input.ranks[static_cast<std::size_t>(k)].ip;
    dr.comm = comm;
    dr.comm_id = comm_id;
    dr.ring = ring;
    dr.version = r.input.version.banner();
    debug_inits[p.v].push_back({std::move(dr), c.sim.now(), std::nullopt});
    r.debug_pods.push_back(p);
  }
}

k8s::PodId TrainingController::Impl::pod_of_rank(const Run& r, int rank) const {
  return r.pods[static_cast<std::size_t>(r.rank_pod[static_cast<std::size_t>(rank)])];
}

void TrainingController::Impl::emit_line(const Run& r, const NcclLogLine& line) {
  k8s::PodId pod = pod_of_rank(r, line.rank);
  const k8s::PodRecord& rec = c.api.pod(pod);
  if (rec.deleted) return;
  bool warn = line.source != "NCCL INFO";
  std::string message = line.source == "ProcessGroupNCCL" ? line.text : line.source + " " + line.text;
  if (!line.where.empty()) message = line.where + " " + message;  // "misc/socket.cc:484 NCCL WARN ..."
  c.api.emit(warn ? EventType::Warning : EventType::Normal, "ContainerLog", k8s::ApiServer::ref(rec.pod), message,
             kSource);
}

void TrainingController::Impl::hang(Tracked& t) {
  Run& r = *t.run;
  t.status.phase = TrainingPhase::Hung;
  const NcclConnection& b = *r.outcome.blocked;
  t.status.blocked = nccl_socket_address(b.dst_ip, b.port) + " (" + connect_kind_name(b.kind) + " rank " +
                     std::to_string(b.src_rank) + " -> " + std::to_string(b.dst_rank) + ")";
  Tracked* tp = &t;
  Run* rp = &r;
  for (const NcclLogLine& line : r.outcome.log) {
    Duration sleep{};
    bool retry_line = false;
    if (line.source == "NCCL INFO") {
      for (const RetryStep& s : r.outcome.retries)
        if (s.fails_at == line.at && !s.gives_up) {
          sleep = s.sleep;
          retry_line = true;
        }
    }
    r.timers.push_back(c.sim.schedule_at(r.started + line.at, [this, tp, rp, line, sleep, retry_line] {
      if (rp->over) return;
      emit_line(*rp, line);
      // A security group fixed meanwhile: NCCL's next attempt goes through.
      if (retry_line && simulate_nccl_init(rp->input, rp->params).ok) {
        for (auto id : rp->timers) c.sim.cancel(id);
        rp->timers.clear();
        rp->timers.push_back(c.sim.schedule(sleep, [this, tp, rp] {
          if (!rp->over && tp->run.get() == rp) begin_training(*tp);
        }));
      }
    }));
  }
  if (r.outcome.retries.empty()) watch_syns(t);
  if (r.outcome.hangs) return;  // NCCL 2.21's root gave up; the ranks wait for it forever
  r.timers.push_back(c.sim.schedule_at(r.started + r.outcome.fails_after, [this, tp, rp] {
    if (rp->over || tp->run.get() != rp) return;
    fail_run(*tp, [&](int first_rank) {
      for (const NcclLogLine& l : rp->outcome.log)
        if (l.source == "ProcessGroupNCCL" && l.rank == first_rank) return l.text;
      // NCCL 2.21: only the rank whose connect failed raised; torchrun ends the others.
      return rp->outcome.failing_rank_only ? std::string() : rp->outcome.failure_text;
    }, rp->outcome.failure_text);
  }));
}

// NCCL 2.21 has no retry lines to notice a restored rule at; its connect() does, at the kernel's
// SYN retransmissions (the root's blocking reply socket tries three times, the others once).
void TrainingController::Impl::watch_syns(Tracked& t) {
  Run& r = *t.run;
  const int windows = r.outcome.blocked->kind == ConnectKind::BootstrapRootReply ? 3 : 1;
  const Duration window = syn_timeout(r.params) + Duration::millis(1);
  Tracked* tp = &t;
  Run* rp = &r;
  for (int w = 0; w < windows; ++w) {
    for (Duration syn : syn_retransmissions(r.params)) {
      r.timers.push_back(c.sim.schedule_at(r.started + window * w + syn, [this, tp, rp] {
        if (rp->over || tp->run.get() != rp || !simulate_nccl_init(rp->input, rp->params).ok) return;
        for (auto id : rp->timers) c.sim.cancel(id);
        rp->timers.clear();
        begin_training(*tp);
      }));
    }
  }
}

void TrainingController::Impl::fail_run(Tracked& t, const std::function<std::string(int)>& text_of_rank, const std::string& failure_text) {
  Run& r = *t.run;
  r.over = true;
  for (auto id : r.timers) c.sim.cancel(id);
  r.timers.clear();
  c.sim.cancel(r.finish);
  t.status.phase = TrainingPhase::Failed;
  t.status.failed_attempts += 1;
  t.status.failed_at = c.sim.now();
  t.status.finished_at = c.sim.now();
  t.status.failure_text = failure_text;
  c.api.emit(EventType::Warning, "TrainingFailed", job_ref(t),
             "attempt " + std::to_string(t.status.attempts) + " failed after " +
                 engine::format_duration(c.sim.now() - r.started) + ": " + failure_text,
             kSource);
  for (std::size_t i = 0; i < r.pods.size(); ++i) {
    k8s::PodId id = r.pods[i];
    k8s::PodRecord& rec = c.api.pod(id);
    if (!k8s::pod_active(rec)) continue;
    int first_rank = static_cast<int>(i) * t.spec.gpus_per_pod;
    // torchrun exits 1 when a worker dies of the watchdog's exception.
    rec.pod.status.message = text_of_rank(first_rank);
    rec.pod.status.finished_at = c.sim.now();
    ending.insert(id.v);
    c.api.set_pod_phase(id, k8s::PodPhase::Failed, "Error");
    ending.erase(id.v);
  }
}

}  // namespace eksim::net
