#include "models/autoscaling/cas/core/scaledown/budgets/budgets.hpp"

#include <algorithm>

namespace eksim::autoscaling::cas {

ScaleDownBudget crop_nodes(std::int64_t max_scale_down_parallelism, std::int64_t max_drain_parallelism,
                           std::size_t empty_in_progress, std::size_t drain_in_progress, std::size_t empty_candidates,
                           std::size_t drain_candidates) {
  auto left = [](std::int64_t v) { return static_cast<std::size_t>(std::max<std::int64_t>(0, v)); };
  std::size_t parallelism = left(max_scale_down_parallelism - static_cast<std::int64_t>(empty_in_progress) -
                                 static_cast<std::int64_t>(drain_in_progress));
  std::size_t drain_budget = left(max_drain_parallelism - static_cast<std::int64_t>(drain_in_progress));
  ScaleDownBudget b;
  b.empty = std::min(empty_candidates, parallelism);
  parallelism -= b.empty;
  b.drain = std::min({drain_candidates, parallelism, drain_budget});
  return b;
}

}  // namespace eksim::autoscaling::cas
