#pragma once
// The training controller's state and its phases, shared by the files that implement them:
// training_gang.cpp (gang formation, the rendezvous host through CoreDNS, the c10d store),
// training_nccl_init.cpp (NCCL's communicator init, the hang, a failed attempt),
// training_progress.cpp (training steps and NIC shares) and training_controller.cpp (what the
// controller tracks, lost pods, the status it reports). Private to models/net.
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/net/instance_network.hpp"
#include "models/net/training_controller.hpp"
#include "models/net/training_spec.hpp"

namespace eksim::net {

namespace training_detail {
inline constexpr const char* kSource = "training";  // the event source of its records
std::string gbps_text(double gbytes_per_s);
std::string seconds_text(double s);
}  // namespace training_detail

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
    engine::SimTime started;
    std::vector<k8s::PodId> debug_pods;  // pods whose debug_inits' last entry is this run's
    std::vector<engine::EventId> timers;
    bool training = false;
    bool over = false;
    // training
    std::vector<std::pair<int, int>> edges;  // inter-node ring edges (node indexes)
    int cross_edges = 0;
    RingTopology topo;
    engine::SimTime progress_at;
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

  Impl(Cluster& cluster, NetParams p);

  // --- tracking (training_controller.cpp)
  k8s::ObjectRef job_ref(const Tracked& t) const;
  std::optional<std::size_t> owner_job(k8s::PodId id) const;
  Tracked* tracked(std::size_t job);
  Tracked* tracked_of_pod(k8s::PodId id);
  // A gang member gone (node lost, deleted, evicted) while the others train: their next
  // all-reduce never completes, and the watchdog ends them.
  void on_lost(k8s::PodId id);
  TrainingJobStatus snapshot(const Tracked& t) const;

  // --- gang, rendezvous and store (training_gang.cpp)
  void on_started(k8s::PodId id);
  // Does the worker's store client resolve its rendezvous host now? When it does not, the
  // worker retries as c10d does (rendezvous.hpp), printing each failure, and dies at the
  // client's deadline unless CoreDNS became reachable in between (a security group fixed).
  bool resolves_rendezvous(Tracked& t, k8s::PodId id);
  // The worker's store client gave up: its last lines, then torchrun (or the program) exits 1 on
  // the uncaught error.
  void fail_worker(Tracked& t, k8s::PodId id, const std::vector<std::string>& lines);
  // Every rank there: each worker's store client must also reach the store's host (TCP on the
  // rendezvous port). A SYN the groups drop is retransmitted past the client's deadline (Linux
  // gives up after 127 s), so the client times out at its deadline; the workers that did connect
  // wait in the rendezvous. Checked once, when the last rank arrives.
  bool store_reachable(Tracked& t, const std::vector<k8s::PodId>& pods);
  void cancel_resolving(k8s::PodId id);
  // A worker's log line (c10d prints warnings and errors): an event with reason ContainerLog.
  void emit_log(k8s::PodId id, const std::string& text);
  void try_form_gang(Tracked& t);
  aws::Eni eni_of(k8s::NodeId node, std::string* ip) const;

  // --- NCCL init, hang and failure (training_nccl_init.cpp)
  void start_run(Tracked& t, std::vector<k8s::PodId> pods);
  // What NCCL_DEBUG=INFO makes each rank print (nccl_debug_log.hpp), for the modelled shape: one
  // rank per node over sockets. Identifiers (pids, the comm pointer, the unique id) come from a
  // stream of their own, drawn only for such workers.
  void record_debug_inits(const Tracked& t, Run& r);
  k8s::PodId pod_of_rank(const Run& r, int rank) const;
  void emit_line(const Run& r, const NcclLogLine& line);
  void hang(Tracked& t);
  void watch_syns(Tracked& t);
  void fail_run(Tracked& t, const std::function<std::string(int)>& text_of_rank, const std::string& failure_text);

  // --- training (training_progress.cpp)
  bool active(const Tracked& t) const;
  void begin_training(Tracked& t);
  // Progress of a training run up to now at its current step time.
  void advance(Tracked& t);
  // Max-min shares of every node NIC (each direction a link) among the inter-node ring edges of
  // the training runs, then each run's all-reduce time on its slowest edge.
  void reshare();
  void finish(Tracked& t);
};

}  // namespace eksim::net
