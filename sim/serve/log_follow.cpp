#include "sim/serve/log_follow.hpp"

#include <algorithm>

#include "sim/serve/container_logs.hpp"

namespace eksim::serve {

std::string stamp_lines(const std::string& text, const std::string& stamp) {
  if (stamp.empty()) return text;
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
    out += stamp;
    out.append(text, pos, end - pos);
    pos = end;
  }
  return out;
}

FollowStep follow_step(Session& session, LogFollow& f) {
  FollowStep step;
  Cluster& c = session.cluster();
  auto id = c.api.find_pod(f.ns, f.pod);
  if (!id || *id != f.id) {
    step.done = true;
    return step;
  }
  const k8s::PodRecord& rec = c.api.pod(*id);
  if (rec.deleted || rec.pod.meta.uid != f.uid) {
    step.done = true;
    return step;
  }
  const auto& containers = rec.pod.spec.containers;
  auto it = std::find_if(containers.begin(), containers.end(), [&](const k8s::Container& ct) { return ct.name == f.container; });
  bool exited = rec.pod.status.restart_count != f.restarts || rec.pod.status.finished_at.has_value() ||
                rec.pod.status.phase == k8s::PodPhase::Succeeded || rec.pod.status.phase == k8s::PodPhase::Failed;
  // What the container printed so far, in the same instance: a restarted container's output is
  // the next instance's log, not this stream's.
  if (it != containers.end() && rec.pod.status.restart_count == f.restarts) {
    std::string text = container_log(c, rec, *it, session.wall_sim0_unix_us());
    if (text.size() > f.sent) {
      step.data = stamp_lines(text.substr(f.sent), f.stamp);
      f.sent = text.size();
    }
  }
  step.done = exited || it == containers.end();
  return step;
}

}  // namespace eksim::serve
