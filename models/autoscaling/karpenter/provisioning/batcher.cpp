// Batcher (pkg/controllers/provisioning/batcher.go): a provisioning pass runs after
// BATCH_IDLE_DURATION without new pods, or at BATCH_MAX_DURATION.
#include "models/autoscaling/karpenter/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

void Controller::trigger() {
  const SimTime now = c_.sim.now();
  last_trigger_ = now;
  if (!batch_start_) {
    batch_start_ = now;
    batch_timer_ = c_.sim.schedule(settings_.batch_idle, [this] { on_batch_timer(); });
  }
}

void Controller::on_batch_timer() {
  // The batcher closes the window after batch_idle without new pods, or at batch_max.
  const SimTime now = c_.sim.now();
  SimTime idle_end = last_trigger_ + settings_.batch_idle, max_end = *batch_start_ + settings_.batch_max;
  if (now < idle_end && now < max_end) {
    batch_timer_ = c_.sim.schedule_at(std::min(idle_end, max_end), [this] { on_batch_timer(); });
    return;
  }
  batch_start_.reset();
  provision();
}

}  // namespace eksim::autoscaling::karpenter
