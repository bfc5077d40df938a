#include "models/autoscaling/cas/core/scaledown/unremovable/nodes.hpp"

namespace eksim::autoscaling::cas {

const std::map<std::string, UnremovableNode>& UnremovableNodes::by_name(const k8s::ApiServer& api) const {
  if (!by_name_) {
    by_name_.emplace();
    for (const auto& u : nodes_) (*by_name_)[api.node(u.node).node.meta.name] = UnremovableNode{u.reason, u.blocking_pod};
  }
  return *by_name_;
}

}  // namespace eksim::autoscaling::cas
