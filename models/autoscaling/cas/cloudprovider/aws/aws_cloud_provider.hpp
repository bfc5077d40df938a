#pragma once
// The AWS cloud provider as CA sees it (cluster-autoscaler/cloudprovider/aws): node groups from
// ASG tag auto-discovery or --nodes (aws_manager.go, auto_scaling_groups.go), the node group of
// a node, DescribeNodegroup (aws_wrapper.go), node group templates and the placeholder
// instances of a failed scaling activity.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/autoscaling/cas/cloudprovider/aws/node_template.hpp"
#include "models/autoscaling/cas/cloudprovider/cloud_provider.hpp"
#include "models/autoscaling/cas/config/autoscaling_options.hpp"
#include "models/cluster/cluster.hpp"

namespace eksim::autoscaling::cas {

class AwsNodeGroup final : public NodeGroup {
 public:
  AwsNodeGroup(Cluster& cluster, const CasOptions& options, std::string asg_name, std::int64_t min, std::int64_t max);
  const std::string& id() const override { return id_; }
  std::int64_t min_size() const override { return min_; }
  std::int64_t max_size() const override { return max_; }
  std::optional<std::int64_t> target_size() const override;
  std::optional<CloudError> set_target_size(std::int64_t size) override;
  void delete_instance(const std::string& instance_id) override;
  std::vector<Instance> instances() const override;
  bool has_gpus() const override;
  bool has_template() const override;
  std::optional<k8s::Node> template_node_info(const std::string& node_name) override;
  double node_price_per_hour() const override;
  std::optional<FailedScaleUp> failed_scale_up(std::optional<engine::SimTime> requested_at) override;
  void delete_placeholders() override;

  // What a refresh keeps of the group it rediscovers.
  void keep_state_of(const AwsNodeGroup& old) { activities_seen_ = old.activities_seen_; }

 private:
  aws::AutoScalingGroup* asg() const { return c_.auto_scaling.find(id_); }
  std::optional<ManagedNodegroupInfo> describe_nodegroup() const;

  Cluster& c_;
  const CasOptions& o_;
  std::string id_;         // ASG name
  std::string nodegroup_;  // EKS managed node group name, if any
  std::int64_t min_ = 0, max_ = 0;
  std::size_t activities_seen_ = 0;  // index into the activity log already inspected
};

class AwsCloudProvider final : public CloudProvider {
 public:
  AwsCloudProvider(Cluster& cluster, const CasOptions& options) : c_(cluster), o_(options) {}
  void refresh() override;
  const std::vector<NodeGroup*>& node_groups() const override { return view_; }
  NodeGroup* node_group(const std::string& id) const override;
  NodeGroup* node_group_for_node(k8s::NodeId node) override;
  NodeGroup* node_group_for_instance(const std::string& instance_id) override;
  void delete_instance(const std::string& instance_id) override;
  bool instance_running(const std::string& instance_id) const override;
  bool gpu_node(k8s::NodeId node) override;

 private:
  bool discovered(const aws::AutoScalingGroup& asg) const;
  // The ASG that owns the node's instance, as an index into owner_names_ (cached per node: an
  // instance never changes owner); -1 for none.
  std::int32_t owner_index(k8s::NodeId id);

  Cluster& c_;
  const CasOptions& o_;
  std::vector<std::unique_ptr<AwsNodeGroup>> groups_;  // by id
  std::vector<NodeGroup*> view_;
  std::map<std::string, std::size_t> index_;  // id -> index into groups_
  // node (by NodeId) -> index into owner_names_ of its ASG, -1 for none, -2 not looked up yet
  std::vector<std::int32_t> node_owner_;
  std::vector<std::string> owner_names_;
  // Per owner, resolved once per refresh: its managed group and whether its type has GPUs.
  struct Owner {
    NodeGroup* group = nullptr;
    bool gpu = false;
  };
  std::vector<std::optional<Owner>> owners_;
  const Owner& owner(std::size_t index);
};

}  // namespace eksim::autoscaling::cas
