#pragma once
// Distributed training jobs: a gang of pods (a Kubernetes Job, Indexed for torchrun-style ranks)
// whose pod template carries eksim annotations. The controller watches the pods; when every index
// has a running pod (torchrun's rendezvous: the first pods wait, Running, for the last) it sets up
// the NCCL communicator over the nodes' ENIs and security groups (nccl_connect.hpp), then runs
// the steps: compute, then a ring all-reduce of the gradient bytes over the nodes' real links.
//
// The job's shape (collective, gradient bytes, step compute, steps, watchdog timeout, ranks per
// pod, EFA) comes from the pod template: training_spec.hpp. EFA is used when the pod asks for it
// and the instance type has it.
//
// Blocked connection: NCCL's retry lines and PyTorch's watchdog line go to the pods as events
// with reason ContainerLog (they are log lines: a real cluster shows them in `kubectl logs`), and
// at the timeout every pod of the gang fails (container exit code 1, the watchdog text as the
// pod's message); the Job then replaces them per its backoffLimit. A security group fixed while
// the ranks retry lets the next connect attempt through.
//
// Rendezvous by name: when the first container names its rendezvous host as a DNS name
// (torchrun --rdzv-endpoint / --master-addr, env MASTER_ADDR; rendezvous.hpp), the worker
// resolves it through CoreDNS as it starts (models/cluster/dns_access.hpp). A worker that no
// CoreDNS pod answers on UDP 53 prints c10d's resolution warnings as ContainerLog events, takes
// no part in a gang, and fails (exit 1, the last error line as its message) at the store
// client's deadline; a CoreDNS path opened meanwhile lets its next attempt resolve. When every
// rank runs, each worker's store client must reach the store's host on the rendezvous port (TCP
// through the groups) or it times out the same way, before any NCCL connection.
//
// Simplifications (knowingly): connects are re-checked only at NCCL's attempt boundaries (~127 s),
// not at each SYN retransmission; communicator init otherwise takes no time; compute and
// communication do not overlap; jobs sharing a NIC are assumed to communicate at the same time
// (each all-reduce sees the max-min share of the NICs among all training jobs in their
// communication phase); restartPolicy OnFailure is treated as Never (torchrun --max-restarts
// is not modelled).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/net/nccl_connect.hpp"
#include "models/net/nccl_debug_log.hpp"
#include "models/net/net_params.hpp"
#include "models/net/training_spec.hpp"

namespace eksim::net {

// AWS inter-AZ data transfer: $0.01/GB charged on each side, so a byte that crosses AZs costs
// $0.02/GB (FACTS.md; GB taken as 1e9 bytes).
inline constexpr double kCrossAzUsdPerGbEachDirection = 0.01;

enum class TrainingPhase { Waiting, Hung, Training, Succeeded, Failed };
const char* training_phase_name(TrainingPhase p);

// What the controller knows about one Job, for reports and expectations.
struct TrainingJobStatus {
  std::string ns, name;
  TrainingPhase phase = TrainingPhase::Waiting;
  int attempts = 0;          // gangs that formed (each one an NCCL init)
  int failed_attempts = 0;
  int nodes = 0, ranks = 0;
  bool cross_az = false;
  std::optional<engine::SimTime> training_started_at;  // of the attempt that trained
  std::optional<engine::SimTime> finished_at;          // training done, or the last failure
  std::optional<engine::SimTime> failed_at;            // the last failure
  double steps_done = 0;
  // Averages over the steps run so far (time-weighted when NIC shares changed).
  double step_time_s = 0;
  double comm_time_s = 0;      // per step, the all-reduce
  double compute_time_s = 0;   // per step
  double comm_share = 0;       // comm / step
  double steps_per_second = 0;
  double algbw_gbytes_per_s = 0;  // nccl-tests terms: S / t of the all-reduce
  double busbw_gbytes_per_s = 0;
  double cross_az_bytes = 0;
  std::string failure_text;    // the line that ended the last failed attempt
  std::string blocked;         // "10.0.1.5<45123> (NetRing 1 -> 0)" of the last hang
};

class TrainingController {
 public:
  explicit TrainingController(Cluster& cluster, NetParams params = default_net_params());
  ~TrainingController();

  // Every training Job seen so far, in the order they were first seen.
  std::vector<TrainingJobStatus> statuses() const;
  std::optional<TrainingJobStatus> find(const std::string& ns, const std::string& name) const;

  // Communicator inits of workers that run with NCCL_DEBUG=INFO (or TRACE), oldest first, for
  // their logs (nccl_debug_log.hpp): the rank as NCCL prints it, when the gang formed, and when
  // every connection was up (nullopt while blocked). The driver version is the reader's to fill.
  struct NcclDebugInit {
    NcclDebugRank rank;
    engine::SimTime formed;
    std::optional<engine::SimTime> connected;
  };
  std::vector<NcclDebugInit> nccl_debug_inits(k8s::PodId pod) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// assemble_controllers() installs it in every cluster (it does nothing without training Jobs).
std::unique_ptr<TrainingController> make_training_controller(Cluster& cluster);

}  // namespace eksim::net
