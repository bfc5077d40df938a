#include "models/autoscaling/karpenter.hpp"

#include "models/autoscaling/karpenter/controller.hpp"

namespace eksim::autoscaling {

std::unique_ptr<karpenter::Controller> make_karpenter(Cluster& cluster) {
  const bool auto_mode = cluster.spec().mode == "auto";
  return make_karpenter(cluster, karpenter::settings_from_flags(cluster.spec().autoscaler.flags, auto_mode));
}

std::unique_ptr<karpenter::Controller> make_karpenter(Cluster& cluster, karpenter::Settings settings) {
  const bool auto_mode = settings.auto_mode;
  auto controller = std::make_unique<karpenter::Controller>(cluster, std::move(settings));
  // Karpenter's interruption controller reads the EC2 events from its SQS queue (EventBridge
  // rules for the warning and the rebalance recommendation); without a queue it is off.
  karpenter::Controller* k = controller.get();
  if (!auto_mode && k->settings().interruption_queue.empty()) return controller;
  cluster.spot.listeners.push_back([k](const aws::SpotSignal& s) {
    if (s.kind == aws::SpotSignalKind::InterruptionWarning) k->spot_interruption(s.instance_id);
    else if (s.kind == aws::SpotSignalKind::RebalanceRecommendation) k->rebalance_recommendation(s.instance_id);
  });
  return controller;
}

}  // namespace eksim::autoscaling
