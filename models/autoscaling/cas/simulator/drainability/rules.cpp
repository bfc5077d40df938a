#include "models/autoscaling/cas/simulator/drainability/rules.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "models/k8s/kubelet/node_lifecycle.hpp"
#include "models/k8s/scheduling/predicates.hpp"

namespace eksim::autoscaling::cas {

namespace {
bool terminal(const k8s::Pod& p) {
  return p.status.phase == k8s::PodPhase::Succeeded || p.status.phase == k8s::PodPhase::Failed;
}
}  // namespace

bool pod_needs_move(const k8s::Pod& pod) { return !terminal(pod) && !k8s::is_daemonset_pod(pod); }

bool RemainingPdb::matches(const k8s::Pod& pod) const {
  const std::string& pns = pod.meta.ns.empty() ? std::string("default") : pod.meta.ns;
  return pns == ns && k8s::label_selector_matches(selector, pod.meta.labels);
}

bool has_blocking_local_storage(const k8s::Pod& pod) {
  std::set<std::string> safe;
  if (auto it = pod.meta.annotations.find(kAnnotationSafeToEvictLocalVolumes); it != pod.meta.annotations.end()) {
    std::stringstream ss(it->second);
    std::string name;
    while (std::getline(ss, name, ',')) safe.insert(name);
  }
  return std::any_of(pod.spec.volumes.begin(), pod.spec.volumes.end(), [&](const k8s::Volume& v) {
    return (v.source == "emptyDir" || v.source == "hostPath") && !safe.count(v.name);
  });
}

std::optional<BlockingPod> drain_blocker(const k8s::Pod& pod, const DrainOptions& options,
                                         const std::vector<RemainingPdb>& pdbs) {
  if (!pod_needs_move(pod)) return std::nullopt;  // daemonset and terminal rules
  auto ann = pod.meta.annotations.find(kAnnotationSafeToEvict);
  std::string safe = ann == pod.meta.annotations.end() ? "" : ann->second;
  if (safe == "true") return std::nullopt;  // safetoevict rule: drainable, later rules skipped
  const std::string ns = pod.meta.ns.empty() ? std::string("default") : pod.meta.ns;
  // Texts: simulator/drainability/rules/{replicated,system,notsafetoevict,localstorage,pdb}/rule.go.
  if (!k8s::controller_ref(pod.meta)) return BlockingPod{"NotReplicated", ns + "/" + pod.meta.name + " is not replicated"};
  if (options.skip_nodes_with_system_pods && ns == "kube-system" &&
      std::none_of(pdbs.begin(), pdbs.end(), [&](const RemainingPdb& p) { return p.matches(pod); }))
    return BlockingPod{"UnmovableKubeSystemPod",
                       "non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: " + pod.meta.name};
  if (safe == "false")
    return BlockingPod{"NotSafeToEvictAnnotation", "pod annotated as not safe to evict present: " + pod.meta.name};
  if (options.skip_nodes_with_local_storage && has_blocking_local_storage(pod))
    return BlockingPod{"LocalStorageRequested", "pod with local storage present: " + pod.meta.name};
  for (const auto& p : pdbs)
    if (p.matches(pod) && p.disruptions_allowed < 1)
      return BlockingPod{"NotEnoughPdb", "not enough pod disruption budget to move " + ns + "/" + pod.meta.name};
  return std::nullopt;
}

std::optional<std::string> blocking_reason(const k8s::Pod& pod, const DrainOptions& options) {
  if (auto b = drain_blocker(pod, options, {})) return b->reason;
  return std::nullopt;
}

}  // namespace eksim::autoscaling::cas
