#include "models/cluster/kubelet_access.hpp"

#include "models/aws/security_groups.hpp"
#include "models/cluster/cluster.hpp"
#include "models/cluster/control_plane_groups.hpp"

namespace eksim {

std::optional<std::string> kubelet_dial_error(const Cluster& cluster, const k8s::NodeRecord& node) {
  auto control_plane = control_plane_eni(cluster.spec());
  if (!control_plane) return std::nullopt;
  const aws::Instance* inst = cluster.ec2.find(node.instance_id);
  if (!inst || inst->security_groups.empty()) return std::nullopt;
  aws::Eni kubelet{engine::parse_ipv4(inst->private_ip).value_or(0), inst->security_groups};
  if (cluster.security_groups.reachable(*control_plane, kubelet, "tcp", 10250)) return std::nullopt;
  return "dial tcp " + inst->private_ip + ":10250: i/o timeout";
}

}  // namespace eksim
