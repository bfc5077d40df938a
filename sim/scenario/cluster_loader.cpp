#include "sim/scenario/cluster_loader.hpp"

#include "sim/scenario/autoscaler_config.hpp"
#include "sim/scenario/price_file.hpp"

#include <algorithm>
#include <climits>

#include "models/aws/asg_rules.hpp"
#include "models/aws/regions.hpp"
#include "models/aws/subnet_addresses.hpp"
#include "models/aws/quotas.hpp"
#include "models/k8s/addons/nvidia/gpu_operator_chart.hpp"
#include "sim/engine/numbers.hpp"
#include "sim/scenario/input_limits.hpp"
#include "sim/scenario/k8s_syntax.hpp"
#include "sim/scenario/vpc_cni_config.hpp"
#include "sim/scenario/yaml_documents.hpp"

namespace eksim::scenario {

void check_one_of(const Value& v, const std::string& got, const std::vector<std::string>& allowed, const std::string& what) {
  if (std::find(allowed.begin(), allowed.end(), got) != allowed.end()) return;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  std::string hint = did_you_mean(got, allowed);
  v.fail("unknown " + what + " \"" + got + "\"" + (hint.empty() ? " (one of: " + list + ")" : "; did you mean \"" + hint + "\"?"));
}

namespace {

bool valid_cidr(const std::string& s) {
  auto slash = s.find('/');
  if (slash == std::string::npos) return false;
  std::string ip = s.substr(0, slash), len = s.substr(slash + 1);
  auto bits = engine::parse_integer<int>(len);
  if (len.size() > 2 || !std::all_of(len.begin(), len.end(), ::isdigit) || !bits.ok() || bits.value > 32) return false;
  int parts = 0;
  std::size_t start = 0;
  while (true) {
    auto dot = ip.find('.', start);
    std::string part = ip.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    auto octet = engine::parse_integer<int>(part);
    if (part.size() > 3 || !std::all_of(part.begin(), part.end(), ::isdigit) || !octet.ok() || octet.value > 255)
      return false;
    ++parts;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts == 4;
}

std::string read_cidr(const Value& v) {
  std::string s = v.as_string("a CIDR block");
  if (!valid_cidr(s)) v.fail("invalid CIDR block \"" + s + "\" (expected a.b.c.d/n)");
  return s;
}

// Helm values -> dotted paths ("gfd.enabled", "tolerations[0].key"), the form add-on models read.
void flatten_values(const Value& v, const std::string& prefix, std::map<std::string, std::string>& out) {
  if (v.is_map()) {
    for (const auto& [key, k, value] : v.entries("a chart value name"))
      flatten_values(value, prefix.empty() ? key : prefix + "." + key, out);
  } else if (v.is_seq()) {
    auto items = v.items();
    for (std::size_t i = 0; i < items.size(); ++i) flatten_values(items[i], prefix + "[" + std::to_string(i) + "]", out);
    if (items.empty()) out[prefix] = "[]";
  } else {
    // A toleration's seconds reach the DaemonSet as an int64 (the chart renders it there); what
    // does not decode as one is refused here, where it is written.
    const bool seconds = prefix.size() >= 18 && prefix.compare(prefix.size() - 18, 18, ".tolerationSeconds") == 0;
    if (seconds && !v.is_null()) v.as_int("an integer number of seconds for tolerationSeconds");
    out[prefix] = v.is_null() ? "" : v.as_string();
  }
}

const std::vector<std::string>& known_addons() {
  static const std::vector<std::string> names{"nvidiaDevicePlugin", "nodeFeatureDiscovery", "gpuOperator"};
  return names;
}

AccessSpec read_access(const Value& v) {
  MapReader r(v, "access");
  AccessSpec a;
  auto role_of = [](const std::string& arn) {
    auto slash = arn.rfind('/');
    return slash == std::string::npos ? arn : arn.substr(slash + 1);
  };
  if (auto roles = r.get("mapRoles")) {
    a.declared = true;
    for (const auto& item : roles->items()) {
      MapReader m(item, "mapRoles entry");
      AccessSpec::MapRole role;
      role.rolearn = m.require("rolearn").as_string();
      a.mapped_roles.push_back(role_of(role.rolearn));
      m.allow({"username", "groups"});
      if (auto u = m.get("username")) role.username = u->as_string();
      if (auto g = m.get("groups"))
        for (const auto& group : g->items()) role.groups.push_back(group.as_string());
      m.finish();
      a.map_roles.push_back(std::move(role));
    }
  }
  if (auto entries = r.get("accessEntries")) {
    a.declared = true;
    for (const auto& item : entries->items()) {
      MapReader m(item, "access entry");
      a.mapped_roles.push_back(role_of(m.require("principalArn").as_string()));
      if (auto t = m.get("type"))
        check_one_of(*t, t->as_string(), {"STANDARD", "EC2_LINUX", "EC2_WINDOWS", "FARGATE_LINUX", "HYBRID_LINUX", "EC2"},
                     "access entry type");
      m.allow({"kubernetesGroups", "username", "policyAssociations"});
      m.finish();
    }
  }
  r.finish();
  return a;
}

// EC2's CreateSubnet checks: the block lies inside the VPC's (when the scenario gives the VPC's
// block, vpc_cidr not empty) and overlaps no other subnet's. A subnet without a cidr is eksim's
// stand-in and is not compared.
void check_subnet_cidr(const Value& at, const SubnetSpec& s, const std::vector<SubnetSpec>& earlier,
                       const std::string& vpc_cidr) {
  auto block = aws::parse_ipv4_block(s.cidr);
  if (!block) return;
  auto vpc = aws::parse_ipv4_block(vpc_cidr);
  if (vpc && !vpc->contains(*block))
    at.fail(aws::invalid_subnet_range_error(s.cidr).str() + " (subnet \"" + s.id + "\" is outside the VPC's " + vpc_cidr + ")");
  for (const auto& other : earlier) {
    auto theirs = aws::parse_ipv4_block(other.cidr);
    if (theirs && theirs->overlaps(*block))
      at.fail(aws::subnet_conflict_error(s.cidr).str() + " (subnet \"" + other.id + "\", " + other.cidr + ")");
  }
}

std::vector<SubnetSpec> read_subnets(const Value& v, const std::string& region, const std::string& vpc_cidr) {
  std::vector<SubnetSpec> out;
  for (const auto& item : v.items()) {
    MapReader r(item, "subnet");
    SubnetSpec s;
    s.id = r.require("id").as_string();
    Value az = r.require("az");
    s.az = az.as_string();
    if (s.az.size() != region.size() + 1 || s.az.compare(0, region.size(), region) != 0)
      az.fail("availability zone \"" + s.az + "\" is not in region " + region);
    if (auto c = r.get("cidr")) {
      s.cidr = read_cidr(*c);
      check_subnet_cidr(*c, s, out, vpc_cidr);
    }
    if (auto u = r.get("usedAddresses")) {
      // Addresses other ENIs already hold (DescribeSubnets AvailableIpAddressCount = usable - this).
      s.used_addresses = u->as_non_negative();
      std::int64_t usable = aws::usable_subnet_addresses(s.cidr.empty() ? "10.0.0.0/16" : s.cidr);
      if (s.used_addresses > usable)
        u->fail("usedAddresses " + std::to_string(s.used_addresses) + " is more than the " + std::to_string(usable) +
                " addresses subnet \"" + s.id + "\" offers (its CIDR minus the 5 AWS reserves)");
    }
    if (auto t = r.get("tags")) s.tags = t->as_string_map();
    r.finish();
    for (const auto& other : out)
      if (other.id == s.id) item.fail("duplicate subnet id \"" + s.id + "\"");
    out.push_back(s);
  }
  return out;
}




// EKS add-ons as the terraform-aws-modules/eks `addons` map declares them. Only the VPC CNI's
// own IAM role changes anything modelled: with it aws-node does not need the node role's
// AmazonEKS_CNI_Policy. A Pod Identity association works only with the eks-pod-identity-agent
// add-on (without the agent the SDK falls back to the instance role).
void read_eks_addons(const Value& v, ClusterSpec& c) {
  static const std::vector<std::string> names{"vpc-cni", "coredns", "kube-proxy", "eks-pod-identity-agent",
                                              "aws-ebs-csi-driver", "eks-node-monitoring-agent", "amazon-cloudwatch-observability",
                                              "metrics-server"};
  if (!v.is_map()) v.fail("eksAddons is a mapping of EKS add-on name -> module arguments");
  bool own_role = false, pod_identity = false, agent = false;
  for (const auto& [name, key, body] : v.entries("an EKS add-on name")) {
    check_one_of(key, name, names, "EKS add-on");
    agent |= name == "eks-pod-identity-agent";
    c.eks_addons.push_back(name);
    if (body.is_null()) continue;
    MapReader r(body, "EKS add-on " + name);
    if (auto x = r.get("service_account_role_arn")) own_role |= name == "vpc-cni" && !x->as_string().empty();
    if (auto x = r.get("pod_identity_association")) {
      for (const auto& item : x->items()) {
        MapReader a(item, "pod_identity_association");
        a.require("role_arn");
        std::string sa = a.require("service_account").as_string();
        a.finish();
        pod_identity |= name == "vpc-cni" && sa == "aws-node";
      }
    }
    if (auto x = r.get("configuration_values"); x && name == "vpc-cni") c.vpc_cni = read_vpc_cni_configuration(*x);
    r.allow({"name", "before_compute", "most_recent", "addon_version", "configuration_values", "preserve",
             "resolve_conflicts_on_create", "resolve_conflicts_on_update", "timeouts", "tags"});
    r.finish();
  }
  c.vpc_cni_own_role = own_role || (pod_identity && agent);
}

}  // namespace

void check_security_group_exists(const ClusterSpec& cluster, const std::string& name, const Value& at) {
  std::vector<std::string> names;
  for (const auto& sg : cluster.security_groups) {
    if (sg.name == name) return;
    names.push_back(sg.name);
  }
  std::string hint = did_you_mean(name, names);
  at.fail("unknown security group \"" + name + "\"" + (hint.empty() ? "" : "; did you mean \"" + hint + "\"?"));
}

static std::vector<VpcEndpointSpec> read_vpc_endpoints(const Value& v, const ClusterSpec& cluster) {
  std::vector<VpcEndpointSpec> out;
  for (const auto& item : v.items()) {
    MapReader r(item, "VPC endpoint");
    VpcEndpointSpec e;
    Value service = r.require("service");
    e.service = service.as_string();
    check_one_of(service, e.service, {"ecr.api", "ecr.dkr", "s3"}, "VPC endpoint service");
    if (auto g = r.get("securityGroups")) {
      // A gateway endpoint is a route-table entry: EC2 has no security group to attach to it.
      if (e.service == "s3") g->fail("the s3 endpoint is a gateway endpoint: it takes no security groups");
      for (const auto& sg : g->items()) {
        check_security_group_exists(cluster, sg.as_string(), sg);
        e.security_groups.push_back(sg.as_string());
      }
    }
    r.finish();
    for (const auto& other : out)
      if (other.service == e.service) item.fail("duplicate VPC endpoint for service \"" + e.service + "\"");
    out.push_back(std::move(e));
  }
  return out;
}

SecurityGroupRuleSpec read_sg_rule(const Value& v, const ClusterSpec& cluster) {
  (void)cluster;
  MapReader r(v, "security group rule");
  SecurityGroupRuleSpec rule;
  Value proto = r.require("protocol");
  rule.protocol = proto.as_string();
  if (rule.protocol == "all") rule.protocol = "-1";
  check_one_of(proto, rule.protocol, {"tcp", "udp", "icmp", "-1"}, "protocol");
  if (rule.protocol == "-1") {
    rule.from_port = 0;
    rule.to_port = 65535;
    r.get("fromPort");
    r.get("toPort");
  } else if (rule.protocol != "icmp") {
    Value from = r.require("fromPort"), to = r.require("toPort");
    rule.from_port = static_cast<int>(from.as_non_negative("a port"));
    rule.to_port = static_cast<int>(to.as_non_negative("a port"));
    if (rule.from_port > 65535) from.fail("port must be 0-65535");
    if (rule.to_port > 65535) to.fail("port must be 0-65535");
    if (rule.from_port > rule.to_port) to.fail("toPort must be >= fromPort");
  } else {
    if (auto f = r.get("fromPort")) rule.from_port = static_cast<int>(f->as_int());
    if (auto t = r.get("toPort")) rule.to_port = static_cast<int>(t->as_int());
  }
  if (auto src = r.get("source")) {
    MapReader s(*src, "rule source");
    // Group references are checked once every group is read: self references are common.
    if (auto g = s.get("group")) rule.source_group = g->as_string();
    if (auto c = s.get("cidr")) rule.cidr = read_cidr(*c);
    s.finish();
    if (rule.source_group.empty() == rule.cidr.empty()) src->fail("a rule source is {group: NAME} or {cidr: CIDR}");
  }
  if (auto c = r.get("cidr")) {
    if (!rule.cidr.empty() || !rule.source_group.empty()) c->fail("give cidr either here or under source, once");
    rule.cidr = read_cidr(*c);
  }
  if (auto d = r.get("description")) rule.description = d->as_string();
  if (rule.cidr.empty() && rule.source_group.empty()) v.fail("a rule needs a source group or a cidr");
  r.finish();
  return rule;
}

std::vector<SecurityGroupSpec> read_security_groups(const Value& v) {
  std::vector<SecurityGroupSpec> out;
  ClusterSpec none;
  for (const auto& item : v.items()) {
    MapReader r(item, "security group");
    SecurityGroupSpec sg;
    sg.name = r.require("name").as_string();
    if (auto in = r.get("ingress"))
      for (const auto& rule : in->items()) sg.ingress.push_back(read_sg_rule(rule, none));
    if (auto eg = r.get("egress")) {
      sg.egress_given = true;
      for (const auto& rule : eg->items()) sg.egress.push_back(read_sg_rule(rule, none));
    }
    if (auto t = r.get("tags")) sg.tags = t->as_string_map();
    r.allow({"description"});
    r.finish();
    for (const auto& other : out)
      if (other.name == sg.name) item.fail("duplicate security group \"" + sg.name + "\"");
    out.push_back(std::move(sg));
  }
  return out;
}

QuotaSpec read_quotas(const Value& at, MapReader& r) {
  (void)at;
  QuotaSpec q;
  std::vector<std::string> buckets(std::begin(aws::kQuotaBuckets), std::end(aws::kQuotaBuckets));
  auto read_side = [&](const char* key, std::map<std::string, std::int64_t>& out) {
    auto side = r.get(key);
    if (!side) return;
    if (!side->is_map()) side->fail(std::string("expected a mapping of bucket -> vCPUs for ") + key);
    for (const auto& [bucket, k, val] : side->entries("a quota bucket")) {
      if (!aws::is_quota_bucket(bucket)) check_one_of(k, bucket, buckets, "quota bucket");
      out[bucket] = val.as_non_negative("a non-negative vCPU count");
    }
  };
  read_side("onDemand", q.on_demand);
  read_side("spot", q.spot);
  return q;
}

namespace {

// A region AWS does not have is a typo; the closest real one is suggested.
void check_region(const Value& at, const std::string& region) {
  if (aws::is_aws_region(region)) return;
  std::string hint = did_you_mean(region, aws::aws_regions());
  at.fail("unknown region \"" + region + "\"" +
          (hint.empty() ? " (an AWS Region code such as us-east-1 or ap-northeast-2)" : "; did you mean \"" + hint + "\"?"));
}

void read_kubernetes_version(const Value& x, ClusterSpec& c) {
  c.kubernetes_version = x.as_string();
  const std::string& s = c.kubernetes_version;
  if (s.size() < 4 || s.compare(0, 2, "1.") != 0 || !std::all_of(s.begin() + 2, s.end(), ::isdigit))
    x.fail("kubernetesVersion must look like \"1.35\", got \"" + s + "\"");
  auto minor = engine::parse_integer<int>(s.substr(2));
  c.kubernetes_minor = minor.value;
  if (!minor.ok() || c.kubernetes_minor < 28 || c.kubernetes_minor > 36)
    x.fail("kubernetesVersion " + s + " is outside the versions eksim models (1.28 to 1.36)");
}

// A VPC of three private subnets, one per AZ, like the terraform-aws-modules/vpc examples;
// tagged for Karpenter discovery as terraform-aws-modules/eks's karpenter example tags its
// private subnets (private_subnet_tags "karpenter.sh/discovery" = cluster name).
std::vector<SubnetSpec> default_subnets(const ClusterSpec& c) {
  std::vector<SubnetSpec> out;
  const char* letters[] = {"a", "b", "c"};
  for (int i = 0; i < 3; ++i) {
    SubnetSpec s;
    s.id = std::string("private-") + letters[i];
    s.az = c.region + letters[i];
    s.cidr = "10.0." + std::to_string(i * 16) + ".0/20";
    s.tags["karpenter.sh/discovery"] = c.name;
    out.push_back(std::move(s));
  }
  return out;
}

// One cluster.capacityPools entry; its own price joins c.pricing.
CapacityPoolSpec read_capacity_pool(const Value& item, ClusterSpec& c) {
  MapReader pr(item, "capacity pool");
  CapacityPoolSpec p;
  Value type = pr.require("instanceType");
  p.instance_type = type.as_string();
  if (!aws::InstanceCatalog::builtin().find(p.instance_type)) type.fail("unknown instance type \"" + p.instance_type + "\"");
  p.az = pr.require("az").as_string();
  if (auto ct = pr.get("capacityType")) {
    std::string t = ct->as_string();
    check_one_of(*ct, t, {"on-demand", "spot"}, "capacity type");
    p.spot = t == "spot";
  }
  if (auto n = pr.get("instances")) p.instances = n->as_non_negative("a non-negative instance count");
  // The pool's own price (a Spot price of that AZ, say): wins over the price file and the
  // catalog for this type, capacity type and AZ.
  if (auto x = pr.get("usdPerHour")) {
    double usd = x->as_double();
    if (!(usd > 0)) x->fail("usdPerHour must be a positive number of dollars");
    c.pricing.prices.push_back(aws::UserPrice{c.region, p.instance_type, p.spot, usd, p.az});
  }
  // Spot interruptions of the pool (README, "Spot interruptions").
  if (auto x = pr.get("interruptionsPerHour")) {
    p.interruptions_per_hour = x->as_double();
    if (p.interruptions_per_hour < 0) x->fail("interruptionsPerHour must not be negative");
    if (!p.spot) x->fail("interruptionsPerHour applies to a spot pool (capacityType: spot); EC2 does not interrupt On-Demand instances");
  }
  if (auto x = pr.get("rebalanceLead")) {
    p.rebalance_lead = x->as_duration();
    if (!p.spot) x->fail("rebalanceLead applies to a spot pool (capacityType: spot)");
  }
  if (!p.instances && p.interruptions_per_hour == 0 && !pr.has("usdPerHour")) pr.require("instances");
  pr.finish();
  return p;
}

// cluster.securityGroups, then the group references in their rules, which resolve only once
// every group is known.
void read_cluster_security_groups(const Value& sgs, ClusterSpec& c) {
  c.security_groups = read_security_groups(sgs);
  auto items = sgs.items();
  for (std::size_t i = 0; i < c.security_groups.size(); ++i) {
    for (const auto* rules : {&c.security_groups[i].ingress, &c.security_groups[i].egress})
      for (const auto& rule : *rules)
        if (!rule.source_group.empty()) check_security_group_exists(c, rule.source_group, items[i]);
  }
}

void read_node_groups(const Value& ngs, ClusterSpec& c) {
  (void)MapReader(ngs, "nodeGroups");  // a mapping, or a located error
  std::int64_t starting_nodes = 0;
  for (const auto& [name, key, body] : ngs.entries("a node group name")) {
    check_node_group_name(key, name);
    NodeGroupSpec spec;
    spec.name = name;
    read_node_group_into(body, c, spec, true);
    starting_nodes += spec.desired_size;
    if (starting_nodes > kMaxNodes)
      key.fail("the node groups start with " + std::to_string(starting_nodes) + " nodes; eksim simulates at most " +
               std::to_string(kMaxNodes) + " (Kubernetes' scalability threshold for one cluster)");
    if (spec.iam_role_name.empty()) spec.iam_role_name = spec.name + "-eks-node-group";
    c.node_groups.push_back(std::move(spec));
  }
}

// The chart's values, flattened; the device plugin chart copies each config.map entry into its
// ConfigMap as a file's text, so each must be one.
void read_addon_values(const Value& vals, AddonSpec& a) {
  if (!vals.is_map()) vals.fail("values must be a mapping (the chart's values.yaml keys)");
  flatten_values(vals, "", a.values);
  const YAML::Node root = vals.node();
  if (a.name == "nvidiaDevicePlugin" && root["config"] && root["config"].IsMap() && root["config"]["map"] &&
      root["config"]["map"].IsMap())
    for (const auto& [file, fkey, fval] : Value(root["config"]["map"], vals.file_ptr()).entries("a config name"))
      if (!fval.is_scalar())
        fval.fail("config.map." + file + " must be a string: the text of a device plugin config file, e.g. `" +
                  file + ": |` and the YAML below it");
}

AddonSpec read_addon(const std::string& name, const Value& value) {
  MapReader body(value, "add-on " + name);
  AddonSpec a;
  a.name = name;
  if (auto ver = body.get("version")) {
    a.version = ver->as_string();
    // The GPU Operator's operands and their images come from eksim's table of chart versions.
    if (name == "gpuOperator" && !k8s::find_gpu_operator_chart(a.version)) {
      std::string known;
      for (const auto& k : k8s::gpu_operator_chart_versions()) known += (known.empty() ? "" : ", ") + k;
      ver->fail("gpu-operator chart version \"" + a.version + "\" is not one eksim knows (known: " + known + ")");
    }
  }
  // `helm install RELEASE --namespace NS`: the release names the chart's objects
  // (<release>-nvidia-device-plugin), as lab 004's `helm upgrade -i nvdp ... --namespace
  // nvidia-device-plugin` does.
  if (auto x = body.get("releaseName")) {
    a.release_name = x->as_string();
    if (a.release_name.empty() || a.release_name.size() > 53 || !syntax::dns1123_subdomain(a.release_name))
      x->fail("invalid release name \"" + a.release_name + "\": Helm wants lower-case letters, digits, '-' and '.' "
              "(a DNS-1123 subdomain) of at most 53 characters");
  }
  if (auto x = body.get("namespace")) {
    a.ns = x->as_string();
    if (a.ns.empty() || a.ns.size() > 63 || !syntax::dns1123_label(a.ns))
      x->fail("invalid namespace \"" + a.ns + "\": a DNS-1123 label (lower-case letters, digits and '-', at most 63 characters)");
  }
  if (auto vals = body.get("values")) read_addon_values(*vals, a);
  body.finish();
  return a;
}

void read_addons(const Value& addons, ClusterSpec& c) {
  (void)MapReader(addons, "addons");  // a mapping, or a located error
  for (const auto& [name, key, value] : addons.entries("an add-on name")) {
    check_one_of(key, name, known_addons(), "add-on");
    c.addons.push_back(read_addon(name, value));
  }
}

// cluster.vpc: its block and subnets; the endpoints are returned to be read once the security
// groups are known.
std::optional<Value> read_vpc(const Value& vpc, ClusterSpec& c) {
  MapReader vr(vpc, "vpc");
  std::optional<Value> endpoints = vr.get("endpoints");
  if (auto x = vr.get("cidr")) c.vpc_cidr = read_cidr(*x);
  // Without vpc.cidr the VPC's block is eksim's stand-in (10.0.0.0/16), not the user's: only
  // overlaps between subnets are checked then.
  if (auto x = vr.get("subnets")) c.subnets = read_subnets(*x, c.region, vr.get("cidr") ? c.vpc_cidr : "");
  vr.finish();
  return endpoints;
}

}  // namespace

std::vector<AddonSpec> read_addon_list(const Value& addons) {
  ClusterSpec scratch;
  read_addons(addons, scratch);
  return scratch.addons;
}

ClusterSpec read_cluster(const Value& v, const aws::InstanceCatalog& catalog) {
  MapReader r(v, "cluster");
  ClusterSpec c;
  if (auto x = r.get("name")) c.name = x->as_string();
  if (auto x = r.get("region")) {
    c.region = x->as_string();
    check_region(*x, c.region);
  }
  if (auto x = r.get("kubernetesVersion")) read_kubernetes_version(*x, c);
  if (auto x = r.get("mode")) {
    c.mode = x->as_string();
    check_one_of(*x, c.mode, {"standard", "auto"}, "mode");
  }
  if (auto x = r.get("nodeGroupKeys")) {
    std::string mode = x->as_string();
    check_one_of(*x, mode, {"strict", "terraform-module"}, "nodeGroupKeys");
    c.module_semantics = mode == "terraform-module";
  }
  if (auto x = r.get("bootstrapSelfManagedAddons")) c.bootstrap_self_managed_addons = x->as_bool();
  if (auto x = r.get("startTime")) c.start_epoch_seconds = x->as_rfc3339_seconds("startTime");
  if (auto x = r.get("pricing")) c.pricing = read_pricing(*x, catalog);
  std::optional<Value> vpc_endpoints;
  if (auto vpc = r.get("vpc")) vpc_endpoints = read_vpc(*vpc, c);
  if (c.subnets.empty()) c.subnets = default_subnets(c);
  if (auto q = r.get("quotas")) {
    MapReader qr(*q, "quotas");
    c.quotas = read_quotas(*q, qr);
    qr.finish();
  }
  if (auto pools = r.get("capacityPools"))
    for (const auto& item : pools->items()) c.capacity_pools.push_back(read_capacity_pool(item, c));
  if (auto sgs = r.get("securityGroups")) read_cluster_security_groups(*sgs, c);
  if (vpc_endpoints) c.vpc_endpoints = read_vpc_endpoints(*vpc_endpoints, c);
  if (auto x = r.get("clusterSecurityGroup")) {
    c.cluster_security_group = x->as_string();
    check_security_group_exists(c, c.cluster_security_group, *x);
  }
  if (auto x = r.get("primarySecurityGroup")) {
    c.primary_security_group = x->as_string();
    check_security_group_exists(c, c.primary_security_group, *x);
  }
  if (auto access = r.get("access")) c.access = read_access(*access);
  if (auto ngs = r.get("nodeGroups")) read_node_groups(*ngs, c);
  if (auto addons = r.get("addons")) read_addons(*addons, c);
  if (auto x = r.get("eksAddons")) read_eks_addons(*x, c);
  if (auto as = r.get("autoscaler")) c.autoscaler = read_autoscaler(*as);
  r.finish();
  return c;
}

}  // namespace eksim::scenario
