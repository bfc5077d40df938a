// The wiring list: which controller is built from what, in which order (see controllers.hpp).
#include "models/cluster/controllers.hpp"

#include "models/autoscaling/cluster_autoscaler.hpp"
#include "models/autoscaling/karpenter.hpp"
#include "models/autoscaling/karpenter/controller.hpp"
#include "models/cluster/cluster.hpp"
#include "models/cluster/disruption_controller.hpp"
#include "models/cluster/nodegroup_update.hpp"
#include "models/invariants/invariant_checker.hpp"
#include "models/net/training_controller.hpp"

namespace eksim {

Controllers::Controllers() = default;
Controllers::~Controllers() = default;

namespace {

void wire_cluster_autoscaler(Cluster& c) {
  // CA lists the pods the scheduler has marked unschedulable (PodScheduled=False), not every
  // pending pod.
  c.controllers.cluster_autoscaler->set_unschedulable_source([&c] { return c.scheduler->unschedulable_pods(); },
                                                             [&c] { return c.scheduler->unschedulable_version(); });
}

}  // namespace

void install_cluster_autoscaler(Cluster& c) {
  if (c.controllers.cluster_autoscaler) return;
  c.controllers.cluster_autoscaler = autoscaling::make_cluster_autoscaler(c);
  wire_cluster_autoscaler(c);
}

void install_cluster_autoscaler_deployment(Cluster& c, std::size_t deployment, const autoscaling::CasOptions& options) {
  // Its one replica acts while it runs (its leader election is not modelled).
  c.watch_autoscaler_deployment(deployment, LeaderElectionConfig{.enabled = false});
  if (c.controllers.cluster_autoscaler) return;
  c.controllers.cluster_autoscaler = autoscaling::make_cluster_autoscaler(c, options);
  wire_cluster_autoscaler(c);
}

void install_karpenter(Cluster& c) {
  if (!c.controllers.karpenter) c.controllers.karpenter = autoscaling::make_karpenter(c);
}

void install_karpenter_deployment(Cluster& c, std::size_t deployment, const autoscaling::karpenter::Settings& settings) {
  LeaderElectionConfig election;
  election.enabled = settings.leader_elect;
  c.watch_autoscaler_deployment(deployment, election);
  if (!c.controllers.karpenter) c.controllers.karpenter = autoscaling::make_karpenter(c, settings);
}

void install_training_controller(Cluster& c) {
  if (!c.controllers.training) c.controllers.training = net::make_training_controller(c);
}

void install_invariant_checker(Cluster& c) {
  if (!c.controllers.invariants) c.controllers.invariants = std::make_unique<invariants::InvariantChecker>(c);
}

void assemble_controllers(Cluster& c, const AssemblyOptions& options) {
  const std::string& kind = c.spec().autoscaler.kind;
  if (kind == "clusterAutoscaler") install_cluster_autoscaler(c);
  else if (kind == "karpenter" || c.spec().mode == "auto") install_karpenter(c);
  install_training_controller(c);
  if (options.check_invariants) install_invariant_checker(c);
}

}  // namespace eksim
