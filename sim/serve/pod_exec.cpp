#include "sim/serve/pod_exec.hpp"

#include <algorithm>
#include <chrono>

#include "models/cluster/kubelet_access.hpp"
#include "sim/serve/container_logs.hpp"

namespace eksim::serve {

std::vector<std::string> exec_command(const std::string& target) {
  std::vector<std::string> out;
  auto q = target.find('?');
  if (q == std::string::npos) return out;
  std::string rest = target.substr(q + 1);
  std::size_t pos = 0;
  while (pos <= rest.size()) {
    auto amp = rest.find('&', pos);
    std::string kv = rest.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
    if (kv.rfind("command=", 0) == 0) out.push_back(url_decode(kv.substr(8)));
    if (amp == std::string::npos) break;
    pos = amp + 1;
  }
  return out;
}

ExecResult exec_in_pod(Session& session, const ApiPath& p, const std::vector<std::string>& command,
                       const std::string& container) {
  ExecResult r;
  Cluster& c = session.cluster();
  auto id = c.api.find_pod(p.ns, p.name);
  if (!id) {
    r.refused = not_found(p);
    return r;
  }
  const k8s::PodRecord& rec = c.api.pod(*id);
  const auto& containers = rec.pod.spec.containers;
  std::string name = container.empty() && !containers.empty() ? containers[0].name : container;
  if (std::none_of(containers.begin(), containers.end(), [&](const k8s::Container& ct) { return ct.name == name; })) {
    r.refused = status_error(400, "BadRequest", "container " + name + " is not valid for pod " + p.name);
    return r;
  }
  if (rec.pod.status.phase == k8s::PodPhase::Succeeded || rec.pod.status.phase == k8s::PodPhase::Failed) {
    r.refused = status_error(400, "BadRequest", "cannot exec into a container in a completed pod; current phase is " +
                                                    std::string(k8s::to_string(rec.pod.status.phase)));
    return r;
  }
  if (rec.pod.status.phase != k8s::PodPhase::Running || rec.pod.status.reason == "CrashLoopBackOff") {
    std::string why = rec.pod.status.reason.empty() ? "ContainerCreating" : rec.pod.status.reason;
    r.refused = status_error(400, "BadRequest", "container \"" + name + "\" in pod \"" + p.name + "\" is " +
                                                    (why == "CrashLoopBackOff" ? "not running" : "waiting to start: " + why));
    return r;
  }
  // The API server upgrades the connection through to the kubelet's exec endpoint; a dropped
  // dial is "error dialing backend" (a Status without a reason).
  if (auto dial = kubelet_dial_error(c, c.api.node(rec.node))) {
    nlohmann::json body = {{"kind", "Status"},          {"apiVersion", "v1"},
                           {"metadata", nlohmann::json::object()}, {"status", "Failure"},
                           {"message", "error dialing backend: " + *dial}, {"code", 500}};
    r.refused = json_response(body, 500);
    return r;
  }
  std::string line;
  for (const auto& a : command) line += (line.empty() ? "" : " ") + a;
  if (!command.empty() && (command[0] == "nvidia-smi" || command[0].ends_with("/nvidia-smi"))) {
    auto now = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch());
    r.out = nvidia_smi_on_node(c, c.api.node(rec.node), now.count());
    return r;
  }
  if (!command.empty() && command[0] == "hostname") {
    r.out = p.name + "\n";
    return r;
  }
  r.err = "eksim: \"" + line + "\" is not modelled: a simulated container runs no processes (exec answers nvidia-smi and hostname)\n";
  r.exit_code = 127;
  return r;
}

}  // namespace eksim::serve
