#include "models/cluster/dns_access.hpp"

#include "models/aws/security_groups.hpp"
#include "models/cluster/cluster.hpp"
#include "models/k8s/api/pod_factory.hpp"

namespace eksim {

namespace {

const aws::Instance* instance_of(const Cluster& c, k8s::NodeId node) {
  return c.ec2.find(c.api.node(node).instance_id);
}

std::string groups_text(const aws::Instance* inst) {
  std::string out;
  for (const auto& g : inst->security_groups) out += (out.empty() ? "" : ", ") + g;
  return out;
}

}  // namespace

bool coredns_reachable(Cluster& c, k8s::NodeId node) { return coredns_unreachable_reason(c, node).empty(); }

std::string coredns_unreachable_reason(Cluster& c, k8s::NodeId node) {
  if (c.spec().mode == "auto") return "";
  const auto& all = c.api.deployments();
  std::optional<std::size_t> coredns;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (!all[i].deleted && all[i].meta.ns == "kube-system" && all[i].meta.name == "coredns") coredns = i;
  if (!coredns || !c.deployments) return "CoreDNS is not installed (no kube-system/coredns Deployment)";
  const aws::Instance* src = instance_of(c, node);
  std::string blocked;
  for (k8s::PodId id : c.deployments->pods(*coredns)) {
    const k8s::PodRecord& r = c.api.pod(id);
    if (!k8s::pod_active(r) || !r.node.valid() || r.pod.status.phase != k8s::PodPhase::Running) continue;
    if (r.node == node) return "";
    const aws::Instance* dst = instance_of(c, r.node);
    if (!src || !dst || src->security_groups.empty() || dst->security_groups.empty()) return "";
    aws::Eni from{engine::parse_ipv4(src->private_ip).value_or(0), src->security_groups};
    aws::Eni to{engine::parse_ipv4(dst->private_ip).value_or(0), dst->security_groups};
    if (c.security_groups.reachable(from, to, "udp", 53)) return "";
    blocked += (blocked.empty() ? "" : ", ") + r.pod.meta.name + " on " + c.api.node(r.node).node.meta.name + " (" +
               groups_text(dst) + ")";
  }
  if (blocked.empty()) return "no CoreDNS pod is running (the kube-dns Service has no endpoints)";
  return "the security groups drop UDP 53 from " + c.api.node(node).node.meta.name + " (" + groups_text(src) +
         ") to every CoreDNS pod: " + blocked;
}

}  // namespace eksim
