#include "models/autoscaling/cas/core/scaleup/equivalence/groups.hpp"

#include <map>
#include <string>
#include <tuple>

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
  // Controller -> the groups of its pods (representative's index into groups).
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<std::size_t>> by_controller;
  if (group_of) group_of->assign(pods.size(), 0);
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const k8s::PodRecord& rec = api.pod(pods[i]);
    const k8s::Pod& pod = rec.pod;
    std::size_t g = groups.size();
    if (const k8s::OwnerReference* ref = controller_ref(pod)) {
      auto& candidates = by_controller[{ref->kind, pod.meta.ns, ref->name}];
      for (std::size_t c : candidates) {
        const k8s::PodRecord& rep = api.pod(groups[c].pods.front());
        // reflect.DeepEqual(labels) && PodSpecSemanticallyEqual(spec): pending pods' specs are
        // equal when their spec ids are.
        if (rep.spec_id == rec.spec_id && rep.pod.meta.labels == pod.meta.labels) {
          g = c;
          break;
        }
      }
      if (g == groups.size()) candidates.push_back(g);
    }
    if (g == groups.size()) groups.emplace_back();
    groups[g].pods.push_back(pods[i]);
    if (group_of) (*group_of)[i] = g;
  }
  return groups;
}

}  // namespace eksim::autoscaling::cas
