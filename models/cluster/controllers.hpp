#pragma once
// The controllers a cluster runs besides the Kubernetes core (kubelet, scheduler, workload
// controllers, which Cluster builds itself), as typed members: whoever needs Karpenter reaches
// cluster.controllers.karpenter, no lookup by name. The wiring is one list in controllers.cpp,
// as upstream's controllers.go: the only file of models/cluster that sees the controllers above
// it (autoscaling, net, invariants); this header only names them.
//
// A controller subscribes to the cluster's notifications and timers in its constructor, so the
// order they are installed in is the order they react to one notification in, and the event log
// follows it: assemble_controllers installs them in one fixed order.
#include <cstddef>
#include <memory>
#include <string>

namespace eksim {

class Cluster;
class DisruptionController;
class NodegroupUpdater;
namespace autoscaling {
class ClusterAutoscaler;
struct CasOptions;
namespace karpenter {
class Controller;
struct Settings;
}
}  // namespace autoscaling
namespace net {
class TrainingController;
}
namespace invariants {
class InvariantChecker;
}

struct Controllers {
  Controllers();
  Controllers(const Controllers&) = delete;
  Controllers& operator=(const Controllers&) = delete;
  ~Controllers();

  // Every EKS cluster has these, from its creation: kube-controller-manager's disruption
  // controller (PodDisruptionBudget status) and EKS's managed node group updater.
  std::unique_ptr<DisruptionController> pdb;
  std::unique_ptr<NodegroupUpdater> nodegroup_update;
  // Installed ones, each set by its install_* function below; null while not installed.
  std::unique_ptr<autoscaling::ClusterAutoscaler> cluster_autoscaler;
  std::unique_ptr<autoscaling::karpenter::Controller> karpenter;
  std::unique_ptr<net::TrainingController> training;
  // `--check-invariants`: eksim's own; declared last, so destroyed first (it reads the others).
  std::unique_ptr<invariants::InvariantChecker> invariants;
};

// Each installs one controller into cluster.controllers (a second call does nothing) and
// subscribes it to the cluster from now on.
void install_cluster_autoscaler(Cluster& cluster);
// Cluster Autoscaler as its Deployment (the autodiscover manifest) installs it: built with the
// options of the container's command, acting while its replica runs.
void install_cluster_autoscaler_deployment(Cluster& cluster, std::size_t deployment, const autoscaling::CasOptions& options);
// Karpenter, or EKS Auto Mode's when cluster.spec().mode is "auto".
void install_karpenter(Cluster& cluster);
// Karpenter as its controller Deployment (applied at `deployment` in the Deployment controller)
// installs it: built with the Deployment's settings, acting while one of its replicas leads
// (Cluster::autoscaler_replicas). With Karpenter already installed (the scenario's `autoscaler:`
// shorthand) the Deployment is only watched.
void install_karpenter_deployment(Cluster& cluster, std::size_t deployment, const autoscaling::karpenter::Settings& settings);
void install_training_controller(Cluster& cluster);
// Before Cluster::start(), so that the instances and binds of t=0 are checked too.
void install_invariant_checker(Cluster& cluster);

struct AssemblyOptions {
  bool check_invariants = false;
};
// Installs what the cluster's spec declares (its autoscaler; Auto Mode's Karpenter), the
// training controller (idle without training Jobs) and, if asked, the invariant checker, in
// that order. Called once, before Cluster::start().
void assemble_controllers(Cluster& cluster, const AssemblyOptions& options = {});

}  // namespace eksim
