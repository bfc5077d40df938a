#include "models/aws/security_groups.hpp"

#include <algorithm>
#include <charconv>

namespace eksim::aws {

std::optional<std::string> normalize_protocol(std::string_view p) {
  if (p == "tcp" || p == "TCP" || p == "6") return "tcp";
  if (p == "udp" || p == "UDP" || p == "17") return "udp";
  if (p == "icmp" || p == "ICMP" || p == "1") return "icmp";
  if (p == "-1" || p == "all" || p == "ALL") return "-1";
  return std::nullopt;
}

SgRule SgRule::tcp(int from, int to, std::string cidr_or_empty, std::string group_or_empty) {
  SgRule r;
  r.protocol = "tcp";
  r.from_port = from;
  r.to_port = to;
  r.cidr = std::move(cidr_or_empty);
  r.group = std::move(group_or_empty);
  return r;
}

namespace {
// The CIDR as EC2 stores it (host bits cleared), or the text if it does not parse.
std::string canonical_cidr(const std::string& cidr) {
  if (cidr.empty()) return cidr;
  auto c = engine::Ipv4Cidr::parse(cidr);
  return c ? c->str() : cidr;
}
}  // namespace

bool SgRule::same_permission(const SgRule& o) const {
  if (protocol != o.protocol) return false;
  if (protocol != "-1" && (from_port != o.from_port || to_port != o.to_port)) return false;
  return canonical_cidr(cidr) == canonical_cidr(o.cidr) && group == o.group;
}

SecurityGroup new_security_group(std::string id, std::string name) {
  SecurityGroup g;
  g.id = std::move(id);
  g.name = std::move(name);
  SgRule all;
  all.protocol = "-1";
  all.cidr = "0.0.0.0/0";
  g.egress.push_back(all);
  return g;
}

AwsError duplicate_permission(const SgRule& rule) {
  std::string peer = rule.group.empty() ? canonical_cidr(rule.cidr) : rule.group;
  std::string text = "peer: " + peer + ", ";
  if (rule.protocol == "-1") {
    text += "ALL";
  } else {
    std::string proto = rule.protocol;
    std::transform(proto.begin(), proto.end(), proto.begin(), [](unsigned char c) { return char(c - 32 * (c >= 'a' && c <= 'z')); });
    text += proto + ", from port: " + std::to_string(rule.from_port) + ", to port: " + std::to_string(rule.to_port);
  }
  text += ", ALLOW";
  return {"InvalidPermission.Duplicate", "the specified rule \"" + text + "\" already exists"};
}

AwsError permission_not_found() {
  return {"InvalidPermission.NotFound", "The specified rule does not exist in this security group."};
}

AwsError group_not_found(std::string_view group) {
  return {"InvalidGroup.NotFound", "The security group '" + std::string(group) + "' does not exist"};
}

void SecurityGroups::put(SecurityGroup group) {
  for (auto& g : groups_)
    if (g.id == group.id) {
      g = std::move(group);
      return;
    }
  groups_.push_back(std::move(group));
}

const SecurityGroup* SecurityGroups::find(std::string_view id_or_name) const {
  for (const auto& g : groups_)
    if (g.id == id_or_name) return &g;
  for (const auto& g : groups_)
    if (!g.name.empty() && g.name == id_or_name) return &g;
  return nullptr;
}

SecurityGroup* SecurityGroups::find_mut(std::string_view id_or_name) {
  return const_cast<SecurityGroup*>(static_cast<const SecurityGroups*>(this)->find(id_or_name));
}

bool SecurityGroups::same_group(std::string_view a, std::string_view b) const {
  if (a == b) return true;
  const SecurityGroup* ga = find(a);
  return ga && ga == find(b);
}

std::optional<AwsError> SecurityGroups::authorize(std::string_view group, SgRule rule, bool ingress) {
  SecurityGroup* g = find_mut(group);
  if (!g) return group_not_found(group);
  auto proto = normalize_protocol(rule.protocol);
  if (!proto) return AwsError{"InvalidParameterValue", "Invalid value '" + rule.protocol + "' for IP protocol. Unknown protocol."};
  rule.protocol = *proto;
  if (rule.cidr.empty() == rule.group.empty())
    return AwsError{"InvalidParameterValue", "A rule needs exactly one source: a CIDR or a security group."};
  if (!rule.cidr.empty()) {
    auto c = engine::Ipv4Cidr::parse(rule.cidr);
    if (!c) return AwsError{"InvalidParameterValue", "CIDR block " + rule.cidr + " is malformed"};
    rule.cidr = c->str();
  } else if (const SecurityGroup* peer = find(rule.group)) {
    rule.group = peer->id;  // store the id, as EC2 does, so name and id forms compare equal
  }
  if (rule.protocol == "-1") rule.from_port = rule.to_port = -1;
  auto& rules = ingress ? g->ingress : g->egress;
  for (const auto& r : rules)
    if (r.same_permission(rule)) return duplicate_permission(rule);
  rules.push_back(std::move(rule));
  return std::nullopt;
}

std::optional<AwsError> SecurityGroups::revoke(std::string_view group, const SgRule& rule_in, bool ingress) {
  SecurityGroup* g = find_mut(group);
  if (!g) return group_not_found(group);
  SgRule rule = rule_in;
  if (auto proto = normalize_protocol(rule.protocol)) rule.protocol = *proto;
  if (!rule.group.empty())
    if (const SecurityGroup* peer = find(rule.group)) rule.group = peer->id;
  auto& rules = ingress ? g->ingress : g->egress;
  for (auto it = rules.begin(); it != rules.end(); ++it) {
    SgRule stored = *it;
    if (!stored.group.empty())
      if (const SecurityGroup* peer = find(stored.group)) stored.group = peer->id;
    if (stored.same_permission(rule)) {
      rules.erase(it);
      return std::nullopt;
    }
  }
  return permission_not_found();
}

std::optional<AwsError> SecurityGroups::authorize_ingress(std::string_view group, SgRule rule) {
  return authorize(group, std::move(rule), true);
}
std::optional<AwsError> SecurityGroups::revoke_ingress(std::string_view group, const SgRule& rule) {
  return revoke(group, rule, true);
}
std::optional<AwsError> SecurityGroups::authorize_egress(std::string_view group, SgRule rule) {
  return authorize(group, std::move(rule), false);
}
std::optional<AwsError> SecurityGroups::revoke_egress(std::string_view group, const SgRule& rule) {
  return revoke(group, rule, false);
}

bool SecurityGroups::permits(const SgRule& rule, const Eni& peer, std::string_view protocol, int port) const {
  if (rule.protocol != "-1") {
    if (rule.protocol != protocol) return false;
    if (protocol == "icmp") {
      if (rule.from_port != -1 && rule.from_port != port) return false;
    } else if (port < rule.from_port || port > rule.to_port) {
      return false;
    }
  }
  if (!rule.cidr.empty()) {
    auto c = engine::Ipv4Cidr::parse(rule.cidr);
    return c && c->contains(peer.ip);
  }
  for (const auto& g : peer.groups)
    if (same_group(g, rule.group)) return true;
  return false;
}

bool SecurityGroups::reachable(const Eni& src, const Eni& dst, std::string_view protocol, int port) const {
  auto rules_allow = [&](const Eni& owner, const Eni& peer, bool ingress) {
    for (const auto& gref : owner.groups) {
      const SecurityGroup* g = find(gref);
      if (!g) continue;
      for (const auto& r : ingress ? g->ingress : g->egress)
        if (permits(r, peer, protocol, port)) return true;
    }
    return false;
  };
  return rules_allow(src, dst, false) && rules_allow(dst, src, true);
}

bool SecurityGroups::egress_allowed(const Eni& src, std::uint32_t dst_ip, std::string_view protocol, int port) const {
  Eni outside{dst_ip, {}};
  for (const auto& gref : src.groups)
    if (const SecurityGroup* g = find(gref))
      for (const auto& r : g->egress)
        if (permits(r, outside, protocol, port)) return true;
  return false;
}

// --- terraform-aws-modules/eks -------------------------------------------------------------------

namespace {
NamedSgRule named(std::string key, bool ingress, std::string protocol, int from, int to, std::string cidr,
                  std::string group, std::string description) {
  SgRule r;
  r.protocol = std::move(protocol);
  r.from_port = from;
  r.to_port = to;
  r.cidr = std::move(cidr);
  r.group = std::move(group);
  r.description = std::move(description);
  return {std::move(key), ingress, std::move(r)};
}
}  // namespace

std::vector<NamedSgRule> tf_eks_node_sg_base_rules(std::string_view node_sg, std::string_view cluster_sg) {
  std::string self(node_sg), cluster(cluster_sg);
  return {
      named("ingress_cluster_443", true, "tcp", 443, 443, "", cluster, "Cluster API to node groups"),
      named("ingress_cluster_kubelet", true, "tcp", 10250, 10250, "", cluster, "Cluster API to node kubelets"),
      named("ingress_self_coredns_tcp", true, "tcp", 53, 53, "", self, "Node to node CoreDNS"),
      named("ingress_self_coredns_udp", true, "udp", 53, 53, "", self, "Node to node CoreDNS UDP"),
  };
}

std::vector<NamedSgRule> tf_eks_node_sg_recommended_rules(std::string_view node_sg, std::string_view cluster_sg) {
  std::string self(node_sg), cluster(cluster_sg);
  std::vector<NamedSgRule> rules{
      named("ingress_nodes_ephemeral", true, "tcp", 1025, 65535, "", self, "Node to node ingress on ephemeral ports"),
  };
  for (int port : {4443, 6443, 8443, 9443, 10251}) {
    const std::string p = std::to_string(port);
    rules.push_back(named("ingress_cluster_" + p + "_webhook", true, "tcp", port, port, "", cluster,
                          "Cluster API to node " + p + "/tcp webhook"));
  }
  rules.push_back(named("egress_all", false, "-1", 0, 0, "0.0.0.0/0", "", "Allow all egress"));
  return rules;
}

SecurityGroup tf_eks_node_security_group(std::string id, std::string name, std::string_view cluster_sg,
                                         bool enable_recommended_rules) {
  SecurityGroup g;
  g.id = std::move(id);
  g.name = std::move(name);
  auto add = [&](const std::vector<NamedSgRule>& rules) {
    for (const auto& r : rules) (r.ingress ? g.ingress : g.egress).push_back(r.rule);
  };
  add(tf_eks_node_sg_base_rules(g.id, cluster_sg));
  if (enable_recommended_rules) add(tf_eks_node_sg_recommended_rules(g.id, cluster_sg));
  return g;
}

}  // namespace eksim::aws
