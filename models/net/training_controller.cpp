#include "models/net/training_controller.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <set>

#include "models/cluster/dns_access.hpp"
#include "models/k8s/job_controller.hpp"
#include "models/k8s/pod_factory.hpp"
#include "models/net/collectives.hpp"
#include "models/net/links.hpp"
#include "models/net/rendezvous.hpp"
#include "models/net/sharing.hpp"

namespace eksim::net {

namespace {

using engine::Duration;
using engine::EventType;
using engine::SimTime;

constexpr const char* kSource = "training";

std::string gbps_text(double gbytes_per_s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f GB/s", gbytes_per_s);
  return buf;
}

std::string seconds_text(double s) { return engine::format_duration(Duration::from_seconds(s)); }

NodeNetworkSpec network_spec_of(const aws::InstanceType& t) {
  NodeNetworkSpec s;
  s.instance_type = t.name;
  s.nic_baseline_gbps = t.network_baseline_gbps;
  s.nic_burst_gbps = t.network_burst_gbps;
  s.nic_up_to = t.network_up_to;
  s.efa = t.efa;
  s.gpus = std::max(1, t.gpu.count);
  if (t.gpu.interconnect == "nvlink") {
    s.intra = Interconnect::NVLink;
    s.intra_gbytes_per_s = t.gpu.nvlink_gbytes_per_s / 2;  // links.hpp: one direction
  }
  return s;
}

}  // namespace

const char* training_phase_name(TrainingPhase p) {
  switch (p) {
    case TrainingPhase::Waiting: return "Waiting";
    case TrainingPhase::Hung: return "Hung";
    case TrainingPhase::Training: return "Training";
    case TrainingPhase::Succeeded: return "Succeeded";
    case TrainingPhase::Failed: return "Failed";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------

struct TrainingController::Impl {
  // One gang: the pods of every index, from the NCCL init to the end of training or failure.
  struct Run {
    std::vector<k8s::PodId> pods;  // by index
    std::vector<int> rank_pod;     // rank -> index into pods
    std::vector<k8s::NodeId> nodes;  // distinct, in rank order
    std::vector<std::string> zones;
    std::vector<NodeNetworkSpec> specs;
    std::vector<aws::Eni> enis;     // per node
    NcclInitInput input;
    NcclInitOutcome outcome;
    NetParams params;
    SimTime started;
    std::vector<k8s::PodId> debug_pods;  // pods whose debug_inits' last entry is this run's
    std::vector<engine::EventId> timers;
    bool training = false;
    bool over = false;
    // training
    std::vector<std::pair<int, int>> edges;  // inter-node ring edges (node indexes)
    int cross_edges = 0;
    RingTopology topo;
    SimTime progress_at;
    double step_s = 0, comm_s = 0;
    engine::EventId finish;
  };
  struct Tracked {
    std::size_t job = 0;
    TrainingSpec spec;
    TrainingJobStatus status;
    std::unique_ptr<Run> run;
    double total_step_s = 0, total_comm_s = 0;  // over steps_done
  };

  Cluster& c;
  NetParams params;
  std::deque<Tracked> jobs;  // stable addresses: timers hold Tracked*
  std::map<std::size_t, int> by_job;  // api.jobs() index -> jobs index, -1 for non-training Jobs
  std::set<std::uint32_t> in_runs;    // pods that belonged to some gang
  std::set<std::uint32_t> ending;     // pods this controller is finishing (ignore their callbacks)
  // Workers whose store client cannot resolve the rendezvous host yet (pod id -> its retries).
  struct Resolving {
    std::vector<engine::EventId> timers;
  };
  std::map<std::uint32_t, Resolving> resolving;
  std::set<std::size_t> dns_hinted;  // Jobs whose first unresolved worker got a hint
  // Workers with NCCL_DEBUG=INFO: their communicator inits (pod id -> inits, oldest first).
  std::map<std::uint32_t, std::vector<TrainingController::NcclDebugInit>> debug_inits;

  Impl(Cluster& cluster, NetParams p) : c(cluster), params(std::move(p)) {
    if (c.kubelet) c.kubelet->on_container_started.push_back([this](k8s::PodId id) { on_started(id); });
    c.api.on_pod_phase.push_back([this](k8s::PodId id) {
      auto ph = c.api.pod(id).pod.status.phase;
      if (ph == k8s::PodPhase::Succeeded || ph == k8s::PodPhase::Failed) on_lost(id);
    });
    c.api.on_pod_deleted.push_back([this](k8s::PodId id) { on_lost(id); });
  }

  engine::ObjectRef job_ref(const Tracked& t) const {
    const k8s::Job& j = c.api.jobs()[t.job];
    return {"Job", j.meta.ns, j.meta.name};
  }

  std::optional<std::size_t> owner_job(k8s::PodId id) const {
    const k8s::Pod& p = c.api.pod(id).pod;
    for (const auto& o : p.meta.owner_references) {
      if (o.kind != "Job") continue;
      const auto& all = c.api.jobs();
      for (std::size_t i = all.size(); i-- > 0;)
        if (!all[i].deleted && all[i].meta.name == o.name && all[i].meta.ns == p.meta.ns) return i;
    }
    return std::nullopt;
  }

  Tracked* tracked(std::size_t job) {
    auto it = by_job.find(job);
    if (it != by_job.end()) return it->second < 0 ? nullptr : &jobs[static_cast<std::size_t>(it->second)];
    const k8s::Job& j = c.api.jobs()[job];
    if (!j.tmpl.has_value()) {  // finished and dropped: it never trained, or it would be tracked
      by_job[job] = -1;
      return nullptr;
    }
    std::string error;
    auto spec = training_spec(*j.tmpl, &error);
    if (!spec) {
      by_job[job] = -1;
      if (!error.empty())
        c.api.emit(EventType::Warning, "InvalidTrainingSpec", {"Job", j.meta.ns, j.meta.name},
                   "not run as a training job: " + error, kSource);
      return nullptr;
    }
    Tracked t;
    t.job = job;
    t.spec = *spec;
    t.status.ns = j.meta.ns;
    t.status.name = j.meta.name;
    jobs.push_back(std::move(t));
    by_job[job] = static_cast<int>(jobs.size() - 1);
    return &jobs.back();
  }

  Tracked* tracked_of_pod(k8s::PodId id) {
    auto job = owner_job(id);
    return job ? tracked(*job) : nullptr;
  }

  // --- gang formation -------------------------------------------------------------------------

  void on_started(k8s::PodId id) {
    Tracked* t = tracked_of_pod(id);
    if (!t || !resolves_rendezvous(*t, id)) return;
    if (t->run && !t->run->over) return;
    try_form_gang(*t);
  }

  // --- the rendezvous host through CoreDNS ----------------------------------------------------

  // Does the worker's store client resolve its rendezvous host now? When it does not, the
  // worker retries as c10d does (rendezvous.hpp), printing each failure, and dies at the
  // client's deadline unless CoreDNS became reachable in between (a security group fixed).
  bool resolves_rendezvous(Tracked& t, k8s::PodId id) {
    const k8s::PodRecord& rec = c.api.pod(id);
    if (rec.pod.spec.containers.empty() || !rec.node.valid()) return true;
    auto endpoint = rendezvous_endpoint(rec.pod.spec.containers.front());
    if (!endpoint || !needs_dns(endpoint->host)) return true;
    const std::string why = coredns_unreachable_reason(c, rec.node);
    if (why.empty()) return true;
    if (dns_hinted.insert(t.job).second)
      c.hint("CorednsUnreachable", k8s::ApiServer::ref(rec.pod),
             "cannot resolve rendezvous host " + endpoint->host + ": " + why);
    const ResolutionFailure failure = resolution_failure(*endpoint);
    Resolving& res = resolving[id.v];
    const SimTime started = c.sim.now();
    Tracked* tp = &t;
    for (std::size_t i = 0; i < failure.attempts.size(); ++i) {
      const ResolutionAttempt a = failure.attempts[i];
      const bool last = i + 1 == failure.attempts.size();
      res.timers.push_back(c.sim.schedule_at(started + a.fails_at, [this, tp, id, a, last] {
        emit_log(id, a.text);
        if (last || !coredns_reachable(c, c.api.pod(id).node)) return;
        cancel_resolving(id);  // the next getaddrinfo, after the back-off, gets an answer
        resolving[id.v].timers.push_back(c.sim.schedule(kStoreConnectBackoff, [this, tp, id] {
          cancel_resolving(id);
          if (!k8s::pod_active(c.api.pod(id)) || (tp->run && !tp->run->over)) return;
          try_form_gang(*tp);
        }));
      }));
    }
    res.timers.push_back(c.sim.schedule_at(started + failure.fails_at, [this, tp, id, failure] {
      fail_worker(*tp, id, failure.final_lines);
    }));
    return false;
  }

  // The worker's store client gave up: its last lines, then torchrun (or the program) exits 1 on
  // the uncaught error.
  void fail_worker(Tracked& t, k8s::PodId id, const std::vector<std::string>& lines) {
    cancel_resolving(id);
    for (const std::string& line : lines) emit_log(id, line);
    t.status.failure_text = lines.back();
    t.status.failed_at = c.sim.now();
    k8s::PodRecord& r = c.api.pod(id);
    if (!k8s::pod_active(r)) return;
    r.pod.status.message = lines.back();
    r.pod.status.finished_at = c.sim.now();
    ending.insert(id.v);
    c.api.set_pod_phase(id, k8s::PodPhase::Failed, "Error");
    ending.erase(id.v);
  }

  // Every rank there: each worker's store client must also reach the store's host (TCP on the
  // rendezvous port). A SYN the groups drop is retransmitted past the client's deadline (Linux
  // gives up after 127 s), so the client times out at its deadline; the workers that did connect
  // wait in the rendezvous. Checked once, when the last rank arrives.
  bool store_reachable(Tracked& t, const std::vector<k8s::PodId>& pods) {
    const k8s::PodRecord& first = c.api.pod(pods.front());
    if (first.pod.spec.containers.empty()) return true;
    auto endpoint = rendezvous_endpoint(first.pod.spec.containers.front());
    if (!endpoint) return true;
    std::size_t host = static_cast<std::size_t>(store_host_index(endpoint->host, c.api.jobs()[t.job].meta.name));
    if (host >= pods.size()) host = 0;
    const k8s::NodeId host_node = c.api.pod(pods[host]).node;
    std::string ip;
    const aws::Eni to = eni_of(host_node, &ip);
    bool all = true;
    for (k8s::PodId id : pods) {
      const k8s::PodRecord& r = c.api.pod(id);
      if (r.node == host_node) continue;
      const aws::Eni from = eni_of(r.node, &ip);
      if (from.groups.empty() || to.groups.empty() || c.security_groups.reachable(from, to, "tcp", endpoint->port))
        continue;
      all = false;
      const SimTime deadline = r.pod.status.started_at.value_or(c.sim.now()) + endpoint->store_timeout;
      Tracked* tp = &t;
      const std::vector<std::string> lines = store_timeout_lines(*endpoint);
      resolving[id.v].timers.push_back(c.sim.schedule_at(std::max(deadline, c.sim.now()), [this, tp, id, lines] {
        fail_worker(*tp, id, lines);
      }));
    }
    return all;
  }

  void cancel_resolving(k8s::PodId id) {
    auto it = resolving.find(id.v);
    if (it == resolving.end()) return;
    for (auto timer : it->second.timers) c.sim.cancel(timer);
    resolving.erase(it);
  }

  // A worker's log line (c10d prints warnings and errors): an event with reason ContainerLog.
  void emit_log(k8s::PodId id, const std::string& text) {
    const k8s::PodRecord& rec = c.api.pod(id);
    if (rec.deleted) return;
    c.api.emit(EventType::Warning, "ContainerLog", k8s::ApiServer::ref(rec.pod), text, kSource);
  }

  void try_form_gang(Tracked& t) {
    const k8s::Job& job = c.api.jobs()[t.job];
    if (!job.condition.empty()) return;
    const bool indexed = job.completion_mode == "Indexed";
    const int n = indexed ? job.completions : job.parallelism;
    if (n <= 0) return;
    std::vector<k8s::PodId> by_index(static_cast<std::size_t>(n));
    int seq = 0;
    for (k8s::PodId p : c.jobs->pods(t.job)) {
      const k8s::PodRecord& r = c.api.pod(p);
      if (!k8s::pod_active(r) || in_runs.count(p.v) || resolving.count(p.v) || !r.node.valid()) continue;
      if (r.pod.status.phase != k8s::PodPhase::Running || r.pod.status.reason == "CrashLoopBackOff") continue;
      int index = seq++;
      if (indexed) {
        auto a = r.pod.meta.annotations.find(k8s::kAnnotationCompletionIndex);
        if (a == r.pod.meta.annotations.end()) continue;
        index = std::atoi(a->second.c_str());
      }
      if (index < 0 || index >= n) continue;
      by_index[static_cast<std::size_t>(index)] = p;  // the newest pod of an index wins
    }
    for (k8s::PodId p : by_index)
      if (!p.valid()) return;  // torchrun's rendezvous waits for every rank
    if (!store_reachable(t, by_index)) return;
    start_run(t, std::move(by_index));
  }

  aws::Eni eni_of(k8s::NodeId node, std::string* ip) const {
    aws::Eni eni;
    const std::string& instance_id = c.api.node(node).instance_id;
    for (const auto& inst : c.ec2.instances()) {
      if (inst.id != instance_id) continue;
      *ip = inst.private_ip;
      eni.ip = engine::parse_ipv4(inst.private_ip).value_or(0);
      eni.groups = inst.security_groups;
      return eni;
    }
    *ip = "";
    return eni;
  }

  void start_run(Tracked& t, std::vector<k8s::PodId> pods) {
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
        r.specs.push_back(type ? network_spec_of(*type) : NodeNetworkSpec{"", 10, 10, false, false, 1});
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

  // What NCCL_DEBUG=INFO makes each rank print (nccl_debug_log.hpp), for the modelled shape: one
  // rank per node over sockets. Identifiers (pids, the comm pointer, the unique id) come from a
  // stream of their own, drawn only for such workers.
  void record_debug_inits(const Tracked& t, Run& r) {
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
      debug_inits[p.v].push_back({std::move(dr), c.sim.now(), std::nullopt});
      r.debug_pods.push_back(p);
    }
  }

  // --- the hang -------------------------------------------------------------------------------

  k8s::PodId pod_of_rank(const Run& r, int rank) const {
    return r.pods[static_cast<std::size_t>(r.rank_pod[static_cast<std::size_t>(rank)])];
  }

  void emit_line(const Run& r, const NcclLogLine& line) {
    k8s::PodId pod = pod_of_rank(r, line.rank);
    const k8s::PodRecord& rec = c.api.pod(pod);
    if (rec.deleted) return;
    bool warn = line.source != "NCCL INFO";
    std::string message = line.source == "ProcessGroupNCCL" ? line.text : line.source + " " + line.text;
    c.api.emit(warn ? EventType::Warning : EventType::Normal, "ContainerLog", k8s::ApiServer::ref(rec.pod), message,
               kSource);
  }

  void hang(Tracked& t) {
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
    r.timers.push_back(c.sim.schedule_at(r.started + r.outcome.fails_after, [this, tp, rp] {
      if (rp->over || tp->run.get() != rp) return;
      fail_run(*tp, [&](int first_rank) {
        for (const NcclLogLine& l : rp->outcome.log)
          if (l.source == "ProcessGroupNCCL" && l.rank == first_rank) return l.text;
        return rp->outcome.failure_text;
      }, rp->outcome.failure_text);
    }));
  }

  template <class TextOf>
  void fail_run(Tracked& t, TextOf text_of_rank, const std::string& failure_text) {
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

  // --- training -------------------------------------------------------------------------------

  void begin_training(Tracked& t) {
    Run& r = *t.run;
    for (auto id : r.timers) c.sim.cancel(id);
    r.timers.clear();
    r.training = true;
    r.progress_at = c.sim.now();
    for (k8s::PodId p : r.debug_pods) debug_inits[p.v].back().connected = c.sim.now();
    t.status.phase = TrainingPhase::Training;
    t.status.training_started_at = c.sim.now();
    t.status.blocked.clear();
    const int n = static_cast<int>(r.input.ranks.size());
    for (int i = 0; i < n; ++i) {
      int a = r.input.ranks[static_cast<std::size_t>(i)].node;
      int b = r.input.ranks[static_cast<std::size_t>((i + 1) % n)].node;
      if (a == b) continue;
      r.edges.emplace_back(a, b);
      if (r.zones[static_cast<std::size_t>(a)] != r.zones[static_cast<std::size_t>(b)]) ++r.cross_edges;
    }
    const int nodes = static_cast<int>(r.nodes.size());
    int gpus_per_node = (n + nodes - 1) / nodes;
    LinkOptions opt;
    opt.cross_az = t.status.cross_az;
    opt.efa_enabled = t.spec.efa;
    r.topo = make_ring_topology(r.specs[0], nodes, gpus_per_node, opt, r.params);
    reshare();
    const double bytes = t.spec.gradient_bytes;
    c.api.emit(EventType::Normal, "TrainingStarted", job_ref(t),
               "NCCL communicator of " + std::to_string(n) + " ranks on " + std::to_string(nodes) + " node(s)" +
                   (t.status.cross_az ? " across AZs" : "") + "; step " + seconds_text(r.step_s) + " = compute " +
                   seconds_text(t.spec.step_compute.to_seconds()) + " + all-reduce " + seconds_text(r.comm_s) +
                   " of " + std::to_string(static_cast<std::int64_t>(bytes)) + " bytes (busbw " +
                   gbps_text(r.comm_s > 0 ? bytes / r.comm_s / 1e9 * busbw_factor(Collective::AllReduce, n) : 0) + ")",
               kSource);
  }

  bool active(const Tracked& t) const { return t.run && t.run->training && !t.run->over; }

  // Progress of a training run up to now at its current step time.
  void advance(Tracked& t) {
    Run& r = *t.run;
    const SimTime now = c.sim.now();
    if (r.step_s > 0) {
      double d = (now - r.progress_at).to_seconds() / r.step_s;
      d = std::min(d, static_cast<double>(t.spec.steps) - t.status.steps_done);
      if (d > 0) {
        t.status.steps_done += d;
        t.total_step_s += d * r.step_s;
        t.total_comm_s += d * r.comm_s;
        const int n = static_cast<int>(r.input.ranks.size());
        double cross = d * busbw_factor(Collective::AllReduce, n) * t.spec.gradient_bytes * r.cross_edges;
        t.status.cross_az_bytes += cross;
        c.cross_az_transfer_usd += cross / 1e9 * 2 * kCrossAzUsdPerGbEachDirection;
      }
    }
    r.progress_at = now;
  }

  // Max-min shares of every node NIC (each direction a link) among the inter-node ring edges of
  // the training runs, then each run's all-reduce time on its slowest edge.
  void reshare() {
    std::vector<Tracked*> runs;
    for (auto& t : jobs)
      if (active(t)) runs.push_back(&t);
    std::map<std::pair<std::uint32_t, int>, int> link_of;  // (node, 0 egress | 1 ingress)
    std::vector<double> capacity;
    struct Flow {
      std::size_t run;
      int out_link, in_link;
      double cap;
    };
    std::vector<Flow> flows;
    auto link = [&](const Run& r, int node, int dir) {
      auto key = std::make_pair(r.nodes[static_cast<std::size_t>(node)].v, dir);
      auto [it, added] = link_of.emplace(key, static_cast<int>(capacity.size()));
      if (added) {
        LinkOptions o;
        capacity.push_back(node_to_node_link(r.specs[static_cast<std::size_t>(node)], o, r.params).nic_gbps);
      }
      return it->second;
    };
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const Run& r = *runs[i]->run;
      for (auto [a, b] : r.edges) {
        LinkOptions o;
        o.efa_enabled = runs[i]->spec.efa;
        NodeLink l = node_to_node_link(r.specs[static_cast<std::size_t>(a)], o, r.params);
        double cap = l.transport == NetTransport::Efa ? std::numeric_limits<double>::infinity()
                                                      : l.flows * l.per_flow_cap_gbps;
        flows.push_back({i, link(r, a, 0), link(r, b, 1), cap});
      }
    }
    std::vector<double> inter_gbps(runs.size(), std::numeric_limits<double>::infinity());
    if (!flows.empty()) {
      Eigen::MatrixXd inc = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(flows.size()),
                                                  static_cast<Eigen::Index>(capacity.size()));
      Eigen::VectorXd cap(static_cast<Eigen::Index>(capacity.size()));
      Eigen::VectorXd fcap(static_cast<Eigen::Index>(flows.size()));
      for (std::size_t l = 0; l < capacity.size(); ++l) cap(static_cast<Eigen::Index>(l)) = capacity[l];
      for (std::size_t f = 0; f < flows.size(); ++f) {
        inc(static_cast<Eigen::Index>(f), flows[f].out_link) = 1;
        inc(static_cast<Eigen::Index>(f), flows[f].in_link) = 1;
        fcap(static_cast<Eigen::Index>(f)) = flows[f].cap;
      }
      Eigen::VectorXd rates = max_min_fair_rates(inc, cap, fcap);
      for (std::size_t f = 0; f < flows.size(); ++f)
        inter_gbps[flows[f].run] = std::min(inter_gbps[flows[f].run], rates(static_cast<Eigen::Index>(f)));
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
      Tracked& t = *runs[i];
      Run& r = *t.run;
      advance(t);
      RingTopology topo = r.topo;
      if (topo.nodes > 1 && std::isfinite(inter_gbps[i])) topo.inter.gbytes_per_s = inter_gbps[i] / 8.0;
      CollectiveTiming timing = ring_collective(Collective::AllReduce, topo, t.spec.gradient_bytes, r.params.nccl);
      const double comm = timing.time_us / 1e6;
      const double step = t.spec.step_compute.to_seconds() + comm;
      const bool changed = r.step_s > 0 && std::abs(step - r.step_s) > 1e-3 * r.step_s;
      r.comm_s = comm;
      r.step_s = step;
      c.sim.cancel(r.finish);
      double remaining = static_cast<double>(t.spec.steps) - t.status.steps_done;
      Tracked* tp = &t;
      r.finish = c.sim.schedule(Duration::from_seconds(std::max(0.0, remaining) * step), [this, tp] { finish(*tp); });
      if (changed)
        c.api.emit(EventType::Normal, "TrainingStepTime", job_ref(t),
                   "step time now " + seconds_text(step) + " (all-reduce " + seconds_text(comm) + ", busbw " +
                       gbps_text(timing.busbw_gbytes_per_s) + ") at step " +
                       std::to_string(static_cast<std::int64_t>(t.status.steps_done)),
                   kSource);
    }
  }

  void finish(Tracked& t) {
    Run& r = *t.run;
    if (r.over) return;
    advance(t);
    t.status.steps_done = static_cast<double>(t.spec.steps);
    r.over = true;
    t.status.phase = TrainingPhase::Succeeded;
    t.status.finished_at = c.sim.now();
    TrainingJobStatus s = snapshot(t);
    c.api.emit(EventType::Normal, "TrainingCompleted", job_ref(t),
               std::to_string(t.spec.steps) + " steps in " +
                   engine::format_duration(c.sim.now() - *t.status.training_started_at) +
                   ": step time " + seconds_text(s.step_time_s) + ", communication " +
                   std::to_string(static_cast<int>(std::lround(s.comm_share * 100))) + "% of each step, algbw " +
                   gbps_text(s.algbw_gbytes_per_s) + ", busbw " + gbps_text(s.busbw_gbytes_per_s),
               kSource);
    for (k8s::PodId id : r.pods) {
      k8s::PodRecord& rec = c.api.pod(id);
      if (!k8s::pod_active(rec)) continue;
      rec.pod.status.finished_at = c.sim.now();
      ending.insert(id.v);
      c.api.set_pod_phase(id, k8s::PodPhase::Succeeded, "Completed");
      ending.erase(id.v);
    }
    reshare();  // the others get the NICs back
  }

  // A gang member gone (node lost, deleted, evicted) while the others train: their next
  // all-reduce never completes, and the watchdog ends them.
  void on_lost(k8s::PodId id) {
    if (ending.count(id.v)) return;
    cancel_resolving(id);
    if (!in_runs.count(id.v)) return;
    Tracked* t = tracked_of_pod(id);
    if (!t || !t->run || t->run->over || !t->run->training) return;
    Run& r = *t->run;
    if (std::find(r.pods.begin(), r.pods.end(), id) == r.pods.end()) return;
    advance(*t);
    c.sim.cancel(r.finish);
    r.training = false;  // out of the NIC sharing
    reshare();
    const Duration after = Duration::millis(r.params.watchdog_timeout_ms + r.params.watchdog_overshoot_ms);
    const std::uint64_t seq = static_cast<std::uint64_t>(t->status.steps_done) + 1;
    Tracked* tp = t;
    Run* rp = &r;
    r.timers.push_back(c.sim.schedule(after, [this, tp, rp, seq] {
      if (rp->over || tp->run.get() != rp) return;
      auto text = [&](int rank) {
        return watchdog_timeout_text(rank, seq, "ALLREDUCE", rp->input.numel, rp->input.numel,
                                     rp->params.watchdog_timeout_ms,
                                     rp->params.watchdog_timeout_ms + rp->params.watchdog_overshoot_ms);
      };
      for (std::size_t i = 0; i < rp->pods.size(); ++i)
        if (k8s::pod_active(c.api.pod(rp->pods[i])))
          emit_line(*rp, {Duration{}, static_cast<int>(i) * tp->spec.gpus_per_pod, "ProcessGroupNCCL",
                          text(static_cast<int>(i) * tp->spec.gpus_per_pod)});
      fail_run(*tp, text, text(0));
    }));
  }

  TrainingJobStatus snapshot(const Tracked& t) const {
    TrainingJobStatus s = t.status;
    double steps = t.status.steps_done, total_step = t.total_step_s, total_comm = t.total_comm_s;
    if (active(t)) {
      const Run& r = *t.run;
      double d = r.step_s > 0 ? (c.sim.now() - r.progress_at).to_seconds() / r.step_s : 0;
      d = std::max(0.0, std::min(d, static_cast<double>(t.spec.steps) - steps));
      steps += d;
      total_step += d * r.step_s;
      total_comm += d * r.comm_s;
      s.steps_done = steps;
      if (steps <= 0) {  // nothing run yet: the current figures
        steps = 1;
        total_step = r.step_s;
        total_comm = r.comm_s;
      }
    }
    if (steps > 0 && total_step > 0) {
      s.step_time_s = total_step / steps;
      s.comm_time_s = total_comm / steps;
      s.compute_time_s = t.spec.step_compute.to_seconds();
      s.comm_share = s.comm_time_s / s.step_time_s;
      s.steps_per_second = 1.0 / s.step_time_s;
      if (total_comm > 0) {
        s.algbw_gbytes_per_s = t.spec.gradient_bytes * steps / total_comm / 1e9;
        s.busbw_gbytes_per_s = s.algbw_gbytes_per_s * busbw_factor(Collective::AllReduce, std::max(1, s.ranks));
      }
    }
    return s;
  }
};

TrainingController::TrainingController(Cluster& cluster, NetParams params)
    : impl_(std::make_unique<Impl>(cluster, std::move(params))) {}

TrainingController::~TrainingController() = default;

std::vector<TrainingJobStatus> TrainingController::statuses() const {
  std::vector<TrainingJobStatus> out;
  for (const auto& t : impl_->jobs) out.push_back(impl_->snapshot(t));
  return out;
}

std::optional<TrainingJobStatus> TrainingController::find(const std::string& ns, const std::string& name) const {
  for (const auto& t : impl_->jobs)
    if (t.status.ns == ns && t.status.name == name) return impl_->snapshot(t);
  return std::nullopt;
}

std::vector<TrainingController::NcclDebugInit> TrainingController::nccl_debug_inits(k8s::PodId pod) const {
  auto it = impl_->debug_inits.find(pod.v);
  return it == impl_->debug_inits.end() ? std::vector<NcclDebugInit>{} : it->second;
}

std::unique_ptr<Controller> make_training_controller(Cluster& cluster) {
  return std::make_unique<TrainingController>(cluster);
}

}  // namespace eksim::net
