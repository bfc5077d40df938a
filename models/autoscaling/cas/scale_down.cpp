#include "models/autoscaling/cas/scale_down.hpp"

#include <algorithm>

#include "models/k8s/node_lifecycle.hpp"

namespace eksim::autoscaling::cas {

namespace {
double ratio(std::int64_t used, std::int64_t total) {
  return total > 0 ? static_cast<double>(used) / static_cast<double>(total) : 0.0;
}
bool terminal(const k8s::Pod& p) {
  return p.status.phase == k8s::PodPhase::Succeeded || p.status.phase == k8s::PodPhase::Failed;
}
}  // namespace

Utilization node_utilization(const k8s::NodeInfo& info, bool gpu_expected) {
  Utilization u;
  // NodeInfo.requested already leaves out terminal pods. DaemonSet pods count
  // (--ignore-daemonsets-utilization defaults to false).
  u.cpu = ratio(info.requested.get(k8s::kCpu), info.node.allocatable.get(k8s::kCpu));
  u.memory = ratio(info.requested.get(k8s::kMemory), info.node.allocatable.get(k8s::kMemory));
  std::int64_t gpus = info.node.allocatable.get(k8s::kNvidiaGpu);
  u.gpu_node = gpus > 0 || gpu_expected;
  u.gpu = ratio(info.requested.get(k8s::kNvidiaGpu), gpus);
  u.value = u.gpu_node ? u.gpu : std::max(u.cpu, u.memory);
  return u;
}

bool pod_needs_move(const k8s::Pod& pod) { return !terminal(pod) && !k8s::is_daemonset_pod(pod); }

std::optional<std::string> blocking_reason(const k8s::Pod& pod, const DrainOptions& options) {
  if (!pod_needs_move(pod)) return std::nullopt;
  auto ann = pod.meta.annotations.find(kAnnotationSafeToEvict);
  if (ann != pod.meta.annotations.end()) {
    if (ann->second == "true") return std::nullopt;
    if (ann->second == "false") return std::string("NotSafeToEvictAnnotation");
  }
  bool controlled = std::any_of(pod.meta.owner_references.begin(), pod.meta.owner_references.end(),
                                [](const k8s::OwnerReference& o) { return o.controller; });
  if (!controlled) return std::string("NotReplicated");
  // No PodDisruptionBudgets exist in the model, so every kube-system pod lacks one.
  if (options.skip_nodes_with_system_pods && pod.meta.ns == "kube-system") return std::string("UnmovableKubeSystemPod");
  return std::nullopt;
}

}  // namespace eksim::autoscaling::cas
