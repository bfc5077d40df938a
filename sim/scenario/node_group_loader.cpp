// terraform-aws-modules/eks node group keys -> NodeGroupSpec, with the checks EKS's
// CreateNodegroup makes (instance types and AMI type, sizes, subnets, security groups).
#include "sim/scenario/node_group_loader.hpp"

#include <algorithm>

#include "models/aws/asg_rules.hpp"
#include "sim/scenario/cluster_loader.hpp"
#include "sim/scenario/input_limits.hpp"
#include "sim/scenario/kubelet_user_data.hpp"

namespace eksim::scenario {

namespace {

std::vector<NodegroupTaint> read_taints(const Value& v) {
  // Module form: a map of name -> {key, value, effect} (v20+), or a list of such objects.
  std::vector<Value> entries;
  if (v.is_map()) {
    for (auto it = v.node().begin(); it != v.node().end(); ++it) entries.emplace_back(it->second, v.file_ptr());
  } else {
    entries = v.items();
  }
  std::vector<NodegroupTaint> out;
  for (const auto& e : entries) {
    MapReader r(e, "taint");
    NodegroupTaint t;
    t.key = r.require("key").as_string();
    if (auto val = r.get("value")) t.value = val->is_null() ? "" : val->as_string();
    Value eff = r.require("effect");
    std::string effect = eff.as_string();
    // EKS API spelling, as the module passes it through.
    check_one_of(eff, effect, {"NO_SCHEDULE", "NO_EXECUTE", "PREFER_NO_SCHEDULE"}, "taint effect");
    t.effect = effect;
    r.finish();
    out.push_back(t);
  }
  return out;
}

// EKS CreateNodegroup / UpdateNodegroupVersion refuse an instance type whose architecture is
// not the AMI type's, with InvalidParameterException "[t4g.medium] is not a valid instance type
// for requested amiType BOTTLEROCKET_x86_64". A type without a price in the region cannot be
// billed: an error naming type and region unless `cluster.pricing` gives one.
void check_instance_types(const NodeGroupSpec& spec, const ClusterSpec& cluster, const aws::InstanceCatalog& catalog,
                          const Value& at) {
  const std::string& ami = spec.ami_type;
  const bool arm = ami.find("ARM_64") != std::string::npos;
  const bool custom = ami == "CUSTOM";
  const aws::PriceBook prices(cluster.region, cluster.pricing);
  for (const auto& name : spec.instance_types) {
    const aws::InstanceType* t = catalog.find(name);
    if (!t) continue;
    if (!custom && t->arch != (arm ? "arm64" : "amd64"))
      at.fail("InvalidParameterException: [" + name + "] is not a valid instance type for requested amiType " + ami);
    const bool spot = spec.capacity_type == "SPOT";
    if (!prices.on_demand(*t))
      at.fail("no On-Demand price for " + name + " in " + cluster.region +
              " (the catalog prices every type in us-east-1 and GovCloud, the FACTS.md types in ap-northeast-2); "
              "give one in cluster.pricing.file (region,instanceType,capacityType,usdPerHour)");
    if (spot && !prices.spot(*t))
      at.fail("no Spot price for " + name + " in " + cluster.region + "; give one in cluster.pricing.file");
  }
}

const std::vector<std::string>& ami_types() {
  // EKS CreateNodegroup amiType values.
  static const std::vector<std::string> types{
      "AL2_x86_64", "AL2_x86_64_GPU", "AL2_ARM_64", "CUSTOM", "BOTTLEROCKET_ARM_64", "BOTTLEROCKET_x86_64",
      "BOTTLEROCKET_ARM_64_NVIDIA", "BOTTLEROCKET_x86_64_NVIDIA", "AL2023_x86_64_STANDARD", "AL2023_ARM_64_STANDARD",
      "AL2023_x86_64_NEURON", "AL2023_x86_64_NVIDIA", "AL2023_ARM_64_NVIDIA", "WINDOWS_CORE_2019_x86_64",
      "WINDOWS_FULL_2019_x86_64", "WINDOWS_CORE_2022_x86_64", "WINDOWS_FULL_2022_x86_64"};
  return types;
}

std::vector<std::string> read_instance_types(const Value& x, const aws::InstanceCatalog& catalog) {
  std::vector<std::string> out;
  for (const auto& item : x.items()) {
    std::string t = item.as_string();
    if (!catalog.find(t)) {
      std::string hint = did_you_mean(t, catalog.names());
      item.fail("unknown instance type \"" + t + "\"" + (hint.empty() ? "" : "; did you mean \"" + hint + "\"?") +
                " (eksim catalog lists the known types)");
    }
    out.push_back(t);
  }
  if (out.empty()) x.fail("instance_types must name at least one type");
  return out;
}

std::vector<std::string> read_subnet_ids(const Value& x, const ClusterSpec& cluster) {
  std::vector<std::string> out;
  for (const auto& item : x.items()) {
    std::string id = item.as_string();
    std::vector<std::string> ids;
    bool found = false;
    for (const auto& s : cluster.subnets) {
      ids.push_back(s.id);
      found |= s.id == id;
    }
    if (!found) {
      std::string hint = did_you_mean(id, ids);
      item.fail("unknown subnet \"" + id + "\"" + (hint.empty() ? "" : "; did you mean \"" + hint + "\"?"));
    }
    out.push_back(id);
  }
  return out;
}

void read_update_config(const Value& x, NodeGroupSpec& spec) {
  MapReader u(x, "update_config");
  if (auto m = u.get("max_unavailable")) spec.max_unavailable = m->as_non_negative();
  if (auto m = u.get("max_unavailable_percentage")) {
    spec.max_unavailable_percentage = m->as_non_negative();
    if (*spec.max_unavailable_percentage < 1 || *spec.max_unavailable_percentage > 100)
      m->fail("max_unavailable_percentage must be 1-100");
  }
  u.finish();
  if (spec.max_unavailable && spec.max_unavailable_percentage)
    x.fail("update_config takes max_unavailable or max_unavailable_percentage, not both");
}

// A node group's reader that records which keys were given (for terraform.apply's change set).
struct NodeGroupKeys {
  MapReader r;
  std::set<std::string> given;
  std::optional<Value> get(const char* key) {
    auto x = r.get(key);
    if (x) given.insert(key);
    return x;
  }
};

// Sizes, networking, IAM and the other scalars of a node group, in the module's key order.
void read_node_group_settings(NodeGroupKeys& k, const ClusterSpec& cluster, NodeGroupSpec& spec) {
  if (auto x = k.get("capacity_type")) {
    spec.capacity_type = x->as_string();
    check_one_of(*x, spec.capacity_type, {"ON_DEMAND", "SPOT", "CAPACITY_BLOCK"}, "capacity_type");
  }
  if (auto x = k.get("min_size")) spec.min_size = x->as_int_in(0, kMaxNodes, "a node count");
  if (auto x = k.get("max_size")) {
    spec.max_size = x->as_int_in(0, kMaxNodes, "a node count");
    if (spec.max_size < 1) x->fail("max_size must be at least 1 (EKS: maxSize >= 1)");
  }
  if (auto x = k.get("desired_size")) spec.desired_size = x->as_int_in(0, kMaxNodes, "a node count");
  if (auto x = k.get("subnet_ids")) spec.subnet_ids = read_subnet_ids(*x, cluster);
  if (auto x = k.get("labels")) spec.labels = x->as_string_map();
  if (auto x = k.get("taints")) spec.taints = read_taints(*x);
  if (auto x = k.get("tags")) spec.tags = x->as_string_map();
  if (auto x = k.get("vpc_security_group_ids")) {
    spec.vpc_security_group_ids.clear();
    for (const auto& item : x->items()) {
      check_security_group_exists(cluster, item.as_string(), item);
      spec.vpc_security_group_ids.push_back(item.as_string());
    }
  }
  if (auto x = k.get("iam_role_name")) spec.iam_role_name = x->as_string();
  if (auto x = k.get("iam_role_arn")) {
    std::string arn = x->as_string();
    spec.iam_role_name = arn.substr(arn.rfind('/') + 1);
  }
  if (auto x = k.get("iam_role_attach_cni_policy")) spec.iam_role_attach_cni_policy = x->as_bool();
  if (auto x = k.get("disk_size")) spec.disk_size_gib = x->as_int_in(1, kMaxRootVolumeGiB, "an EBS volume size in GiB");
  if (auto x = k.get("enable_efa_support")) spec.enable_efa_support = x->as_bool();
  if (auto x = k.get("enable_bootstrap_user_data")) spec.enable_bootstrap_user_data = x->as_bool();
}

}  // namespace

std::set<std::string> read_node_group_into(const Value& v, const ClusterSpec& cluster, NodeGroupSpec& spec,
                                           bool creating) {
  const auto& catalog = aws::InstanceCatalog::builtin();
  NodeGroupKeys k{MapReader(v, "node group \"" + spec.name + "\""), {}};
  std::optional<Value> types_at = k.get("instance_types");
  if (types_at) spec.instance_types = read_instance_types(*types_at, catalog);
  std::optional<Value> ami_at = k.get("ami_type");
  if (ami_at) {
    spec.ami_type = ami_at->as_string();
    check_one_of(*ami_at, spec.ami_type, ami_types(), "ami_type");
  }
  read_node_group_settings(k, cluster, spec);
  // The kubelet's settings come from the user data as a whole: new user data replaces them.
  // bootstrap_extra_args after ami_type and enable_bootstrap_user_data, which decide its meaning.
  auto cloudinit = k.get("cloudinit_pre_nodeadm");
  auto extra_args = k.get("bootstrap_extra_args");
  if (cloudinit || extra_args) spec.kubelet = {};
  if (cloudinit) read_cloudinit_pre_nodeadm(*cloudinit, spec);
  if (extra_args) read_bootstrap_extra_args(*extra_args, spec);
  if (auto x = k.get("update_config")) read_update_config(*x, spec);
  // Module arguments that exist but change nothing the simulator models.
  k.r.allow({"name", "use_name_prefix", "description", "ami_id", "ami_release_version", "use_latest_ami_release_version",
             "pre_bootstrap_user_data", "post_bootstrap_user_data",
             "cloudinit_post_nodeadm", "ebs_optimized", "block_device_mappings", "metadata_options", "enable_monitoring",
             "create_iam_role", "iam_role_additional_policies", "iam_role_use_name_prefix",
             "create_launch_template", "use_custom_launch_template", "launch_template_name", "launch_template_tags",
             "launch_template_use_name_prefix", "force_update_version", "remote_access", "key_name",
             "labels_update", "timeouts", "cluster_version", "kubernetes_version", "create", "attach_cluster_primary_security_group"});
  if (cluster.module_semantics) {
    for (const auto& [key, where] : k.r.unread_keys()) spec.ignored_keys.push_back(key);
  } else {
    k.r.finish();
  }
  if (types_at || ami_at) check_instance_types(spec, cluster, catalog, types_at ? *types_at : *ami_at);
  // Sizes are validated as EKS validates CreateNodegroup; on an existing group desired_size is
  // ignored by the module (lifecycle ignore_changes), so only min/max matter there.
  if (creating) {
    aws::GroupSizes sizes{spec.min_size, spec.max_size, spec.desired_size};
    if (auto err = aws::validate_create_nodegroup_scaling(sizes)) v.fail(err->code + ": " + err->message);
  }
  if (spec.min_size > spec.max_size)
    v.fail("min_size " + std::to_string(spec.min_size) + " can't be greater than max_size " + std::to_string(spec.max_size));
  return k.given;
}

void check_node_group_name(const Value& at, const std::string& name) {
  if (auto e = aws::nodegroup_name_error(name)) at.fail(e->str() + " (node group \"" + name + "\")");
}

}  // namespace eksim::scenario
