#include "models/autoscaling/cas/core/scaledown/unneeded/nodes.hpp"

namespace eksim::autoscaling::cas {

engine::SimTime UnneededNodes::mark(const std::string& node, engine::SimTime now) {
  auto since = since_.try_emplace(node, Since{now, 0}).first;
  since->second.pass = pass_;
  return since->second.since;
}

void UnneededNodes::end_pass() {
  std::erase_if(since_, [&](const auto& kv) { return kv.second.pass != pass_; });
}

bool UnneededNodes::removable(bool ready, engine::SimTime since, engine::SimTime now, const CasOptions& o) {
  if (!ready && !o.scale_down_unready_enabled) return false;
  engine::Duration needed = ready ? o.scale_down_unneeded_time : o.scale_down_unready_time;
  return now - since >= needed;
}

}  // namespace eksim::autoscaling::cas
