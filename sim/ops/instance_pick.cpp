#include "sim/ops/instance_pick.hpp"

#include <algorithm>

#include "sim/engine/numbers.hpp"

namespace eksim::ops {

const aws::Instance* pick_by_launch_order(std::vector<const aws::Instance*> candidates, const std::string& which) {
  if (candidates.empty()) return nullptr;
  std::stable_sort(candidates.begin(), candidates.end(), [](const aws::Instance* x, const aws::Instance* y) {
    return x->launched_at < y->launched_at || (x->launched_at == y->launched_at && x->id < y->id);
  });
  if (which == "newest") return candidates.back();
  if (which == "oldest") return candidates.front();
  auto n = engine::parse_integer<std::size_t>(which);
  return n.ok() && n.value < candidates.size() ? candidates[n.value] : nullptr;
}

}  // namespace eksim::ops
