#pragma once
// Nodes the last planning pass found unremovable (cluster-autoscaler/core/scaledown/unremovable/
// nodes.go), with upstream's UnremovableReason (BlockedByPod, NoPlaceToMovePods,
// ScaleDownDisabledAnnotation, NotUnderutilized, NodeGroupMinSizeReached, NotUnneededOtherReason)
// and, for BlockedByPod, the blocking pod's reason and error text.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/autoscaling/cas/simulator/drainability/rules.hpp"
#include "models/k8s/api/api_server.hpp"

namespace eksim::autoscaling::cas {

struct UnremovableNode {
  std::string reason;
  std::optional<BlockingPod> blocking_pod;
};

class UnremovableNodes {
 public:
  void clear() {
    nodes_.clear();
    by_name_.reset();
  }
  void add(k8s::NodeId node, const char* reason, std::optional<BlockingPod> blocking_pod = std::nullopt) {
    nodes_.push_back({node, reason, std::move(blocking_pod)});
  }
  // By node name; built only when asked for.
  const std::map<std::string, UnremovableNode>& by_name(const k8s::ApiServer& api) const;

 private:
  struct Entry {
    k8s::NodeId node;
    const char* reason;
    std::optional<BlockingPod> blocking_pod;
  };
  std::vector<Entry> nodes_;
  mutable std::optional<std::map<std::string, UnremovableNode>> by_name_;
};

}  // namespace eksim::autoscaling::cas
