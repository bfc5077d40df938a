#pragma once
// The security groups on the EKS control plane's ENIs in the VPC: the cluster security group EKS
// creates (ClusterSpec::primary_security_group) and the additional group a scenario names
// (ClusterSpec::cluster_security_group, e.g. terraform-aws-modules/eks's cluster SG). Every path
// between the control plane and the nodes (443 to the endpoint, 10250 to the kubelet) starts or
// ends at this ENI.
#include <optional>
#include <string_view>

#include "models/aws/security_groups.hpp"
#include "models/cluster/cluster_spec.hpp"
#include "sim/engine/rng.hpp"

namespace eksim {

// The cluster security group as EKS creates it with the cluster: named
// eks-cluster-sg-<cluster>-<unique number>, an ingress rule for all traffic from itself, an egress
// rule for all traffic to 0.0.0.0/0, tagged aws:eks:cluster-name and kubernetes.io/cluster/<name>.
aws::SecurityGroup eks_cluster_security_group(std::string_view cluster_name, engine::Rng& rng);

// The control plane's ENI with its groups; nullopt when the scenario models none (then nothing
// is checked on these paths). Its address matters only to CIDR rules: the ENIs sit in the
// cluster's subnets, so the first address EC2 hands out in the first subnet stands for it.
std::optional<aws::Eni> control_plane_eni(const ClusterSpec& spec);

}  // namespace eksim
