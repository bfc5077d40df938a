#include "models/autoscaling/karpenter.hpp"

#include "models/autoscaling/karpenter/controller.hpp"

namespace eksim::autoscaling {

std::unique_ptr<Controller> make_karpenter(Cluster& cluster) {
  const bool auto_mode = cluster.spec().mode == "auto";
  return std::make_unique<karpenter::Controller>(cluster, karpenter::settings_from_flags(cluster.spec().autoscaler.flags, auto_mode));
}

}  // namespace eksim::autoscaling
