#include "models/autoscaling/cas/processors/nodeinfosprovider/template_node_info_provider.hpp"

#include "models/autoscaling/cas/core/scaledown/actuation/drain.hpp"

namespace eksim::autoscaling::cas {

namespace {

// TemplateNodeInfoFromExampleNodeInfo: a live node's labels, taints and allocatable, renamed,
// without the transient taints.
k8s::Node sanitize_template(const k8s::Node& live, const std::string& node_name) {
  k8s::Node n = live;
  n.meta.name = node_name;
  n.meta.labels[k8s::kLabelHostname] = node_name;
  std::erase_if(n.taints, [](const k8s::Taint& t) {
    return t.key.rfind("node.kubernetes.io/", 0) == 0 || t.key == kTaintToBeDeleted ||
           t.key == "DeletionCandidateOfClusterAutoscaler";
  });
  n.unschedulable = false;
  n.ready = true;
  return n;
}

}  // namespace

std::optional<k8s::Node> TemplateNodeInfoProvider::template_node(NodeGroup& group, const std::vector<LiveNode>& nodes) {
  if (!group.has_template()) return std::nullopt;
  std::string node_name = group.id() + "-asg-" + std::to_string(++counter_);
  const bool gpus = group.has_gpus();
  for (const LiveNode& ln : nodes) {
    if (!ln.group || ln.group->id() != group.id()) continue;
    const k8s::NodeRecord& rec = ctx_.cluster.api.node(ln.id);
    if (rec.deleted || !rec.node.ready || deletions_.is_deleting(rec.node.meta.name)) continue;
    if (gpus && rec.node.allocatable.get(k8s::kNvidiaGpu) == 0) continue;
    return sanitize_template(rec.node, node_name);
  }
  return group.template_node_info(node_name);
}

}  // namespace eksim::autoscaling::cas
