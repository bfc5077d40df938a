#pragma once
// The kubelets of every node, as one component: admission, image pulls (cached per node),
// container start, run length, exit, restart with CrashLoopBackOff, graceful termination.
// Event texts are the kubelet's (pkg/kubelet/images/image_manager.go, kuberuntime_container.go,
// kuberuntime_manager.go, lifecycle/predicate.go), as `kubectl describe pod` shows them.
//
// What a container does comes from CONTRACT.md "How long a container runs": the annotation
// eksim.io/duration (decoded into Pod::run) wins; else `sleep N` in the command (also inside `sh -c "nvidia-smi && sleep
// 300"`), nvidia-smi alone ~1 s; anything else runs until deleted. eksim.io/exit-code sets the
// exit code (default 0). Only the first container decides the pod's run and restarts; other
// containers are pulled, created and started alongside it (sidecars are not modelled). Init
// containers run only where a component says they wait for something (init_wait); otherwise
// they are taken to finish at once, and their images are not pulled.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/k8s/api/api_server.hpp"
#include "sim/engine/rate_limiter.hpp"

namespace eksim::k8s {

struct KubeletConfig {
  // Image pull throughput. Lab 001 pulled 1,766,399,024 bytes of
  // nvidia/cuda:13.0.2-runtime-ubuntu22.04 from Docker Hub in 58.965 s, i.e. 29,956,737 B/s;
  // this default reproduces that line exactly. ECR is 42-83 MB/s for large images (FACTS.md).
  double pull_bytes_per_second = 1766399024.0 / 58.965;
  // Image size when neither the table in kubelet.cpp nor eksim.io/image-size knows the image:
  // a round 100 MB, the order of a small application image.
  std::int64_t default_image_size = 100000000;
  // Bind -> first kubelet action (sandbox, CNI IP): lab 001 shows Scheduled 4m25s and Pulling
  // 4m20s ago, on a freshly joined node.
  engine::Duration sandbox_delay = engine::Duration::seconds(5);
  // CrashLoopBackOff: 10 s doubling to 5 min, reset after 10 min of running
  // (pkg/kubelet/kubelet.go backOffPeriod, MaxContainerBackOff; FACTS.md).
  engine::Duration backoff_initial = engine::Duration::seconds(10);
  engine::Duration backoff_max = engine::Duration::minutes(5);
  engine::Duration backoff_reset = engine::Duration::minutes(10);
  // While a container waits in back-off, the pod worker re-syncs every 10 s plus up to 50 %
  // jitter (pod_workers.go backOffPeriod with workerBackOffPeriodJitterFactor 0.5); each sync
  // that finds it still waiting records BackOff (lab 001: x15 over 3m9s) and the restart happens
  // at the first sync after the back-off has passed.
  engine::Duration resync_base = engine::Duration::seconds(10);
  double resync_jitter = 0.5;
  // SIGTERM handling: a `sleep`-based command runs as PID 1 without a SIGTERM handler, so it is
  // killed only when terminationGracePeriodSeconds ends; other processes stop in about a second.
  engine::Duration default_stop_time = engine::Duration::seconds(1);
  // The kubelet's API client: nodeadm writes kubeAPIQPS 10 and kubeAPIBurst 20 into the kubelet
  // config of the EKS AMIs (kubelet 1.22 on; upstream's own defaults are 50 and 100 since 1.27).
  // A pod rejected at admission turns Failed when the status manager's patch gets through this
  // limiter, so a controller that replaces rejected pods (kubernetes#108152, #72593) loops at
  // this rate per node, not within one instant.
  double kube_api_qps = 10;
  int kube_api_burst = 20;
};

// Bytes of a known image (the size the kubelet prints in Pulled), else nullopt.
std::optional<std::int64_t> known_image_size(const std::string& image);

// How long the first container runs and how it ends, from annotations and the command.
struct ContainerRun {
  std::optional<engine::Duration> duration;  // nullopt: runs until deleted
  int exit_code = 0;
  bool sleeps = false;  // PID 1 ignores SIGTERM
};
ContainerRun container_run(const Pod& pod);

// "gpu-pod_default(<uid>)": format.Pod as the kubelet prints pods in events.
std::string kubelet_pod_ref(const Pod& pod);

// The restart back-off after a container's `exits`-th failed run in a row: backoff_initial
// doubling up to backoff_max (the kubelet's crash-loop back-off, init containers included).
engine::Duration restart_backoff(const KubeletConfig& config, int exits);
// The BackOff event's text while a failed container waits out its back-off.
std::string restart_backoff_message(const std::string& container, const Pod& pod);

class Kubelet {
 public:
  Kubelet(ApiServer& api, KubeletConfig config = {});
  Kubelet(const Kubelet&) = delete;
  Kubelet& operator=(const Kubelet&) = delete;

  // Graceful deletion (kubectl delete, eviction, controllers): the pod is marked terminating;
  // a running container gets Killing "Stopping container NAME" and stops after its stop time
  // capped by the grace period; then the pod is removed from the API. Unbound pods go at once.
  void delete_pod(PodId pod, std::optional<std::int64_t> grace_seconds = std::nullopt);

  bool image_present(NodeId node, const std::string& image) const;
  const KubeletConfig& config() const { return config_; }

  // Fires when a pod's first container has started (each start, restarts included).
  std::vector<std::function<void(PodId)>> on_container_started;
  // What a program does that its pod spec alone does not say (a device plugin that fails on a
  // node without its devices): asked before container_run at each start; nullopt = no opinion.
  std::function<std::optional<ContainerRun>(PodId)> container_run_override;
  // The CNI plugin's ADD when the runtime sets up a pod sandbox's network (pods without
  // hostNetwork): nullopt on success, else the plugin's error text, which the kubelet records as
  // FailedCreatePodSandBox and retries at the pod worker's back-off. Unset: every pod gets one.
  std::function<std::optional<std::string>(PodId)> cni_add;
  // Whether the node reaches an image's registry: nullopt when it does (or nobody asks), else
  // the runtime's pull error. A failed pull ends after the dial timeout with Failed / ErrImagePull,
  // then ImagePullBackOff (image back-off 10 s doubling to 5 min, image_manager.go). Asked at
  // each pull attempt, so a security group fixed mid-run lets the next attempt through.
  std::function<std::optional<std::string>(PodId, const std::string& image)> pull_error;
  engine::Duration pull_dial_timeout = engine::Duration::seconds(30);
  // Init containers that wait for something outside the pod (the GPU Operator's `until [ -f
  // /run/nvidia/validations/toolkit-ready ]`): asked once the sandbox is up, before the first
  // start of a pod that has init containers; true = the pod stays Pending as `Init:0/N` until
  // init_done(pod). Unset: nothing waits.
  std::function<bool(PodId)> init_wait;
  // The device manager's Allocate at admission, for pods that request a device plugin's
  // resource: nullopt on success, else the plugin's error, which the kubelet reports as
  // UnexpectedAdmissionError ("Allocate failed due to rpc error: code = Unknown desc = <error>,
  // which is unexpected") and fails the pod. Unset: every allocation succeeds.
  std::function<std::optional<std::string>(PodId)> device_allocate;
  // The pod's init containers have completed: PodInitializing, then its containers as usual.
  void init_done(PodId pod);

 private:
  struct PodRuntime {
    engine::EventId timer;
    int exits = 0;              // exits that led to a restart (back-off steps)
    engine::SimTime started_at;
    engine::SimTime exited_at;
    engine::Duration backoff{};
    engine::Duration pull_backoff{};  // image pull back-off (0: no failed pull yet)
    engine::SimTime pull_failed_at;
    bool running = false;
    bool admitted = false;
    bool begun = false;         // kubelet has started working on the pod
    bool stopping = false;
    bool present = false;
  };
  // The pods this kubelet works on, by PodId slot: admission looks up every pod of the node, and
  // a week of a fleet has a hundred thousand pods. A deque, so references stay valid as it grows.
  class PodRuntimes {
   public:
    PodRuntime* find(PodId id) { return id.v < slots_.size() && slots_[id.v].present ? &slots_[id.v] : nullptr; }
    // The pod's state, fresh if it had none (std::map::operator[]).
    PodRuntime& operator[](PodId id) {
      if (id.v >= slots_.size()) slots_.resize(id.v + 1);
      PodRuntime& rt = slots_[id.v];
      rt.present = true;
      return rt;
    }
    PodRuntime& fresh(PodId id) {
      PodRuntime& rt = (*this)[id];
      rt = PodRuntime{};
      rt.present = true;
      return rt;
    }
    void erase(PodId id) {
      if (id.v < slots_.size()) slots_[id.v] = PodRuntime{};
    }

   private:
    std::deque<PodRuntime> slots_;
  };

  void on_bound(PodId id);
  void on_node(NodeId id, NodeChange change);
  void maybe_begin(PodId id);
  void begin(PodId id);
  bool admit(PodId id);
  // The status manager's patch of a rejected pod: Failed with the rejection's reason.
  void write_rejection(PodId id, const std::string& reason, const std::string& message);
  void create_sandbox(PodId id);
  void pull_and_start(PodId id, bool first);
  // The pull-create-start of container index and the ones after it.
  void pull_step(PodId id, std::size_t index, bool first);
  void pull_failed(PodId id, std::size_t index, bool first, const std::string& image, const std::string& error);
  void pull_backoff_sync(PodId id, std::size_t index, bool first, const std::string& image);
  void start_containers(PodId id);
  void container_exited(PodId id);
  ContainerRun run_of(PodId id) const;
  void backoff_sync(PodId id);
  void finish_termination(PodId id);
  engine::Duration resync_interval(NodeId node);
  std::int64_t image_size(const Pod& pod, const std::string& image) const;

  ApiServer& api_;
  KubeletConfig config_;
  PodRuntimes pods_;
  // What the admitted pods that have not finished request, per node slot, kept as pods are
  // admitted, finish or go: admission reads it instead of walking the node's pods, which keep
  // every Failed pod until the pod GC (12,500 of them under a rejection loop).
  struct NodeUsage {
    ResourceList used;
    std::int64_t pods = 0;
  };
  std::unordered_map<std::uint32_t, NodeUsage> usage_;
  struct Counted {
    std::uint32_t node;
    ResourceList requests;
  };
  std::unordered_map<std::uint32_t, Counted> counted_;  // by pod slot
  void count_admitted(PodId id);
  void uncount(PodId id);
  // Per node slot: the kubelet's API client (a node that joins again starts with a full bucket).
  std::unordered_map<std::uint32_t, engine::RateLimiter> api_clients_;
  // Per node: image -> time its pull completes (in the past once present).
  std::map<std::uint32_t, std::map<std::string, engine::SimTime>> images_;
};

}  // namespace eksim::k8s
