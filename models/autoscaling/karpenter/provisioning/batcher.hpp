#pragma once
// Batcher (pkg/controllers/provisioning/batcher.go): a trigger opens a batch window; the
// provisioning pass runs after BATCH_IDLE_DURATION without new triggers, or at BATCH_MAX_DURATION.
#include <functional>
#include <optional>

#include "models/autoscaling/karpenter/settings.hpp"
#include "models/cluster/cluster.hpp"

namespace eksim::autoscaling::karpenter {

class Batcher {
 public:
  Batcher(eksim::Cluster& world, const Settings& settings) : world_(world), settings_(settings) {}
  // What runs when a window closes (the Provisioner's pass).
  void on_batch(std::function<void()> fn) { on_batch_ = std::move(fn); }
  // Provisioner.Trigger: something may need capacity (a pod arrived, a node is being deleted).
  void trigger();

 private:
  void on_timer();
  eksim::Cluster& world_;
  const Settings& settings_;
  std::function<void()> on_batch_;
  engine::EventId timer_;
  std::optional<engine::SimTime> start_;
  engine::SimTime last_trigger_;
};

}  // namespace eksim::autoscaling::karpenter
