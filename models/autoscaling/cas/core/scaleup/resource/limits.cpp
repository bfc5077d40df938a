#include "models/autoscaling/cas/core/scaleup/resource/limits.hpp"

#include <algorithm>

namespace eksim::autoscaling::cas {

std::int64_t scale_up_headroom(std::int64_t group_max, std::int64_t group_target, std::int64_t total_nodes,
                               std::int64_t max_nodes_total, std::int64_t max_nodes_per_scale_up) {
  std::int64_t headroom = group_max - group_target;
  if (max_nodes_total > 0) headroom = std::min(headroom, max_nodes_total - total_nodes);
  // A non-positive --max-nodes-per-scaleup disables the estimator's node limit.
  if (max_nodes_per_scale_up > 0) headroom = std::min(headroom, max_nodes_per_scale_up);
  return headroom;
}

}  // namespace eksim::autoscaling::cas
