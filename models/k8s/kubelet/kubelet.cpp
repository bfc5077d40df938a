#include "models/k8s/kubelet/kubelet.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace eksim::k8s {

namespace {

using engine::Duration;
using k8s::EventType;

constexpr const char* kKubelet = "kubelet";
// After a failed image pull, the sync that first finds the image back-off (the failed sync's
// status update brings the pod worker back almost at once).
constexpr Duration kPullFailureResync = Duration::seconds(1);

// Sizes the kubelet reported for images the labs use (bytes, as in "Image size: N bytes").
struct ImageSize {
  const char* image;
  std::int64_t bytes;
};
constexpr ImageSize kImageSizes[] = {
    {"nvidia/cuda:13.0.2-runtime-ubuntu22.04", 1766399024},  // lab 001 `kubectl describe pod`
};

std::string strip_registry(const std::string& image) {
  for (const char* prefix : {"docker.io/library/", "docker.io/"}) {
    std::string p = prefix;
    if (image.rfind(p, 0) == 0) return image.substr(p.size());
  }
  return image;
}

// GNU sleep's argument: a number with an optional unit s, m, h or d; "infinity" never ends.
// Returns nullopt for text sleep would reject; Duration::max-like sentinel via `forever`.
std::optional<Duration> parse_sleep_arg(const std::string& arg, bool& forever) {
  if (arg == "infinity" || arg == "inf") {
    forever = true;
    return Duration{};
  }
  if (arg.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(arg.c_str(), &end);
  if (end == arg.c_str() || !(v >= 0)) return std::nullopt;  // "nan" too: sleep refuses it
  std::string unit(end);
  double mult = 1;
  if (unit.empty() || unit == "s") mult = 1;
  else if (unit == "m") mult = 60;
  else if (unit == "h") mult = 3600;
  else if (unit == "d") mult = 86400;
  else return std::nullopt;
  return Duration::from_seconds(v * mult);
}

bool is_extended_resource(const std::string& name) {
  // v1helper.IsExtendedResourceName: a domain-qualified name outside kubernetes.io.
  if (name.find('/') == std::string::npos) return false;
  return name.rfind("kubernetes.io/", 0) != 0 && name.rfind("requests.", 0) != 0;
}

struct AdmitRejection {
  std::string reason;
  std::string message;
};

// devicemanager devicesToAllocate: a resource a device plugin serves on the node (the node lists
// it) needs enough healthy devices that no admitted pod holds; the error comes back through
// admission.GetPodAdmitResult as UnexpectedAdmissionError.
std::optional<AdmitRejection> devices_unavailable(const ResourceList& want, const ResourceList& alloc,
                                                  const ResourceList& used) {
  for (const auto& [name, amount] : want.items()) {
    const std::string resource(name);
    if (amount == 0 || !is_extended_resource(resource) || !alloc.has(resource)) continue;
    const std::int64_t free = alloc.get(resource) - used.get(resource);
    std::string error;
    if (alloc.get(resource) == 0) error = "no healthy devices present; cannot allocate unhealthy devices " + resource;
    else if (amount > free)
      error = "requested number of devices unavailable for " + resource + ". Requested: " + std::to_string(amount) +
              ", Available: " + std::to_string(free);
    if (!error.empty()) return AdmitRejection{"UnexpectedAdmissionError", "Allocate failed due to " + error + ", which is unexpected"};
  }
  return std::nullopt;
}

// lifecycle/predicate.go: extended resources the node does not list at all are dropped before
// the fit check (removeMissingExtendedResources); then noderesources.Fits order: pods, cpu,
// memory, ephemeral-storage, scalar resources.
std::optional<AdmitRejection> does_not_fit(const ResourceList& want, const ResourceList& alloc, const ResourceList& used,
                                           std::int64_t pods_used) {
  if (alloc.has(kPods) && pods_used + 1 > alloc.get(kPods))
    return AdmitRejection{"OutOfpods", "Node didn't have enough resource: pods, requested: 1, used: " +
                                           std::to_string(pods_used) + ", capacity: " + std::to_string(alloc.get(kPods))};
  std::vector<std::string> order;
  for (auto r : {kCpu, kMemory, kEphemeralStorage}) order.emplace_back(r);
  for (const auto& [name, amount] : want.items())
    if (name != kCpu && name != kMemory && name != kEphemeralStorage && name != kPods) order.emplace_back(name);
  for (const auto& r : order) {
    const std::int64_t req = want.get(r);
    if (req == 0) continue;
    if (is_extended_resource(r) && !alloc.has(r)) continue;
    if (req > alloc.get(r) - used.get(r))
      return AdmitRejection{"OutOf" + r, "Node didn't have enough resource: " + r + ", requested: " +
                                             std::to_string(req) + ", used: " + std::to_string(used.get(r)) +
                                             ", capacity: " + std::to_string(alloc.get(r))};
  }
  return std::nullopt;
}

std::string go_duration_ms(Duration d) {
  // The kubelet prints pull times truncated to the millisecond (Duration.Truncate(time.Millisecond)).
  return engine::format_duration(Duration{d.us - d.us % 1000});
}

}  // namespace

std::optional<std::int64_t> known_image_size(const std::string& image) {
  std::string name = strip_registry(image);
  for (const auto& e : kImageSizes)
    if (name == e.image) return e.bytes;
  return std::nullopt;
}

ContainerRun container_run(const Pod& pod) {
  ContainerRun run;
  run.exit_code = pod.run.exit_code.value_or(0);
  const bool have_annotation = pod.run.duration.has_value();
  if (have_annotation) run.duration = *pod.run.duration;
  if (pod.spec.containers.empty()) return run;
  const Container& c = pod.spec.containers.front();
  std::string text;
  for (const auto& s : c.command) text += s + " ";
  for (const auto& s : c.args) text += s + " ";
  for (char& ch : text)
    if (ch == '"' || ch == '\'' || ch == ';' || ch == '&' || ch == '|' || ch == '(' || ch == ')') ch = ' ';
  std::vector<std::string> tokens;
  std::string cur;
  for (char ch : text) {
    if (std::isspace(static_cast<unsigned char>(ch))) {
      if (!cur.empty()) tokens.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty()) tokens.push_back(cur);

  Duration total{};
  bool finite = false, forever = false;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    auto base = t.substr(t.rfind('/') == std::string::npos ? 0 : t.rfind('/') + 1);
    if (base == "sleep" && i + 1 < tokens.size()) {
      if (auto d = parse_sleep_arg(tokens[i + 1], forever)) {
        run.sleeps = true;
        total += *d;
        finite = true;
      }
    } else if (base == "nvidia-smi") {
      total += Duration::seconds(1);  // CONTRACT.md: nvidia-smi alone runs about a second
      finite = true;
    }
  }
  if (!have_annotation && finite && !forever) run.duration = total;
  return run;
}

std::string kubelet_pod_ref(const Pod& pod) {
  return pod.meta.name + "_" + pod.meta.ns + "(" + pod.meta.uid + ")";
}

Duration restart_backoff(const KubeletConfig& config, int exits) {
  Duration delay = config.backoff_initial;
  for (int i = 1; i < exits && delay < config.backoff_max; ++i) delay = delay * 2;
  return delay > config.backoff_max ? config.backoff_max : delay;
}

std::string restart_backoff_message(const std::string& container, const Pod& pod) {
  return "Back-off restarting failed container " + container + " in pod " + kubelet_pod_ref(pod);
}

Kubelet::Kubelet(ApiServer& api, KubeletConfig config) : api_(api), config_(std::move(config)) {
  api_.on_pod_bound.push_back([this](PodId id) { on_bound(id); });
  api_.on_node.push_back([this](NodeId id, NodeChange ch) { on_node(id, ch); });
  api_.on_pod_deleted.push_back([this](PodId id) {
    PodRuntime* rt = pods_.find(id);
    if (!rt) return;
    api_.sim().cancel(rt->timer);
    pods_.erase(id);
  });
  // Admission's usage follows a pod that finishes or goes before anything else hears of it, so no
  // admission triggered by that news can count it.
  api_.on_pod_deleted.insert(api_.on_pod_deleted.begin(), [this](PodId id) { uncount(id); });
  api_.on_pod_phase.insert(api_.on_pod_phase.begin(), [this](PodId id) {
    const PodPhase phase = api_.pod(id).pod.status.phase;
    if (phase == PodPhase::Succeeded || phase == PodPhase::Failed) uncount(id);
  });
}

void Kubelet::count_admitted(PodId id) {
  const PodRecord& rec = api_.pod(id);
  Counted c{rec.node.v, {}};
  // pod_requests without its temporary when there are no init containers (the common case).
  if (rec.pod.spec.init_containers.empty())
    for (const auto& ctr : rec.pod.spec.containers) c.requests += ctr.requests;
  else
    c.requests = pod_requests(rec.pod.spec);
  NodeUsage& u = usage_[c.node];
  u.used += c.requests;
  ++u.pods;
  counted_.insert_or_assign(id.v, std::move(c));
}

void Kubelet::uncount(PodId id) {
  auto it = counted_.find(id.v);
  if (it == counted_.end()) return;
  NodeUsage& u = usage_[it->second.node];
  u.used -= it->second.requests;
  --u.pods;
  counted_.erase(it);
}

bool Kubelet::image_present(NodeId node, const std::string& image) const {
  auto n = images_.find(node.v);
  if (n == images_.end()) return false;
  auto it = n->second.find(image);
  return it != n->second.end() && it->second <= api_.now();
}

std::int64_t Kubelet::image_size(const Pod& pod, const std::string& image) const {
  if (pod.run.image_size) return *pod.run.image_size;
  if (auto s = known_image_size(image)) return *s;
  return config_.default_image_size;
}

engine::Duration Kubelet::resync_interval(NodeId node) {
  auto& r = api_.rng().get("k8s/kubelet/" + api_.node(node).node.meta.name);
  double base = config_.resync_base.to_seconds();
  return Duration::from_seconds(base * (1.0 + config_.resync_jitter * r.uniform()));
}

void Kubelet::on_bound(PodId id) {
  pods_.fresh(id);
  maybe_begin(id);
}

void Kubelet::on_node(NodeId id, NodeChange change) {
  if (change == NodeChange::Added || change == NodeChange::Deleted) api_clients_.erase(id.v);
  if (change != NodeChange::Ready && change != NodeChange::Added) return;
  auto pods = api_.node(id).pods;  // copy: starting a pod may change the list
  for (PodId p : pods) maybe_begin(p);
}

void Kubelet::maybe_begin(PodId id) {
  const PodRuntime* rt = pods_.find(id);
  if (!rt || rt->begun) return;
  const PodRecord& rec = api_.pod(id);
  if (rec.deleted || rec.terminating || !rec.node.valid()) return;
  const NodeRecord& node = api_.node(rec.node);
  if (node.deleted) return;
  // Without the CNI (node not Ready) only host-network pods get a sandbox.
  if (!node.node.ready && !rec.pod.spec.host_network) return;
  begin(id);
}

bool Kubelet::admit(PodId id) {
  PodRecord& rec = api_.pod(id);
  const NodeRecord& node = api_.node(rec.node);
  const ResourceList& alloc = node.node.allocatable;
  static const NodeUsage kIdle;
  auto found = usage_.find(rec.node.v);
  const NodeUsage& usage = found == usage_.end() ? kIdle : found->second;
  const ResourceList& used = usage.used;
  const std::int64_t pods_used = usage.pods;
  const ResourceList want = pod_requests(rec.pod.spec);
  // The device manager's admit handler comes before the predicate's (kubelet.go NewMainKubelet).
  std::optional<AdmitRejection> rejected = devices_unavailable(want, alloc, used);
  if (!rejected && device_allocate)
    if (auto err = device_allocate(id))
      rejected = AdmitRejection{"UnexpectedAdmissionError",
                                "Allocate failed due to rpc error: code = Unknown desc = " + *err + ", which is unexpected"};
  if (!rejected) rejected = does_not_fit(want, alloc, used, pods_used);
  if (!rejected) return true;
  const auto& [reason, message] = *rejected;
  // rejectPod: the event goes out at once (the recorder has its own client); the Failed status
  // waits for the status manager's patch through the kubelet's API client.
  api_.emit(EventType::Warning, reason, ApiServer::ref(rec.pod), message, kKubelet);
  auto client = api_clients_.try_emplace(rec.node.v, config_.kube_api_qps, config_.kube_api_burst).first;
  const engine::SimTime patch = client->second.reserve(api_.now());
  if (patch == api_.now()) write_rejection(id, reason, message);
  else
    pods_[id].timer =
        api_.sim().schedule_at(patch, [this, id, r = *rejected] { write_rejection(id, r.reason, r.message); });
  return false;
}

void Kubelet::write_rejection(PodId id, const std::string& reason, const std::string& message) {
  PodRecord& rec = api_.pod(id);
  if (rec.deleted) return;
  rec.pod.status.message = "Pod was rejected: " + message;
  rec.pod.status.finished_at = api_.now();
  api_.set_pod_phase(id, PodPhase::Failed, reason);
}

void Kubelet::begin(PodId id) {
  PodRuntime& rt = pods_[id];
  rt.begun = true;
  if (!admit(id)) return;
  rt.admitted = true;
  count_admitted(id);
  api_.set_pod_phase(id, PodPhase::Pending, "ContainerCreating");
  rt.timer = api_.sim().schedule(config_.sandbox_delay, [this, id] { create_sandbox(id); });
}

void Kubelet::create_sandbox(PodId id) {
  PodRuntime* rt = pods_.find(id);
  if (!rt) return;
  PodRecord& rec = api_.pod(id);
  std::optional<std::string> cni_error;
  if (cni_add && !rec.pod.spec.host_network) cni_error = cni_add(id);
  if (!cni_error) {
    if (init_wait && !rec.pod.spec.init_containers.empty() && init_wait(id)) {
      const PodRecord& now = api_.pod(id);
      if (!now.deleted && !now.terminating)
        api_.set_pod_phase(id, PodPhase::Pending, "Init:0/" + std::to_string(now.pod.spec.init_containers.size()));
      return;
    }
    pull_and_start(id, true);
    return;
  }
  // containerd names each sandbox attempt by a fresh 64-hex-digit id; the CNI error comes back
  // through CRI RunPodSandbox (kuberuntime_manager.go createPodSandbox, containerd sandbox_run.go).
  auto& r = api_.rng().get("k8s/containerd/" + api_.node(rec.node).node.meta.name);
  char sandbox[65];
  for (int i = 0; i < 4; ++i)
    std::snprintf(sandbox + 16 * i, 17, "%016llx", static_cast<unsigned long long>(r.next_u64()));
  api_.emit(EventType::Warning, "FailedCreatePodSandBox", ApiServer::ref(rec.pod),
            "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox \"" +
                std::string(sandbox) + "\": " + *cni_error,
            kKubelet);
  // The pod worker retries a failed sync after its back-off (pod_workers.go, 10 s + jitter).
  rt->timer = api_.sim().schedule(resync_interval(rec.node), [this, id] { create_sandbox(id); });
}

void Kubelet::init_done(PodId id) {
  PodRuntime* rt = pods_.find(id);
  if (!rt || !rt->begun || rt->running || rt->stopping) return;
  const PodRecord& rec = api_.pod(id);
  if (rec.deleted || rec.terminating) return;
  api_.set_pod_phase(id, PodPhase::Pending, "PodInitializing");
  pull_and_start(id, true);
}

void Kubelet::pull_and_start(PodId id, bool first) {
  // Containers are handled in order: pull (or find the image present), create, start; the pull
  // of the next container waits for the previous one, as the kubelet's SyncPod loop does.
  pull_step(id, 0, first);
}

void Kubelet::pull_step(PodId id, std::size_t index, bool first) {
  PodRuntime* rt = pods_.find(id);
  if (!rt) return;
  PodRecord& rec = api_.pod(id);
  const auto& containers = rec.pod.spec.containers;
  std::size_t limit = first ? containers.size() : std::min<std::size_t>(1, containers.size());
  if (index >= limit) {
    start_containers(id);
    return;
  }
  const Container& c = containers[index];
  auto ref = ApiServer::ref(rec.pod);
  auto& cache = images_[rec.node.v];
  engine::SimTime now = api_.now();
  auto created_started = [this, ref, name = c.name] {
    api_.emit(EventType::Normal, "Created", ref, "Created container: " + name, kKubelet);
    api_.emit(EventType::Normal, "Started", ref, "Started container " + name, kKubelet);
  };
  auto cached = cache.find(c.image);
  if (cached != cache.end() && cached->second <= now) {
    api_.emit(EventType::Normal, "Pulled", ref, "Container image \"" + c.image + "\" already present on machine",
              kKubelet);
    created_started();
    pull_step(id, index + 1, first);
    return;
  }
  if (cached == cache.end() && pull_error) {
    if (auto error = pull_error(id, c.image)) {
      pull_failed(id, index, first, c.image, *error);
      return;
    }
  }
  engine::SimTime pull_start = now;
  Duration own{};
  engine::SimTime done;
  if (cached != cache.end()) {
    done = cached->second;  // another pod is pulling it: wait for that pull
    own = done - now;
  } else {
    std::int64_t bytes = image_size(rec.pod, c.image);
    own = Duration::from_seconds(static_cast<double>(bytes) / config_.pull_bytes_per_second);
    done = now + own;
    cache[c.image] = done;
  }
  std::int64_t bytes = image_size(rec.pod, c.image);
  api_.emit(EventType::Normal, "Pulling", ref, "Pulling image \"" + c.image + "\"", kKubelet);
  rt->pull_backoff = Duration{};  // a pull that goes through clears the back-off (backOff.GC)
  rt->timer = api_.sim().schedule_at(done, [this, id, index, first, ref, image = c.image, own, pull_start, bytes,
                                            created_started] {
    Duration total = api_.now() - pull_start;
    api_.emit(EventType::Normal, "Pulled", ref,
              "Successfully pulled image \"" + image + "\" in " + go_duration_ms(own) + " (" + go_duration_ms(total) +
                  " including waiting). Image size: " + std::to_string(bytes) + " bytes.",
              kKubelet);
    created_started();
    pull_step(id, index + 1, first);
  });
}

void Kubelet::pull_failed(PodId id, std::size_t index, bool first, const std::string& image,
                          const std::string& error) {
  PodRuntime* rt = pods_.find(id);
  if (!rt) return;
  auto ref = ApiServer::ref(api_.pod(id).pod);
  api_.emit(EventType::Normal, "Pulling", ref, "Pulling image \"" + image + "\"", kKubelet);
  rt->timer = api_.sim().schedule(pull_dial_timeout, [this, id, index, first, image, error, ref] {
    PodRuntime* rt = pods_.find(id);
    if (!rt) return;
    // image_manager.go: Failed "Failed to pull image ...", backOff.Next; kuberuntime_container.go
    // startContainer: Failed "Error: ErrImagePull".
    api_.emit(EventType::Warning, "Failed", ref, "Failed to pull image \"" + image + "\": " + error, kKubelet);
    api_.emit(EventType::Warning, "Failed", ref, "Error: ErrImagePull", kKubelet);
    const PodRecord& rec = api_.pod(id);
    api_.set_pod_phase(id, rec.pod.status.phase == PodPhase::Running ? PodPhase::Running : PodPhase::Pending,
                       "ErrImagePull");
    Duration next = rt->pull_backoff == Duration{} ? config_.backoff_initial : rt->pull_backoff * 2;
    rt->pull_backoff = next > config_.backoff_max ? config_.backoff_max : next;
    rt->pull_failed_at = api_.now();
    // The failed sync's status update brings the pod worker back almost at once: `kubectl
    // describe` shows the first BackOff / ImagePullBackOff about a second after ErrImagePull;
    // later syncs come at the worker's back-off period.
    rt->timer = api_.sim().schedule(kPullFailureResync,
                                    [this, id, index, first, image] { pull_backoff_sync(id, index, first, image); });
  });
}

void Kubelet::pull_backoff_sync(PodId id, std::size_t index, bool first, const std::string& image) {
  PodRuntime* rt = pods_.find(id);
  if (!rt) return;
  const PodRecord& rec = api_.pod(id);
  if (api_.now() >= rt->pull_failed_at + rt->pull_backoff) {
    pull_step(id, index, first);
    return;
  }
  // Each pod sync inside the back-off: BackOff "Back-off pulling image" and Failed
  // "Error: ImagePullBackOff"; the waiting reason is ImagePullBackOff.
  auto ref = ApiServer::ref(rec.pod);
  api_.emit(EventType::Normal, "BackOff", ref, "Back-off pulling image \"" + image + "\"", kKubelet);
  api_.emit(EventType::Warning, "Failed", ref, "Error: ImagePullBackOff", kKubelet);
  api_.set_pod_phase(id, rec.pod.status.phase == PodPhase::Running ? PodPhase::Running : PodPhase::Pending,
                     "ImagePullBackOff");
  rt->timer = api_.sim().schedule(resync_interval(rec.node),
                                  [this, id, index, first, image] { pull_backoff_sync(id, index, first, image); });
}

void Kubelet::start_containers(PodId id) {
  PodRuntime& rt = pods_[id];
  PodRecord& rec = api_.pod(id);
  rt.running = true;
  rt.started_at = api_.now();
  if (!rec.pod.status.started_at) rec.pod.status.started_at = api_.now();
  rec.pod.status.container_started_at = api_.now();
  api_.set_pod_phase(id, PodPhase::Running, "");
  for (auto& fn : on_container_started) fn(id);
  if (!pods_.find(id)) return;  // a hook deleted the pod
  ContainerRun run = run_of(id);
  if (run.duration) {
    pods_[id].timer = api_.sim().schedule(*run.duration, [this, id] { container_exited(id); });
  }
}

ContainerRun Kubelet::run_of(PodId id) const {
  if (container_run_override)
    if (auto run = container_run_override(id)) return *run;
  return container_run(api_.pod(id).pod);
}

void Kubelet::container_exited(PodId id) {
  PodRuntime* found = pods_.find(id);
  if (!found) return;
  PodRuntime& rt = *found;
  PodRecord& rec = api_.pod(id);
  rt.running = false;
  int code = run_of(id).exit_code;
  const std::string& policy = rec.pod.spec.restart_policy;
  bool restart = policy == "Always" || (policy == "OnFailure" && code != 0);
  if (!restart) {
    rec.pod.status.finished_at = api_.now();
    if (code == 0) api_.set_pod_phase(id, PodPhase::Succeeded, "Completed");
    else api_.set_pod_phase(id, PodPhase::Failed, "Error");
    return;
  }
  rec.pod.status.last_termination = PodStatus::Termination{rt.started_at, api_.now(), code};
  if (api_.now() - rt.started_at >= config_.backoff_reset) rt.exits = 0;
  ++rt.exits;
  ++rec.pod.status.restart_count;
  const Duration delay = restart_backoff(config_, rt.exits);
  rt.backoff = delay;
  rt.exited_at = api_.now();
  api_.set_pod_phase(id, PodPhase::Running, "CrashLoopBackOff");  // phase stays Running, as kubectl shows it
  if (rt.exits == 1) {
    // Lab 001: the first restart came ~10 s after the first exit and the first BackOff event
    // only after the second exit.
    rt.timer = api_.sim().schedule(delay, [this, id] { pull_and_start(id, false); });
    return;
  }
  backoff_sync(id);
}

void Kubelet::backoff_sync(PodId id) {
  PodRuntime* found = pods_.find(id);
  if (!found) return;
  PodRuntime& rt = *found;
  PodRecord& rec = api_.pod(id);
  if (api_.now() >= rt.exited_at + rt.backoff) {
    pull_and_start(id, false);
    return;
  }
  const std::string& name = rec.pod.spec.containers.empty() ? std::string() : rec.pod.spec.containers.front().name;
  api_.emit(EventType::Warning, "BackOff", ApiServer::ref(rec.pod),
            restart_backoff_message(name, rec.pod), kKubelet);
  rt.timer = api_.sim().schedule(resync_interval(rec.node), [this, id] { backoff_sync(id); });
}

void Kubelet::delete_pod(PodId id, std::optional<std::int64_t> grace_seconds) {
  PodRecord& rec = api_.pod(id);
  if (rec.deleted || rec.terminating) return;
  api_.mark_terminating(id);
  std::int64_t grace = grace_seconds.value_or(rec.pod.spec.termination_grace_period_seconds);
  PodRuntime* found = pods_.find(id);
  if (!found || !found->begun || !found->running) {
    if (found) api_.sim().cancel(found->timer);
    api_.remove_pod(id);
    return;
  }
  PodRuntime& rt = *found;
  api_.sim().cancel(rt.timer);
  rt.stopping = true;
  for (const auto& c : rec.pod.spec.containers)
    api_.emit(EventType::Normal, "Killing", ApiServer::ref(rec.pod), "Stopping container " + c.name, kKubelet);
  Duration stop = config_.default_stop_time;
  if (rec.pod.run.stop_time) {
    stop = *rec.pod.run.stop_time;
  } else if (container_run(rec.pod).sleeps) {
    stop = Duration::seconds(grace);
  }
  if (stop > Duration::seconds(grace)) stop = Duration::seconds(grace);
  rt.timer = api_.sim().schedule(stop, [this, id] { finish_termination(id); });
}

void Kubelet::finish_termination(PodId id) {
  if (PodRuntime* rt = pods_.find(id)) rt->running = false;
  api_.remove_pod(id);
}

}  // namespace eksim::k8s
