#pragma once
// What a simulated cluster is made of, as plain data: the scenario loader fills it, the Cluster
// builds its controllers from it. Field names follow the real configuration surfaces (the
// terraform-aws-modules/eks node group keys, Helm values, autoscaler flags).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/aws/asg_rules.hpp"
#include "models/aws/nodegroup_spec.hpp"
#include "models/aws/pricing.hpp"
#include "models/aws/vpc_cni.hpp"
#include "models/k8s/api/objects.hpp"
#include "sim/engine/time.hpp"

namespace eksim {

namespace autoscaling {
struct CasOptions;
}

using aws::NodeGroupSpec;
using aws::NodegroupTaint;

struct SubnetSpec {
  std::string id;
  std::string az;
  std::string cidr;
  std::int64_t used_addresses = 0;  // `usedAddresses`: taken by things outside the simulation
  std::map<std::string, std::string> tags{};  // `tags`: what Karpenter's subnetSelectorTerms match
};

// `cluster.vpc.endpoints[]`: a VPC endpoint (AWS PrivateLink) the nodes may reach AWS services
// through instead of the internet. Image pulls from ECR need three: the ecr.api and ecr.dkr
// interface endpoints (ENIs in the subnets, guarded by their security groups) and the s3 gateway
// endpoint (layers; a route, no security group).
struct VpcEndpointSpec {
  std::string service;                      // ecr.api | ecr.dkr | s3
  std::vector<std::string> security_groups;  // interface endpoints only
};

struct SecurityGroupRuleSpec {
  std::string protocol = "tcp";  // tcp | udp | icmp | -1
  int from_port = 0;
  int to_port = 0;
  std::string source_group;  // exactly one of source_group / cidr
  std::string cidr;
  std::string description;
};

struct SecurityGroupSpec {
  std::string name;
  std::vector<SecurityGroupRuleSpec> ingress;
  std::vector<SecurityGroupRuleSpec> egress;
  bool egress_given = false;  // without egress rules a new group allows all egress (AWS default)
  std::map<std::string, std::string> tags{};  // what Karpenter's securityGroupSelectorTerms match
};

struct QuotaSpec {
  std::map<std::string, std::int64_t> on_demand;  // bucket -> vCPUs; absent = unlimited
  std::map<std::string, std::int64_t> spot;
};

struct CapacityPoolSpec {
  std::string instance_type;
  std::string az;
  bool spot = false;
  std::optional<std::int64_t> instances;  // absent = unlimited
  // Spot pools: interruptions per instance-hour (0 = none) and how long before the interruption
  // warning the rebalance recommendation comes (models/aws/spot_interruptions.hpp).
  double interruptions_per_hour = 0;
  engine::Duration rebalance_lead{};
};

struct AddonSpec {
  std::string name;  // nvidiaDevicePlugin, nodeFeatureDiscovery, gpuOperator
  std::string version;
  std::string release_name;  // empty = the add-on's default (nvdp, nfd, gpu-operator)
  std::string ns;            // empty = the add-on's default namespace
  // Helm values flattened to dotted paths: {"gfd.enabled": "true", "tolerations[0].key": "..."}.
  std::map<std::string, std::string> values;
};

// The autoscaler the cluster runs. Cluster Autoscaler's flags are typed at load
// (sim/scenario/cas_flags.cpp); shared and const because the spec is copied per run while the
// options are read only by the controller (models/autoscaling, above this layer, so only named).
// Karpenter's settings are kept as the real program spells them (kebab-case), checked at load.
struct AutoscalerSpec {
  std::string kind = "none";  // none | clusterAutoscaler | karpenter
  std::shared_ptr<const autoscaling::CasOptions> cluster_autoscaler;  // null = CA's defaults
  std::map<std::string, std::string> flags;                           // karpenter settings
};

struct AccessSpec {
  // When the scenario declares aws-auth mapRoles or access entries, only those roles may join;
  // otherwise every node role may (CONTRACT.md).
  bool declared = false;
  std::vector<std::string> mapped_roles;
  // kube-system/aws-auth's mapRoles as declared, for the API server to serve back.
  struct MapRole {
    std::string rolearn;
    std::string username;
    std::vector<std::string> groups;
  };
  std::vector<MapRole> map_roles;
};

struct ClusterSpec {
  std::string name = "eksim";
  std::string region = "us-east-1";
  std::string kubernetes_version = "1.35";
  int kubernetes_minor = 35;
  std::string mode = "standard";  // standard | auto (EKS Auto Mode)
  std::string vpc_cidr = "10.0.0.0/16";
  std::vector<SubnetSpec> subnets;
  std::vector<VpcEndpointSpec> vpc_endpoints;
  QuotaSpec quotas;
  // `cluster.pricing`: a price file and a uniform discount (models/aws/pricing.hpp).
  aws::PricingSpec pricing;
  std::vector<CapacityPoolSpec> capacity_pools;
  std::vector<SecurityGroupSpec> security_groups;
  // `cluster.clusterSecurityGroup`: the group on the EKS control plane's ENIs in the VPC (the
  // cluster security group, or terraform-aws-modules/eks's cluster SG). When given, a node joins
  // only if its groups let it reach that ENI on TCP 443; empty = not modelled, every node may.
  std::string cluster_security_group;
  // `cluster.primarySecurityGroup`: the cluster security group EKS itself creates
  // (eks-cluster-sg-<name>-<id>: all traffic from itself, all egress), on the control plane's ENIs
  // and on the instances of every managed node group whose launch template names no group. When
  // empty and cluster_security_group is given, the Cluster creates it as EKS does.
  std::string primary_security_group;
  std::vector<NodeGroupSpec> node_groups;
  std::vector<AddonSpec> addons;
  AutoscalerSpec autoscaler;
  AccessSpec access;
  // The vpc-cni EKS add-on has its own IAM role (terraform-aws-modules/eks `addons.vpc-cni`
  // service_account_role_arn, or a pod_identity_association for aws-node with the
  // eks-pod-identity-agent add-on): aws-node then does not need the node role's CNI policy.
  bool vpc_cni_own_role = false;
  // aws-node's ipamd settings from the vpc-cni add-on's configuration_values (env).
  aws::VpcCniSettings vpc_cni;
  // EKS add-ons the scenario declares (`eksAddons` keys), in their order.
  std::vector<std::string> eks_addons;
  // CreateCluster `bootstrapSelfManagedAddons` (default true): EKS installs the self-managed
  // vpc-cni, kube-proxy and CoreDNS at creation; false installs only the declared EKS add-ons.
  bool bootstrap_self_managed_addons = true;
  // Apply node group keys with terraform-aws-modules/eks semantics (unknown keys silently ignored
  // with a Warning event) instead of rejecting them.
  bool module_semantics = false;
  // Wall-clock instant simulated time 0 corresponds to (Unix seconds), for AWS timestamps in
  // activity texts: `startTime` as the loader decoded it, 2026-01-01T00:00:00Z by default.
  std::int64_t start_epoch_seconds = aws::kDefaultStartEpochSeconds;
};

}  // namespace eksim
