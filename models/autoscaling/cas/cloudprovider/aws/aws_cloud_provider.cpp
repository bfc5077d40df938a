#include "models/autoscaling/cas/cloudprovider/aws/aws_cloud_provider.hpp"

#include <algorithm>
#include <set>

namespace eksim::autoscaling::cas {

namespace {

// cloudprovider/aws/aws_cloud_provider.go: the error CA attaches to placeholder instances of a
// group whose scaling activity failed.
constexpr const char* kPlaceholderErrorCode = "placeholder-cannot-be-fulfilled";
constexpr const char* kPlaceholderErrorMessage = "AWS cannot provision any more instances for this node group";

bool gpu_type(const aws::AutoScalingGroup& asg) {
  return !asg.launch_template.instance_types.empty() && asg.launch_template.instance_types.front()->gpu.count > 0;
}

}  // namespace

// --- a node group -----------------------------------------------------------------------------

AwsNodeGroup::AwsNodeGroup(Cluster& cluster, const CasOptions& options, std::string asg_name, std::int64_t min,
                           std::int64_t max)
    : c_(cluster), o_(options), id_(std::move(asg_name)), min_(min), max_(max) {
  if (const aws::ManagedNodegroup* ng = c_.eks.by_asg(id_)) nodegroup_ = ng->spec.name;
}

std::optional<std::int64_t> AwsNodeGroup::target_size() const {
  const aws::AutoScalingGroup* g = asg();
  return g ? std::optional<std::int64_t>(g->sizes.desired) : std::nullopt;
}

std::optional<CloudError> AwsNodeGroup::set_target_size(std::int64_t size) {
  if (auto err = c_.auto_scaling.set_desired_capacity(id_, size)) return CloudError{err->code, err->message};
  // A failure the group reports from now on belongs to this request.
  activities_seen_ = c_.activities.size();
  return std::nullopt;
}

void AwsNodeGroup::delete_instance(const std::string& instance_id) {
  c_.auto_scaling.terminate_instance(instance_id, /*decrement_desired=*/true);  // TerminateInstanceInAutoScalingGroup
}

std::vector<Instance> AwsNodeGroup::instances() const {
  std::vector<Instance> out;
  const aws::AutoScalingGroup* g = asg();
  if (!g) return out;
  out.reserve(g->instances.size());
  for (const std::string& iid : g->instances) {
    Instance i;
    i.id = iid;
    if (const aws::Instance* inst = c_.ec2.find(iid)) {
      i.running = inst->alive();
      i.launched_at = inst->launched_at;
    }
    out.push_back(std::move(i));
  }
  return out;
}

bool AwsNodeGroup::has_gpus() const {
  const aws::AutoScalingGroup* g = asg();
  return g && gpu_type(*g);
}

bool AwsNodeGroup::has_template() const {
  const aws::AutoScalingGroup* g = asg();
  return g && !g->launch_template.instance_types.empty();
}

double AwsNodeGroup::node_price_per_hour() const {
  const aws::AutoScalingGroup* g = asg();
  return c_.prices().hourly(*g->launch_template.instance_types.front(), g->launch_template.spot);
}

std::optional<ManagedNodegroupInfo> AwsNodeGroup::describe_nodegroup() const {
  // Without eks:DescribeNodegroup the call fails with AccessDenied; CA logs it, caches an empty
  // answer and builds the template from the ASG tags alone.
  if (!o_.describe_nodegroup_allowed || nodegroup_.empty()) return std::nullopt;
  const aws::ManagedNodegroup* ng = c_.eks.find(nodegroup_);
  if (!ng) return std::nullopt;
  ManagedNodegroupInfo info;
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

std::optional<k8s::Node> AwsNodeGroup::template_node_info(const std::string& node_name) {
  const aws::AutoScalingGroup* g = asg();
  if (!g || g->launch_template.instance_types.empty()) return std::nullopt;
  TemplateInput in;
  in.type = g->launch_template.instance_types.front();
  in.asg_name = id_;
  in.region = c_.spec().region;
  if (!g->subnet_ids.empty())
    if (const aws::Subnet* s = c_.ec2.subnet(g->subnet_ids.front())) in.zone = s->az;
  in.tags = g->tags;
  in.managed = describe_nodegroup();
  in.node_name = node_name;
  return build_node_from_template(in);
}

std::optional<FailedScaleUp> AwsNodeGroup::failed_scale_up(std::optional<engine::SimTime> requested_at) {
  auto& acts = c_.activities;
  bool failed = false;
  for (std::size_t i = activities_seen_; i < acts.size(); ++i)
    if (acts[i].resource == id_ && acts[i].status == "Failed" && requested_at && acts[i].start >= *requested_at)
      failed = true;
  activities_seen_ = acts.size();
  if (!failed) return std::nullopt;
  const aws::AutoScalingGroup* g = asg();
  if (!g) return std::nullopt;
  std::int64_t placeholders = g->sizes.desired - static_cast<std::int64_t>(g->instances.size());
  if (placeholders <= 0) return std::nullopt;
  return FailedScaleUp{placeholders, {"OutOfResource", kPlaceholderErrorCode, kPlaceholderErrorMessage}};
}

void AwsNodeGroup::delete_placeholders() {
  if (const aws::AutoScalingGroup* g = asg())
    c_.auto_scaling.set_desired_capacity(id_, static_cast<std::int64_t>(g->instances.size()));
}

// --- discovery --------------------------------------------------------------------------------

bool AwsCloudProvider::discovered(const aws::AutoScalingGroup& asg) const {
  auto carries = [&](const AsgAutoDiscovery& spec) {
    return std::all_of(spec.tags.begin(), spec.tags.end(), [&](const auto& tag) {
      auto it = asg.tags.find(tag.first);
      return it != asg.tags.end() && (!tag.second || it->second == *tag.second);
    });
  };
  if (o_.node_group_auto_discovery.empty() && o_.nodes.empty())
    // The Helm chart's autoDiscovery.clusterName renders exactly this spec.
    return carries(AsgAutoDiscovery{{{"k8s.io/cluster-autoscaler/enabled", std::nullopt},
                                     {"k8s.io/cluster-autoscaler/" + c_.spec().name, std::nullopt}}});
  return std::any_of(o_.node_group_auto_discovery.begin(), o_.node_group_auto_discovery.end(), carries);
}

void AwsCloudProvider::refresh() {
  std::vector<std::unique_ptr<AwsNodeGroup>> next;
  auto keep = [&](const aws::AutoScalingGroup& asg, std::int64_t min, std::int64_t max) {
    next.push_back(std::make_unique<AwsNodeGroup>(c_, o_, asg.name, min, max));
    if (auto it = index_.find(asg.name); it != index_.end()) next.back()->keep_state_of(*groups_[it->second]);
  };
  for (const StaticNodeGroup& spec : o_.nodes)
    if (aws::AutoScalingGroup* asg = c_.auto_scaling.find(spec.name)) keep(*asg, spec.min_size, spec.max_size);
  std::set<std::string> named;
  for (const auto& g : next) named.insert(g->id());
  for (const auto& asg : c_.auto_scaling.groups()) {
    if (named.count(asg.name)) continue;
    if (discovered(asg)) keep(asg, asg.sizes.min_size, asg.sizes.max_size);
  }
  std::sort(next.begin(), next.end(), [](const auto& x, const auto& y) { return x->id() < y->id(); });
  groups_ = std::move(next);
  view_.clear();
  index_.clear();
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    view_.push_back(groups_[i].get());
    index_[groups_[i]->id()] = i;
  }
  owners_.clear();
}

NodeGroup* AwsCloudProvider::node_group(const std::string& id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : groups_[it->second].get();
}

// --- the group of a node ----------------------------------------------------------------------

std::int32_t AwsCloudProvider::owner_index(k8s::NodeId id) {
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

const AwsCloudProvider::Owner& AwsCloudProvider::owner(std::size_t index) {
  if (index >= owners_.size()) owners_.resize(owner_names_.size());
  std::optional<Owner>& o = owners_[index];
  if (!o) {
    o.emplace();
    if (aws::AutoScalingGroup* asg = c_.auto_scaling.find(owner_names_[index])) {
      o->group = node_group(asg->name);
      o->gpu = gpu_type(*asg);
    }
  }
  return *o;
}

NodeGroup* AwsCloudProvider::node_group_for_node(k8s::NodeId node) {
  std::int32_t k = owner_index(node);
  return k < 0 ? nullptr : owner(static_cast<std::size_t>(k)).group;
}

bool AwsCloudProvider::gpu_node(k8s::NodeId node) {
  std::int32_t k = owner_index(node);
  return k >= 0 && owner(static_cast<std::size_t>(k)).gpu;
}

NodeGroup* AwsCloudProvider::node_group_for_instance(const std::string& instance_id) {
  aws::AutoScalingGroup* asg = c_.auto_scaling.group_of(instance_id);
  return asg ? node_group(asg->name) : nullptr;
}

void AwsCloudProvider::delete_instance(const std::string& instance_id) {
  c_.auto_scaling.terminate_instance(instance_id, /*decrement_desired=*/true);
}

bool AwsCloudProvider::instance_running(const std::string& instance_id) const {
  const aws::Instance* inst = c_.ec2.find(instance_id);
  return inst && inst->alive();
}

}  // namespace eksim::autoscaling::cas
