// The AWS cloud provider as CA sees it (cluster-autoscaler/cloudprovider/aws): node groups from
// ASG tag auto-discovery or --nodes (aws_manager.go, auto_scaling_groups.go), the node group of
// a node, DescribeNodegroup (aws_wrapper.go) and node group templates.
#include <algorithm>
#include <set>
#include <sstream>

#include "models/autoscaling/cas/core/scaledown/actuation/drain.hpp"
#include "models/autoscaling/cluster_autoscaler.hpp"
#include "sim/engine/numbers.hpp"

namespace eksim::autoscaling {

bool ClusterAutoscaler::discovered(const aws::AutoScalingGroup& asg) const {
  std::vector<std::string> specs = o_.node_group_auto_discovery;
  if (specs.empty() && o_.nodes.empty())
    // The Helm chart's autoDiscovery.clusterName renders exactly this spec.
    specs.push_back("asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/" + c_.spec().name);
  for (const auto& spec : specs) {
    // parseASGAutoDiscoverySpec: "asg:tag=k1[=v1],k2[=v2]"; an ASG needs every tag.
    auto colon = spec.find(':');
    if (colon == std::string::npos || spec.substr(0, colon) != "asg") continue;
    std::string param = spec.substr(colon + 1);
    if (param.rfind("tag=", 0) != 0) continue;
    std::stringstream ss(param.substr(4));
    std::string item;
    bool all = true;
    while (std::getline(ss, item, ',')) {
      auto eq = item.find('=');
      std::string key = item.substr(0, eq);
      auto it = asg.tags.find(key);
      if (it == asg.tags.end() || (eq != std::string::npos && it->second != item.substr(eq + 1))) all = false;
    }
    if (all) return true;
  }
  return false;
}

void ClusterAutoscaler::refresh_groups() {
  std::vector<GroupState> next;
  auto keep = [&](const aws::AutoScalingGroup& asg, std::optional<std::pair<std::int64_t, std::int64_t>> bounds) {
    GroupState g;
    if (const GroupState* old = group_by_id(asg.name)) g = *old;
    g.id = asg.name;
    if (const aws::ManagedNodegroup* ng = c_.eks.by_asg(asg.name)) g.nodegroup = ng->spec.name;
    g.explicit_bounds = bounds.has_value();
    g.min = bounds ? bounds->first : asg.sizes.min_size;
    g.max = bounds ? bounds->second : asg.sizes.max_size;
    next.push_back(std::move(g));
  };
  for (const auto& spec : o_.nodes) {
    // --nodes min:max:name
    auto a = spec.find(':'), b = spec.find(':', a == std::string::npos ? 0 : a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string name = spec.substr(b + 1);
    auto lo = engine::parse_integer<std::int64_t>(std::string_view(spec).substr(0, a));
    auto hi = engine::parse_integer<std::int64_t>(std::string_view(spec).substr(a + 1, b - a - 1));
    if (!lo.ok() || !hi.ok()) continue;  // the scenario loader refuses these
    if (aws::AutoScalingGroup* asg = c_.auto_scaling.find(name)) keep(*asg, std::make_pair(lo.value, hi.value));
  }
  std::set<std::string> named;
  for (const auto& g : next) named.insert(g.id);
  for (const auto& asg : c_.auto_scaling.groups()) {
    if (named.count(asg.name)) continue;
    if (discovered(asg)) keep(asg, std::nullopt);
  }
  std::sort(next.begin(), next.end(), [](const GroupState& x, const GroupState& y) { return x.id < y.id; });
  groups_ = std::move(next);
  group_index_.clear();
  for (std::size_t i = 0; i < groups_.size(); ++i) group_index_[groups_[i].id] = i;
}

ClusterAutoscaler::GroupState* ClusterAutoscaler::group_by_id(const std::string& id) {
  auto it = group_index_.find(id);
  return it == group_index_.end() ? nullptr : &groups_[it->second];
}

std::int32_t ClusterAutoscaler::owner_index(k8s::NodeId id) {
  if (id.v >= node_owner_.size()) node_owner_.resize(id.v + 1, -2);
  std::int32_t& owner = node_owner_[id.v];
  if (owner == -2) {
    owner = -1;
    if (aws::AutoScalingGroup* g = c_.auto_scaling.group_of(c_.api.node(id).instance_id)) {
      auto it = std::find(owner_names_.begin(), owner_names_.end(), g->name);
      owner = static_cast<std::int32_t>(it - owner_names_.begin());
      if (it == owner_names_.end()) owner_names_.push_back(g->name);
    }
  }
  return owner;
}

const std::string* ClusterAutoscaler::owner_name(k8s::NodeId id) {
  std::int32_t owner = owner_index(id);
  return owner < 0 ? nullptr : &owner_names_[static_cast<std::size_t>(owner)];
}

aws::AutoScalingGroup* ClusterAutoscaler::owner_asg(k8s::NodeId id) {
  const std::string* name = owner_name(id);
  return name ? c_.auto_scaling.find(*name) : nullptr;
}

ClusterAutoscaler::GroupState* ClusterAutoscaler::group_of_node(k8s::NodeId id) {
  aws::AutoScalingGroup* owner = owner_asg(id);
  return owner ? group_by_id(owner->name) : nullptr;
}

bool ClusterAutoscaler::gpu_group(const GroupState& g) const {
  const aws::AutoScalingGroup* asg = const_cast<aws::AutoScaling&>(c_.auto_scaling).find(g.id);
  return asg && !asg->launch_template.instance_types.empty() && asg->launch_template.instance_types.front()->gpu.count > 0;
}

std::optional<cas::ManagedNodegroupInfo> ClusterAutoscaler::describe_nodegroup(const std::string& nodegroup) {
  // Without eks:DescribeNodegroup the call fails with AccessDenied; CA logs it, caches an empty
  // answer and builds the template from the ASG tags alone.
  if (!o_.describe_nodegroup_allowed || nodegroup.empty()) return std::nullopt;
  const aws::ManagedNodegroup* ng = c_.eks.find(nodegroup);
  if (!ng) return std::nullopt;
  cas::ManagedNodegroupInfo info;
  // aws_wrapper.go getManagedNodegroupInfo: diskSize, amiType, capacityType, k8sVersion, labels.
  info.labels["diskSize"] = std::to_string(ng->spec.disk_size_gib);
  info.labels["amiType"] = ng->spec.ami_type;
  info.labels["capacityType"] = ng->spec.capacity_type;
  info.labels["k8sVersion"] = c_.spec().kubernetes_version;
  for (const auto& [k, v] : ng->spec.labels) info.labels[k] = v;
  // Converted to Kubernetes effects (some CA releases passed EKS's NO_SCHEDULE through verbatim,
  // which the scheduler's filter then ignored).
  for (const auto& t : ng->spec.taints) info.taints.push_back(k8s::Taint{t.key, t.value, aws::kubernetes_taint_effect(t.effect)});
  return info;
}

namespace {

// TemplateNodeInfoFromExampleNodeInfo: a live node's labels, taints and allocatable, renamed,
// without the transient taints.
k8s::Node sanitize_template(const k8s::Node& live, const std::string& node_name) {
  k8s::Node n = live;
  n.meta.name = node_name;
  n.meta.labels[k8s::kLabelHostname] = node_name;
  std::erase_if(n.taints, [](const k8s::Taint& t) {
    return t.key.rfind("node.kubernetes.io/", 0) == 0 || t.key == cas::kTaintToBeDeleted ||
           t.key == "DeletionCandidateOfClusterAutoscaler";
  });
  n.unschedulable = false;
  n.ready = true;
  return n;
}

}  // namespace

std::optional<k8s::Node> ClusterAutoscaler::template_node(const GroupState& g) {
  std::vector<LiveNode> nodes;
  for (k8s::NodeId id : node_infos_.live()) {
    LiveNode n;
    n.id = id;
    n.group = group_of_node(id);
    nodes.push_back(n);
  }
  return template_node(g, nodes);
}

std::optional<k8s::Node> ClusterAutoscaler::template_node(const GroupState& g, const std::vector<LiveNode>& nodes) {
  aws::AutoScalingGroup* asg = c_.auto_scaling.find(g.id);
  if (!asg || asg->launch_template.instance_types.empty()) return std::nullopt;
  std::string node_name = g.id + "-asg-" + std::to_string(++template_counter_);
  // A live, usable node of the group is the better template (TemplateNodeInfoFromExampleNodeInfo).
  const aws::InstanceType* type = asg->launch_template.instance_types.front();
  for (const LiveNode& ln : nodes) {
    if (!ln.group || ln.group->id != g.id) continue;
    const k8s::NodeRecord& rec = c_.api.node(ln.id);
    if (rec.deleted || !rec.node.ready || deleting_.count(rec.node.meta.name)) continue;
    if (type->gpu.count > 0 && rec.node.allocatable.get(k8s::kNvidiaGpu) == 0) continue;
    return sanitize_template(rec.node, node_name);
  }
  cas::TemplateInput in;
  in.type = type;
  in.asg_name = g.id;
  in.region = c_.spec().region;
  if (!asg->subnet_ids.empty())
    if (const aws::Subnet* s = c_.ec2.subnet(asg->subnet_ids.front())) in.zone = s->az;
  in.tags = asg->tags;
  in.managed = describe_nodegroup(g.nodegroup);
  in.node_name = node_name;
  return cas::build_node_from_template(in);
}

}  // namespace eksim::autoscaling
