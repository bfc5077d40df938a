#pragma once
// Job controller: completions, parallelism, backoffLimit, NonIndexed and Indexed completion
// modes. Pods are named <job>-<5 chars> (NonIndexed) or <job>-<index>-<5 chars> (Indexed).
// Events (job-controller): `SuccessfulCreate` "Created pod: <pod>", `Completed` "Job completed",
// `BackoffLimitExceeded` "Job has reached the specified backoff limit", `SuccessfulDelete`.
// Failed pods are replaced after the pod-failure back-off (10 s doubling, max 6 min:
// DefaultJobPodFailureBackOff, MaxJobPodFailureBackOff). With restartPolicy OnFailure the
// container restarts count as failures, as upstream.
#include <deque>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/k8s/api/api_server.hpp"

namespace eksim::k8s {

class Kubelet;

inline constexpr const char* kLabelJobName = "batch.kubernetes.io/job-name";
inline constexpr const char* kAnnotationCompletionIndex = "batch.kubernetes.io/job-completion-index";

class JobController {
 public:
  explicit JobController(ApiServer& api, Kubelet* kubelet = nullptr);
  std::size_t apply(Job job);  // stored in api.jobs(); returns its index
  std::vector<PodId> pods(std::size_t index) const;
  // kubectl delete job (propagation Background): the Job goes, the garbage collector deletes its
  // pods with their grace periods. False if no live Job has this namespace and name.
  bool remove(const std::string& ns, const std::string& name);
  // A finished Job's pod template is never read again by a controller; a long run (`eksim run`,
  // sweeps) drops it so that a week of 100,000 Jobs holds only their status. `eksim serve` keeps
  // it for `kubectl describe job`.
  void drop_finished_templates(bool on) { drop_finished_templates_ = on; }

 private:
  void reconcile(std::size_t index);
  void enqueue(std::size_t index, engine::Duration delay = {});
  std::optional<std::size_t> owner_of(PodId id) const;
  void pod_finished(PodId id);
  void finished(Job& job);

  ApiServer& api_;
  Kubelet* kubelet_;
  struct State {
    std::vector<PodId> pods;
    std::set<std::uint32_t> counted;    // pods already counted as succeeded/failed
    std::set<std::int32_t> done_indexes;
    std::map<std::uint32_t, std::int32_t> index_of;  // pod -> completion index
    std::int32_t pod_failures = 0;      // failed pods (restarts are added at reconcile)
    engine::SimTime last_failure;
    engine::EventId timer;
  };
  std::deque<State> state_;  // by index in api.jobs()
  bool drop_finished_templates_ = false;
  // "ns/name" -> index in api.jobs(), so a pod event finds its owner without a scan (the
  // informer's namespace/name index upstream).
  std::unordered_map<std::string, std::size_t> by_name_;
};

}  // namespace eksim::k8s
