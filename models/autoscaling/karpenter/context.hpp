#pragma once
// What every Karpenter controller is given (upstream: the operator's clients and the shared
// cluster state): the simulated world, the settings, the cluster state, the cloud provider, the
// event recorder, the controller log and the provisioner's batcher (Provisioner.Trigger).
#include "models/autoscaling/karpenter/cloudprovider.hpp"
#include "models/autoscaling/karpenter/controller_log.hpp"
#include "models/autoscaling/karpenter/events.hpp"
#include "models/autoscaling/karpenter/provisioning/batcher.hpp"
#include "models/autoscaling/karpenter/settings.hpp"
#include "models/autoscaling/karpenter/state/cluster.hpp"

namespace eksim::autoscaling::karpenter {

struct Context {
  eksim::Cluster& world;
  const Settings& settings;
  state::Cluster& state;
  CloudProvider& cloud;
  Recorder& recorder;
  Logger& log;
  Batcher& batcher;
};

}  // namespace eksim::autoscaling::karpenter
