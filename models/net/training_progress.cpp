// Training runs once NCCL is up: the step time from compute and the ring all-reduce over the
// links between the gang's nodes, NIC shares re-solved when runs start or end on shared nodes
// (sharing.hpp), cross-AZ bytes, and the end of training.
#include "models/net/training_controller_impl.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/k8s/controllers/job_controller.hpp"
#include "models/k8s/api/pod_factory.hpp"
#include "models/net/collectives.hpp"
#include "models/net/links.hpp"
#include "models/net/sharing.hpp"

namespace eksim::net {

using engine::Duration;
using k8s::EventType;
using engine::SimTime;
using namespace training_detail;

bool TrainingController::Impl::active(const Tracked& t) const { return t.run && t.run->training && !t.run->over; }

void TrainingController::Impl::begin_training(Tracked& t) {
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
  r.topo.nccl_version = r.input.version.code();  // the image's NCCL tunes
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

void TrainingController::Impl::advance(Tracked& t) {
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

void TrainingController::Impl::reshare() {
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
      o.cross_az = runs[i]->status.cross_az;
      NodeLink l = node_to_node_link(r.specs[static_cast<std::size_t>(a)], o, r.params);
      double cap = std::numeric_limits<double>::infinity();
      if (l.transport == NetTransport::Socket) {
        // Flows share line rates; the socket transport's ceiling is on what a collective moves, so
        // in line-rate terms it is socket_max / efficiency (collective_gbytes_per_s undoes it).
        cap = l.flows * l.per_flow_cap_gbps;
        const NcclParams& n = r.params.nccl;
        if (n.socket_max_gbps > 0 && n.net_bandwidth_efficiency > 0)
          cap = std::min(cap, n.socket_max_gbps / n.net_bandwidth_efficiency);
      }
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
    CollectiveTiming timing = nccl_collective(Collective::AllReduce, topo, t.spec.gradient_bytes, r.params.nccl);
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

void TrainingController::Impl::finish(Tracked& t) {
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

}  // namespace eksim::net
