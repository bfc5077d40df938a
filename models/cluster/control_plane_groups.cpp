#include "models/cluster/control_plane_groups.hpp"

#include <string>

namespace eksim {

aws::SecurityGroup eks_cluster_security_group(std::string_view cluster_name, engine::Rng& rng) {
  const std::string cluster(cluster_name);
  // The unique part of the name is a 10-digit number on real clusters.
  const std::string id = "eks-cluster-sg-" + cluster + "-" + std::to_string(1000000000 + rng.next_u64() % 9000000000ULL);
  aws::SecurityGroup g;
  g.id = id;
  g.name = id;
  aws::SgRule all;
  all.protocol = "-1";
  all.group = id;
  g.ingress.push_back(all);
  aws::SgRule out;
  out.protocol = "-1";
  out.cidr = "0.0.0.0/0";
  g.egress.push_back(out);
  g.tags["aws:eks:cluster-name"] = cluster;
  g.tags["kubernetes.io/cluster/" + cluster] = "owned";
  return g;
}

std::optional<aws::Eni> control_plane_eni(const ClusterSpec& spec) {
  aws::Eni eni;
  for (const std::string* g : {&spec.cluster_security_group, &spec.primary_security_group})
    if (!g->empty() && (eni.groups.empty() || eni.groups.front() != *g)) eni.groups.push_back(*g);
  if (eni.groups.empty()) return std::nullopt;
  if (!spec.subnets.empty())
    if (auto cidr = engine::Ipv4Cidr::parse(spec.subnets.front().cidr)) eni.ip = cidr->network + 4;
  return eni;
}

}  // namespace eksim
