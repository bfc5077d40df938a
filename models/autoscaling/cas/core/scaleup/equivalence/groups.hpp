#pragma once
// Pod equivalence groups of the scale-up simulation (cluster-autoscaler/core/scaleup/
// equivalence/groups.go): pods with the same controller, the same labels and semantically equal
// specs schedule the same way, so a node group's template node is tested once per group, not
// once per pod.
#include <cstddef>
#include <vector>

#include "models/k8s/api/api_server.hpp"

namespace eksim::autoscaling::cas {

struct PodEquivalenceGroup {
  std::vector<k8s::PodId> pods;  // in the order given; pods.front() is the representative
};

// Groups the pods; a pod without a controller is a group of its own. Groups are returned in the
// order of their first pod. group_of, when given, receives each pod's group index (by position).
std::vector<PodEquivalenceGroup> build_pod_equivalence_groups(const k8s::ApiServer& api,
                                                              const std::vector<k8s::PodId>& pods,
                                                              std::vector<std::size_t>* group_of = nullptr);

}  // namespace eksim::autoscaling::cas
