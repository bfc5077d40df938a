#include "sim/scenario/instance_pick.hpp"

#include <algorithm>

namespace eksim::scenario {

const aws::Instance* pick_by_launch_order(std::vector<const aws::Instance*> candidates, const std::string& which) {
  if (candidates.empty()) return nullptr;
  std::stable_sort(candidates.begin(), candidates.end(), [](const aws::Instance* x, const aws::Instance* y) {
    return x->launched_at < y->launched_at || (x->launched_at == y->launched_at && x->id < y->id);
  });
  if (which == "newest") return candidates.back();
  if (which == "oldest") return candidates.front();
  std::size_t n = std::stoull(which);
  return n < candidates.size() ? candidates[n] : nullptr;
}

}  // namespace eksim::scenario
