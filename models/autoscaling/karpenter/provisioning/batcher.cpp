// Batcher (pkg/controllers/provisioning/batcher.go).
#include "models/autoscaling/karpenter/provisioning/batcher.hpp"

#include <algorithm>

namespace eksim::autoscaling::karpenter {

void Batcher::trigger() {
  const engine::SimTime now = world_.sim.now();
  last_trigger_ = now;
  if (!start_) {
    start_ = now;
    timer_ = world_.sim.schedule(settings_.batch_idle, [this] { on_timer(); });
  }
}

void Batcher::on_timer() {
  // The batcher closes the window after batch_idle without new pods, or at batch_max.
  const engine::SimTime now = world_.sim.now();
  engine::SimTime idle_end = last_trigger_ + settings_.batch_idle, max_end = *start_ + settings_.batch_max;
  if (now < idle_end && now < max_end) {
    timer_ = world_.sim.schedule_at(std::min(idle_end, max_end), [this] { on_timer(); });
    return;
  }
  start_.reset();
  on_batch_();
}

}  // namespace eksim::autoscaling::karpenter
