#pragma once
// The kinds kubectl's verbs name, as the API server knows them: their resource names and API
// groups (for its error texts), which are cluster-scoped, and which `kubectl.delete` accepts.
// Shared by the scenario reader (checking a timeline action) and the operations (sim/ops).
#include <string>
#include <vector>

namespace eksim::scenario {

// The API group a kind's resource is qualified with in the API server's messages
// (`deployments.apps "web" not found`); empty for the core group.
std::string api_group_of_kind(const std::string& kind);
// The plural resource name kubectl and the apiserver use in messages ("pods", "nodepools").
std::string resource_name_of_kind(const std::string& kind);
// The kinds kubectl_delete handles, and whether a kind is cluster-scoped (its objects have no
// namespace: kubectl ignores -n for them).
const std::vector<std::string>& deletable_kinds();
bool cluster_scoped_kind(const std::string& kind);

}  // namespace eksim::scenario
