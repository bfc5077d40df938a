#pragma once
// The seam between Cluster Autoscaler's core and the cloud (cluster-autoscaler/cloudprovider/
// cloud_provider.go): node groups with their sizes, instances and templates, and the node group
// of a node. The core asks these questions only; cloudprovider/aws/ answers them from the ASG,
// EC2 and EKS models.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/k8s/api/api_server.hpp"
#include "models/k8s/api/objects.hpp"
#include "sim/engine/time.hpp"

namespace eksim::autoscaling::cas {

// An error the cloud returned to a call (code and the provider's text).
struct CloudError {
  std::string code;
  std::string message;
};

// InstanceErrorInfo of the placeholder instances a failed scale-up leaves.
struct InstanceErrorInfo {
  std::string error_class;  // OutOfResource, OtherErrorClass
  std::string code;
  std::string message;
};

// Instances asked for that the cloud could not provide since a scale-up request.
struct FailedScaleUp {
  std::int64_t placeholders = 0;
  InstanceErrorInfo error;
};

// An instance of a node group (Nodes()), running or starting.
struct Instance {
  std::string id;
  bool running = false;         // not terminated
  engine::SimTime launched_at;  // when the cloud started it
};

class NodeGroup {
 public:
  virtual ~NodeGroup() = default;
  virtual const std::string& id() const = 0;
  virtual std::int64_t min_size() const = 0;
  virtual std::int64_t max_size() const = 0;
  // The size the cloud is asked to keep; nullopt once the cloud no longer has the group.
  virtual std::optional<std::int64_t> target_size() const = 0;
  // IncreaseSize, stated as the new target.
  virtual std::optional<CloudError> set_target_size(std::int64_t size) = 0;
  // DeleteNodes: the instance goes and the target shrinks with it.
  virtual void delete_instance(const std::string& instance_id) = 0;
  // Nodes(): the group's instances, in the cloud's order.
  virtual std::vector<Instance> instances() const = 0;
  // Whether a node of the group has GPUs (the GPU custom-resources processor waits for them).
  virtual bool has_gpus() const = 0;
  // Whether TemplateNodeInfo can answer (the group exists and knows its instance type).
  virtual bool has_template() const = 0;
  // TemplateNodeInfo: a node of the group as the cloud describes it, named node_name.
  virtual std::optional<k8s::Node> template_node_info(const std::string& node_name) = 0;
  // PricingModel.NodePrice of one new node, per hour.
  virtual double node_price_per_hour() const = 0;
  // The instances asked for since `requested_at` that the cloud reported it cannot launch; each
  // failure is reported once.
  virtual std::optional<FailedScaleUp> failed_scale_up(std::optional<engine::SimTime> requested_at) = 0;
  // Gives the unfulfillable placeholders' capacity back (DeleteNodes on the placeholders).
  virtual void delete_placeholders() = 0;
};

class CloudProvider {
 public:
  virtual ~CloudProvider() = default;
  // Refresh: node groups rediscovered; pointers from an earlier refresh are gone.
  virtual void refresh() = 0;
  // NodeGroups, ordered by id.
  virtual const std::vector<NodeGroup*>& node_groups() const = 0;
  virtual NodeGroup* node_group(const std::string& id) const = 0;
  // NodeGroupForNode: nullptr for a node of no group CA manages.
  virtual NodeGroup* node_group_for_node(k8s::NodeId node) = 0;
  // The group CA manages that owns the instance, if any.
  virtual NodeGroup* node_group_for_instance(const std::string& instance_id) = 0;
  // DeleteNodes for a node CA finished draining: its instance goes and its group's target
  // shrinks (whether or not the group is still one CA manages).
  virtual void delete_instance(const std::string& instance_id) = 0;
  // Whether the instance exists and is not terminated.
  virtual bool instance_running(const std::string& instance_id) const = 0;
  // Whether the node's instance type has GPUs, whether or not CA manages its group (its GPUs
  // must be advertised before the node counts as ready).
  virtual bool gpu_node(k8s::NodeId node) = 0;
};

}  // namespace eksim::autoscaling::cas
