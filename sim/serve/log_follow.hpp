#pragma once
// `kubectl logs -f`: the kubelet streams a container's log as it grows and ends the stream when
// that container exits (or the pod goes away). Here the log grows with simulated time, so the
// server asks follow_step after every advance what is new and whether the container is done;
// with the clock paused nothing changes and the stream stays open, as on a cluster.
#include <cstdint>
#include <string>

#include "models/k8s/api/api_server.hpp"
#include "sim/serve/session.hpp"

namespace eksim::serve {

struct LogFollow {
  std::string ns, pod, container;
  k8s::PodId id;            // the pod followed: one recreated under the same name is another pod
  std::string uid;
  std::int32_t restarts = 0;  // the container instance followed: a restart means it exited
  std::size_t sent = 0;       // bytes of its log already sent
  std::string stamp;          // "--timestamps": the prefix of each line
};

struct FollowStep {
  std::string data;   // log bytes written since the last step
  bool done = false;  // the container exited or the pod is gone: end the stream
};

FollowStep follow_step(Session& session, LogFollow& follow);

// Prefixes every line of text (each ends in '\n' but perhaps the last) with stamp.
std::string stamp_lines(const std::string& text, const std::string& stamp);

}  // namespace eksim::serve
