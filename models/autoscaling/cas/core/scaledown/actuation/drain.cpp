#include "models/autoscaling/cas/core/scaledown/actuation/drain.hpp"

namespace eksim::autoscaling::cas {

std::int64_t eviction_grace_seconds(const k8s::Pod& pod, std::int64_t max_graceful_termination_sec) {
  std::int64_t t = pod.spec.termination_grace_period_seconds;
  if (max_graceful_termination_sec > 0 && t > max_graceful_termination_sec) t = max_graceful_termination_sec;
  return t;
}

}  // namespace eksim::autoscaling::cas
