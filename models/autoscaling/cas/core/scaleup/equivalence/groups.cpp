#include "models/autoscaling/cas/core/scaleup/equivalence/groups.hpp"

#include <unordered_map>

namespace eksim::autoscaling::cas {

namespace {

// drain.ControllerRef: the owner reference with controller=true. eksim's references carry no
// uid; kind, namespace and name identify the controller.
const k8s::OwnerReference* controller_ref(const k8s::Pod& pod) {
  for (const auto& o : pod.meta.owner_references)
    if (o.controller) return &o;
  return nullptr;
}

}  // namespace

std::vector<PodEquivalenceGroup> build_pod_equivalence_groups(const k8s::ApiServer& api,
                                                              const std::vector<k8s::PodId>& pods,
                                                              std::vector<std::size_t>* group_of) {
  std::vector<PodEquivalenceGroup> groups;
  // Same controller, reflect.DeepEqual(labels) and PodSpecSemanticallyEqual(spec): for pending
  // pods, the same PodRecord::template_id (pods alike that the API server could not tell apart,
  // after a relabelling, form groups of their own that get the same answers).
  std::unordered_map<std::uint32_t, std::size_t> by_template;
  if (group_of) group_of->assign(pods.size(), 0);
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const k8s::PodRecord& rec = api.pod(pods[i]);
    std::size_t g = groups.size();
    if (controller_ref(rec.pod)) g = by_template.try_emplace(rec.template_id, groups.size()).first->second;
    if (g == groups.size()) groups.emplace_back();
    groups[g].pods.push_back(pods[i]);
    if (group_of) (*group_of)[i] = g;
  }
  return groups;
}

}  // namespace eksim::autoscaling::cas
