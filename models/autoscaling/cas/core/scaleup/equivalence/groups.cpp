#include "models/autoscaling/cas/core/scaleup/equivalence/groups.hpp"

#include <unordered_map>

namespace eksim::autoscaling::cas {

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
    if (k8s::controller_ref(rec.pod.meta)) g = by_template.try_emplace(rec.template_id, groups.size()).first->second;
    if (g == groups.size()) groups.emplace_back();
    groups[g].pods.push_back(pods[i]);
    if (group_of) (*group_of)[i] = g;
  }
  return groups;
}

}  // namespace eksim::autoscaling::cas
