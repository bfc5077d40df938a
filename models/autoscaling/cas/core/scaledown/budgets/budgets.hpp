#pragma once
// Scale-down parallelism budgets (cluster-autoscaler/core/scaledown/budgets/budgets.go
// CropNodes, for node groups without atomic scaling): what is left of --max-scale-down-parallelism
// after the deletions in progress goes to empty nodes first; the rest, capped by what is left of
// --max-drain-parallelism, to nodes that need a drain.
#include <cstddef>
#include <cstdint>

namespace eksim::autoscaling::cas {

struct ScaleDownBudget {
  std::size_t empty = 0;  // empty nodes that may start deletion now
  std::size_t drain = 0;  // nodes needing a drain that may start now
};

ScaleDownBudget crop_nodes(std::int64_t max_scale_down_parallelism, std::int64_t max_drain_parallelism,
                           std::size_t empty_in_progress, std::size_t drain_in_progress, std::size_t empty_candidates,
                           std::size_t drain_candidates);

}  // namespace eksim::autoscaling::cas
