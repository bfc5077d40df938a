#pragma once
// Karpenter v1 (open source, and EKS Auto Mode when cluster.spec().mode == "auto") as a
// controller in the simulated cluster.
#include <memory>

#include "models/autoscaling/karpenter/settings.hpp"
#include "models/cluster/cluster.hpp"

namespace eksim::autoscaling::karpenter {
class Controller;
}

namespace eksim::autoscaling {

// Builds the controller from cluster.spec().autoscaler.flags and subscribes it to the cluster;
// install_karpenter (models/cluster/controllers.hpp) calls it. Auto Mode installs Karpenter even
// without an `autoscaler:` entry (it is part of the managed control plane).
std::unique_ptr<karpenter::Controller> make_karpenter(Cluster& cluster);
// With the settings its controller Deployment carries (decoded from the container's env).
std::unique_ptr<karpenter::Controller> make_karpenter(Cluster& cluster, karpenter::Settings settings);

}  // namespace eksim::autoscaling
