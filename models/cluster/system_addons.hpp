#pragma once
// What EKS and the operator's standard installs put in kube-system before any workload: the
// default add-ons (models/k8s/addons/eks_addons.hpp) and the autoscaler's controller Deployment. In
// EKS Auto Mode none of them runs as a pod.
#include <string>

namespace eksim {

class Cluster;

// ConfigMaps the cluster has from its creation: CoreDNS's Corefile (with the add-on), and
// kube-system/aws-auth when the scenario declares its mapRoles.
void install_system_config_maps(Cluster& c);
// Services the cluster has from its creation: default/kubernetes, eks-extension-metrics-api, and
// kube-dns with the CoreDNS add-on.
void install_system_services(Cluster& c);
// DaemonSets first (before the nodes exist, as on a cluster that had them since creation).
void install_system_daemonsets(Cluster& c);
// Deployments once the starting nodes are there: CoreDNS, metrics-server, and the Cluster
// Autoscaler or Karpenter controller (watched as Cluster::autoscaler_replicas).
void install_system_deployments(Cluster& c);

// `aws eks create-addon` / `delete-addon` in a running cluster: the add-on's objects (its
// DaemonSet or Deployment, with CoreDNS's PDB and Service, metrics-server's Service) applied or
// deleted now. false when it is already there (create) or not there (delete).
bool create_eks_addon(Cluster& c, const std::string& name);
bool delete_eks_addon(Cluster& c, const std::string& name);

}  // namespace eksim
