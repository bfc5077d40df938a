#include "models/cluster/kubelet_access.hpp"

#include "models/aws/security_groups.hpp"
#include "models/cluster/cluster.hpp"

namespace eksim {

std::optional<std::string> kubelet_dial_error(const Cluster& cluster, const k8s::NodeRecord& node) {
  const ClusterSpec& spec = cluster.spec();
  if (spec.cluster_security_group.empty()) return std::nullopt;
  const aws::Instance* inst = cluster.ec2.find(node.instance_id);
  if (!inst || inst->security_groups.empty()) return std::nullopt;
  aws::Eni kubelet{aws::parse_ipv4(inst->private_ip).value_or(0), inst->security_groups};
  // The control plane's cross-account ENIs sit in the cluster's subnets (the same stand-in
  // address as Cluster::api_server_reachable).
  aws::Eni control_plane{0, {spec.cluster_security_group}};
  if (!spec.subnets.empty())
    if (auto cidr = aws::Ipv4Cidr::parse(spec.subnets.front().cidr)) control_plane.ip = cidr->network + 4;
  if (cluster.security_groups.reachable(control_plane, kubelet, "tcp", 10250)) return std::nullopt;
  return "dial tcp " + inst->private_ip + ":10250: i/o timeout";
}

}  // namespace eksim
