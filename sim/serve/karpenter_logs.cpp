// Karpenter's controller pods as `kubectl logs -n karpenter -l app.kubernetes.io/name=karpenter`
// shows them: zap JSON, level/time/logger/message/commit first. Both replicas print the metrics
// and health-probe servers' start and the leader-election attempt; only the replica that took
// the lease (the first to start) goes on to log what the controllers do.
#include "models/autoscaling/karpenter/controller.hpp"
#include "sim/serve/container_logs.hpp"
#include "sim/serve/time_base.hpp"

namespace eksim::serve {

namespace kp = autoscaling::karpenter;

namespace {

// zapcore.ISO8601TimeEncoder: milliseconds, UTC.
std::string iso8601_ms(std::int64_t unix_us) {
  std::string micro = rfc3339(unix_us, true);  // ...T01:19:38.183456Z
  return micro.substr(0, micro.size() - 4) + "Z";
}

std::string line(std::int64_t unix_us, bool error, const char* logger, const std::string& message,
                 const std::string& commit, const std::string& fields = "") {
  std::string out = std::string("{\"level\":\"") + (error ? "ERROR" : "INFO") + "\",\"time\":\"" + iso8601_ms(unix_us) +
                    "\",\"logger\":\"" + logger + "\",\"message\":" + kp::json_string(message) +
                    ",\"commit\":" + kp::json_string(commit);
  if (!fields.empty()) out += "," + fields;
  return out + "}\n";
}

bool is_karpenter_controller(const k8s::PodRecord& pod, const k8s::Container& container) {
  auto it = pod.pod.meta.labels.find("app.kubernetes.io/name");
  return it != pod.pod.meta.labels.end() && it->second == "karpenter" && container.name == "controller";
}

// The replica holding karpenter-leader-election: the first of the Deployment's pods to start
// (by name on a tie), still running.
bool is_leader(const Cluster& c, const k8s::PodRecord& pod) {
  const engine::SimTime mine = *pod.pod.status.started_at;
  for (const auto& [key, id] : c.api.live_pods()) {
    const k8s::PodRecord& other = c.api.pod(id);
    if (&other == &pod || other.deleted || other.pod.meta.ns != pod.pod.meta.ns || !other.pod.status.started_at ||
        other.pod.status.phase != k8s::PodPhase::Running)
      continue;
    auto it = other.pod.meta.labels.find("app.kubernetes.io/name");
    if (it == other.pod.meta.labels.end() || it->second != "karpenter") continue;
    const engine::SimTime theirs = *other.pod.status.started_at;
    if (theirs < mine || (theirs == mine && other.pod.meta.name < pod.pod.meta.name)) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> karpenter_controller_log(const Cluster& c, const k8s::PodRecord& pod,
                                                    const k8s::Container& container, std::int64_t unix_us_of_sim0) {
  if (!is_karpenter_controller(pod, container)) return std::nullopt;
  const kp::Controller* k = c.controllers.karpenter.get();
  if (!k || !pod.pod.status.started_at) return std::string();
  // The release the pod runs: its image's tag (public.ecr.aws/karpenter/controller:1.8.3).
  const std::string& image = container.image;
  const std::string commit = kp::karpenter_commit(image.substr(image.rfind(':') + 1));
  const engine::SimTime started = *pod.pod.status.started_at;
  const std::int64_t t0 = unix_us_of_sim0 + started.us;
  const std::string lease = pod.pod.meta.ns + "/karpenter-leader-election";
  // controller-runtime's metrics server and health probe, then client-go's leader election; the
  // offsets are those of a v1.8.2 start-up paste.
  std::string out = line(t0, false, "controller.controller-runtime.metrics", "Starting metrics server", commit) +
                    line(t0, false, "controller.controller-runtime.metrics", "Serving metrics server", commit,
                         "\"bindAddress\":\":8080\",\"secure\":false") +
                    line(t0, false, "controller", "starting server", commit, "\"name\":\"health probe\",\"addr\":\"[::]:8081\"") +
                    line(t0 + 102000, false, "controller", "attempting to acquire leader lease " + lease + "...", commit);
  if (pod.pod.status.phase != k8s::PodPhase::Running || !is_leader(c, pod)) return out;
  out += line(t0 + 110000, false, "controller", "successfully acquired lease " + lease, commit);
  for (const kp::LogLine& l : k->controller_log().lines())
    if (l.at >= started) out += line(unix_us_of_sim0 + l.at.us, l.error, "controller", l.message, commit, l.fields);
  return out;
}

}  // namespace eksim::serve
