#pragma once
// How many nodes one scale-up of a node group may add (cluster-autoscaler/core/scaleup/resource
// and the estimator's limiter, estimator/threshold_based_limiter.go): the group's headroom to its
// max size, what --max-nodes-total leaves (0: no limit), and --max-nodes-per-scaleup.
#include <cstdint>

namespace eksim::autoscaling::cas {

std::int64_t scale_up_headroom(std::int64_t group_max, std::int64_t group_target, std::int64_t total_nodes,
                               std::int64_t max_nodes_total, std::int64_t max_nodes_per_scale_up);

}  // namespace eksim::autoscaling::cas
