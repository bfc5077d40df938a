#pragma once
// The simulated world: one engine, the Kubernetes state and controllers, the AWS services, and
// the glue between them that the real system does through cloud APIs (an EC2 instance of a node
// group becoming a Node, a terminated instance's Node going away).
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "models/aws/billing.hpp"
#include "models/aws/eks.hpp"
#include "models/aws/security_groups.hpp"
#include "models/aws/spot_interruptions.hpp"
#include "models/cluster/cluster_spec.hpp"
#include "models/cluster/controller_replicas.hpp"
#include "models/cluster/controllers.hpp"
#include "models/cluster/pod_networking.hpp"
#include "models/cluster/spot_handling.hpp"
#include "models/k8s/kubelet/allocatable.hpp"
#include "models/k8s/api/api_server.hpp"
#include "models/k8s/addons/addons.hpp"
#include "models/k8s/controllers/daemonset_controller.hpp"
#include "models/k8s/controllers/deployment_controller.hpp"
#include "models/k8s/controllers/job_controller.hpp"
#include "models/k8s/kubelet/kubelet.hpp"
#include "models/k8s/scheduling/scheduler_controller.hpp"
#include "models/k8s/kubelet/node_lifecycle.hpp"
#include "models/k8s/controllers/pod_gc_controller.hpp"
#include "models/k8s/events/event_log.hpp"
#include "sim/engine/rng.hpp"
#include "sim/engine/simulator.hpp"

namespace eksim {

// A scenario's security group as EC2 holds it (a group given no egress rules keeps EC2's
// allow-all egress).
aws::SgRule sg_rule_from_spec(const SecurityGroupRuleSpec& rule);
aws::SecurityGroup security_group_from_spec(const SecurityGroupSpec& group);

class Cluster {
 public:
  Cluster(ClusterSpec spec, std::uint64_t seed);
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;
  ~Cluster();

  // Brings the cluster up as terraform left it: node groups with their desired instances
  // running and their nodes joining at t=0, add-ons installed.
  void start();

  const ClusterSpec& spec() const { return spec_; }
  const aws::InstanceCatalog& catalog() const { return catalog_; }
  // Prices in the cluster's region (catalog, price file, discount).
  const aws::PriceBook& prices() const { return prices_; }
  // eksim's own remark, now (k8s::Hint): the HINTS section, never an event.
  void hint(std::string kind, k8s::ObjectRef object, std::string message) {
    log.record_hint(k8s::Hint{sim.now(), std::move(kind), std::move(object), std::move(message)});
  }

  engine::Simulator sim;
  engine::RngStreams rng;
  k8s::EventLog log;
  // AWS's own records, in order: Auto Scaling's scaling activities, EKS updates, EC2 API errors.
  std::vector<aws::Activity> activities;
  k8s::ApiServer api;
  aws::Ec2 ec2;
  aws::AutoScaling auto_scaling;
  aws::Eks eks;
  aws::SecurityGroups security_groups;
  // Spot interruptions (per-pool rates and explicit ones); EKS managed node groups react through
  // eks_spot, Karpenter subscribes itself.
  aws::SpotInterruptions spot;
  std::unique_ptr<EksSpotHandling> eks_spot;
  // Kubernetes controllers, built in dependency order (the kubelet first: the others evict and
  // delete through it).
  std::unique_ptr<k8s::Kubelet> kubelet;
  std::unique_ptr<k8s::SchedulerController> scheduler;
  std::unique_ptr<k8s::DaemonSetController> daemon_sets;
  std::unique_ptr<k8s::DeploymentController> deployments;
  std::unique_ptr<k8s::JobController> jobs;
  std::unique_ptr<k8s::AddonController> addons;
  std::unique_ptr<k8s::PodGcController> pod_gc;
  // aws-node: the VPC CNI's pod addresses (the kubelet asks it for each pod sandbox).
  std::unique_ptr<PodNetworking> pod_networking;
  // The other controllers, typed (controllers.hpp: built by assemble_controllers and install_*).
  Controllers controllers;
  // The Deployment the autoscaler's controller runs in (Cluster Autoscaler, or Karpenter in
  // standard mode; Auto Mode's runs in AWS's account) and which of its replicas leads: while none
  // leads the autoscaler neither provisions nor removes nodes.
  std::unique_ptr<ControllerReplicas> autoscaler_replicas;
  bool autoscaler_running() const;
  // Watches the Deployment the autoscaler runs in from now on (a second call does nothing).
  void watch_autoscaler_deployment(std::size_t deployment, LeaderElectionConfig election);

  // helm install of a chart add-on (at start for `cluster.addons`, later for a terraform.apply
  // that creates its helm_release): false when that release is already installed.
  bool install_helm_addon(const AddonSpec& addon);

  // Whether a node IAM role may join (aws-auth mapRoles / access entries; CONTRACT.md).
  bool role_mapped(const std::string& role) const;
  // Node -> cluster endpoint, TCP 443, through the security groups (see
  // ClusterSpec::cluster_security_group).
  bool api_server_reachable(const aws::Instance& inst) const;
  // Unix seconds of simulated time 0 (spec.start_time), for AWS timestamps.
  std::int64_t start_epoch_seconds() const { return start_epoch_; }
  // What the kubelet on an instance will register as (labels, taints, allocatable).
  // A Karpenter NodeClass's kubelet settings and root volume, for its nodes.
  struct NodeClassSettings {
    k8s::KubeletOptions kubelet;
    std::int64_t root_volume_gib = 20;
  };
  k8s::MachineSpec machine_for(const aws::Instance& inst, const aws::ManagedNodegroup* ng,
                               const NodeClassSettings* node_class = nullptr) const;
  // Starts the Kubernetes side of an instance that is running (called for node group instances
  // by the cluster itself, and by Karpenter for its NodeClaims).
  void join_instance(const aws::Instance& inst, k8s::MachineSpec machine);
  // The node backed by an instance, if registered.
  std::optional<k8s::NodeId> node_of_instance(const std::string& instance_id) const;

  // Cost of every instance up to now (per-second billing, 60 s minimum), by owner.
  aws::BillingLedger billing() const;
  // Extra cost reported by models that move bytes across AZs.
  double cross_az_transfer_usd = 0;

 private:
  // NVIDIA validated each GPU Operator release on a range of EKS Kubernetes versions: outside it
  // eksim says so in HINTS (the chart itself installs anywhere, its kubeVersion is >= 1.16).
  void gpu_operator_version_hint(const AddonSpec& addon);
  void on_instance_running(aws::Instance& inst);
  void on_instance_terminated(aws::Instance& inst);
  void on_labels_or_taints_changed(aws::ManagedNodegroup& ng);

  ClusterSpec spec_;
  bool starting_ = false;  // inside start(): instances and nodes that exist before t=0
  std::int64_t start_epoch_;
  const aws::InstanceCatalog& catalog_;
  aws::PriceBook prices_;
  std::map<std::string, k8s::NodeJoinHandle> joins_;  // instance id -> pending join
  std::map<std::string, std::string> node_by_instance_;  // instance id -> node name
  std::set<std::string> helm_addons_;                   // add-on names installed
};

}  // namespace eksim
