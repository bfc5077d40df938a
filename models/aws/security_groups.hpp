#pragma once
// VPC security groups: allow-only, stateful rule sets attached to ENIs. Every group on an ENI
// adds its rules (the union). A connection from src to dst is allowed iff an egress rule of one
// of src's groups permits (dst address, protocol, port) AND an ingress rule of one of dst's
// groups permits (src address or src's groups, protocol, port). Stateful: the reply traffic of
// an allowed connection is always allowed, so only the initiating direction is evaluated.
// reachable() is the one question the network model asks (NCCL's TCP connects).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/aws/aws_error.hpp"
#include "sim/engine/ipv4.hpp"

namespace eksim::aws {

// Protocol names as the EC2 API accepts them ("tcp", "udp", "icmp", "-1" = all; also the numbers
// 6, 17, 1 and "all"), normalised to "tcp" | "udp" | "icmp" | "-1"; nullopt if unknown.
std::optional<std::string> normalize_protocol(std::string_view protocol);

struct SgRule {
  std::string protocol = "-1";  // tcp | udp | icmp | -1
  // tcp/udp: port range; icmp: from_port = ICMP type, to_port = code (-1 = all); -1: ignored.
  int from_port = 0;
  int to_port = 0;
  // Exactly one peer: an IPv4 CIDR or a security group (id or name; a group on the ENI matches).
  std::string cidr;
  std::string group;
  std::string description;

  static SgRule tcp(int from, int to, std::string cidr_or_empty, std::string group_or_empty = {});
  // Same rule as far as EC2 is concerned (protocol, ports, peer; the description does not count).
  bool same_permission(const SgRule& o) const;
};

struct SecurityGroup {
  std::string id;    // sg-... or the scenario's name when no id is given
  std::string name;  // group name; may be empty
  std::vector<SgRule> ingress;
  std::vector<SgRule> egress;
  // DescribeSecurityGroups Tags: what Karpenter's securityGroupSelectorTerms match.
  std::map<std::string, std::string> tags{};
};

// CreateSecurityGroup: no ingress, one egress rule allowing everything to 0.0.0.0/0.
SecurityGroup new_security_group(std::string id, std::string name = {});

struct Eni {
  std::uint32_t ip = 0;
  std::vector<std::string> groups;  // ids or names of the groups attached to the interface
};

// "the specified rule \"peer: 0.0.0.0/0, TCP, from port: 80, to port: 80, ALLOW\" already exists"
AwsError duplicate_permission(const SgRule& rule);
// "The specified rule does not exist in this security group."
AwsError permission_not_found();
// "The security group 'sg-0dcf748f4901c5334' does not exist"
AwsError group_not_found(std::string_view group);

class SecurityGroups {
 public:
  // Adds or replaces (by id) a group.
  void put(SecurityGroup group);
  // By id, else by name.
  const SecurityGroup* find(std::string_view id_or_name) const;
  const std::vector<SecurityGroup>& all() const { return groups_; }

  // AuthorizeSecurityGroupIngress/Egress and RevokeSecurityGroupIngress/Egress for one rule.
  // Errors: InvalidGroup.NotFound, InvalidPermission.Duplicate, InvalidPermission.NotFound, and
  // InvalidParameterValue for a rule without exactly one peer or with an unknown protocol.
  std::optional<AwsError> authorize_ingress(std::string_view group, SgRule rule);
  std::optional<AwsError> revoke_ingress(std::string_view group, const SgRule& rule);
  std::optional<AwsError> authorize_egress(std::string_view group, SgRule rule);
  std::optional<AwsError> revoke_egress(std::string_view group, const SgRule& rule);

  // protocol: "tcp" | "udp" | "icmp" (port = ICMP type for icmp).
  bool reachable(const Eni& src, const Eni& dst, std::string_view protocol, int port) const;
  // A destination outside the VPC (a public registry's address) carries none of these groups:
  // only src's egress rules decide.
  bool egress_allowed(const Eni& src, std::uint32_t dst_ip, std::string_view protocol, int port) const;

 private:
  SecurityGroup* find_mut(std::string_view id_or_name);
  std::optional<AwsError> authorize(std::string_view group, SgRule rule, bool ingress);
  std::optional<AwsError> revoke(std::string_view group, const SgRule& rule, bool ingress);
  // Does rule permit traffic of protocol/port with the given peer (the other ENI)?
  bool permits(const SgRule& rule, const Eni& peer, std::string_view protocol, int port) const;
  bool same_group(std::string_view a, std::string_view b) const;

  std::vector<SecurityGroup> groups_;
};

// --- terraform-aws-modules/eks v21 node security group ---------------------------------------
// Source: terraform-aws-modules/terraform-aws-eks node_groups.tf, locals node_security_group_rules
// and node_security_group_recommended_rules (the latter enabled by default by
// node_security_group_enable_recommended_rules = true).

struct NamedSgRule {
  std::string key;  // the module's map key, e.g. "ingress_nodes_ephemeral"
  bool ingress = true;
  SgRule rule;
};

// Always created: ingress_cluster_443, ingress_cluster_kubelet (10250) from the cluster SG,
// ingress_self_coredns_tcp / _udp (53) from the node SG itself.
std::vector<NamedSgRule> tf_eks_node_sg_base_rules(std::string_view node_sg, std::string_view cluster_sg);
// Recommended: ingress_nodes_ephemeral (tcp 1025-65535 self), ingress_cluster_{4443,6443,8443,
// 9443,10251}_webhook from the cluster SG, egress_all (-1 to 0.0.0.0/0).
std::vector<NamedSgRule> tf_eks_node_sg_recommended_rules(std::string_view node_sg, std::string_view cluster_sg);
// The node SG as the module creates it. Terraform's aws_security_group removes EC2's default
// allow-all egress rule, so without the recommended rules the group has no egress at all.
SecurityGroup tf_eks_node_security_group(std::string id, std::string name, std::string_view cluster_sg,
                                         bool enable_recommended_rules = true);

}  // namespace eksim::aws
