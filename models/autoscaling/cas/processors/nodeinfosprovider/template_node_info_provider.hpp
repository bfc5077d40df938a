#pragma once
// Template nodes of node groups (cluster-autoscaler/processors/nodeinfosprovider/
// mixed_nodeinfos_processor.go): a live, ready node of the group when there is one (its labels,
// taints and allocatable, renamed, without transient taints), else the cloud provider's
// TemplateNodeInfo (scale from zero).
#include <cstdint>
#include <optional>
#include <vector>

#include "models/autoscaling/cas/context/autoscaling_context.hpp"
#include "models/autoscaling/cas/core/scaledown/deletiontracker/node_deletion_tracker.hpp"

namespace eksim::autoscaling::cas {

class TemplateNodeInfoProvider {
 public:
  TemplateNodeInfoProvider(AutoscalingContext& ctx, const NodeDeletionTracker& deletions)
      : ctx_(ctx), deletions_(deletions) {}
  // Each template gets a name of its own ("<group>-asg-<n>").
  std::optional<k8s::Node> template_node(NodeGroup& group, const std::vector<LiveNode>& nodes);

 private:
  AutoscalingContext& ctx_;
  const NodeDeletionTracker& deletions_;
  std::uint64_t counter_ = 0;
};

}  // namespace eksim::autoscaling::cas
