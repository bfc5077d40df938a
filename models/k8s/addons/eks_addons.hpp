#pragma once
// The kube-system workloads an EKS cluster runs besides the user's: the default add-ons EKS
// installs in standard mode (VPC CNI `aws-node`, `kube-proxy`, CoreDNS), the ones a scenario
// declares (eks-pod-identity-agent, metrics-server), and the autoscalers' own controllers
// (Cluster Autoscaler, Karpenter), as the objects their manifests and charts create: names,
// labels, images, requests, priority classes, tolerations and affinity. Only the fields the
// scheduler and kubelet read are kept; each value names its source.
//
// EKS Auto Mode runs none of these as pods (the CNI, kube-proxy, CoreDNS and Karpenter run on
// the node or in AWS's account), so the cluster installs them in standard mode only.
#include <cstdint>
#include <string>

#include "models/k8s/api/services.hpp"
#include "models/k8s/api/workloads.hpp"

namespace eksim::k8s {

// Add-on versions EKS lists as the latest for a Kubernetes minor (EKS user guide, "Manage
// kube-proxy" and "Manage CoreDNS", the version tables), and the VPC CNI release the project's
// manifest pins (amazon-vpc-cni-k8s config/master/aws-k8s-cni.yaml, v1.23.1).
struct EksAddonVersions {
  std::string vpc_cni;     // v1.23.1
  std::string kube_proxy;  // v1.35.3-eksbuild.2
  std::string coredns;     // v1.13.2-eksbuild.4
};
EksAddonVersions eks_addon_versions(int kubernetes_minor);

// The ECR registry EKS pulls its add-on images from in a region (602401143452 for the
// commercial regions, as the manifests' image fields show).
std::string eks_addon_registry(const std::string& region);

DaemonSet aws_node_daemonset(const std::string& region, const EksAddonVersions& v);
DaemonSet kube_proxy_daemonset(const std::string& region, const EksAddonVersions& v);
Deployment coredns_deployment(const std::string& region, const EksAddonVersions& v);
DaemonSet pod_identity_agent_daemonset(const std::string& region);
Deployment metrics_server_deployment();

// The autoscalers' controllers as their standard installs create them.
Deployment cluster_autoscaler_deployment(int kubernetes_minor);
// version: the chart/controller version the scenario names (its `version` flag).
Deployment karpenter_deployment(const std::string& version = "1.14.1");

// Whether any pod of a Deployment is Running (the controller inside it can act).
class ApiServer;
class DeploymentController;
bool any_replica_running(const ApiServer& api, const DeploymentController& deployments, std::size_t index);

// The Services that come with them. Addresses are the ServiceRegistry's: cluster_ip is set only
// where the installer picks one (kube-dns at the CIDR's .10).
// default/kubernetes: the API server's own, at the CIDR's first address.
Service kubernetes_service(const std::string& cluster_ip);
// kube-system/kube-dns of the CoreDNS add-on, at the CIDR's .10 (kubelet's clusterDNS).
Service kube_dns_service(const std::string& cluster_ip);
// kube-system/eks-extension-metrics-api, which EKS creates with every cluster (listed with no
// selector, 443/TCP).
Service eks_extension_metrics_api_service();
Service metrics_server_service();
// The Karpenter chart's Service (templates/service.yaml): its metrics port, 8080.
Service karpenter_service(const std::string& version, const std::string& ns);

}  // namespace eksim::k8s
