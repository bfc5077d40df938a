#pragma once
// /version, legacy discovery (/api, /apis, /api/v1, /apis/<group>/<version>) and the small
// OpenAPI v3 document client-side `kubectl apply` checks for fieldValidation support
// (research/kubectl-api.md section 3). Aggregated discovery is not offered: every kubectl
// 1.27-1.33 falls back to the legacy documents when the answer is plain application/json.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/serve/resource_types.hpp"

namespace eksim::serve {

// minor "32" makes the kubectl dispatcher run kubectl 1.32 (1.29+ is needed for apply).
nlohmann::json version_info();
// The answer for a discovery or OpenAPI path, or nullopt when path is none of them.
// `types` are the types served now (resource_types.hpp: the built-in ones and the CRDs').
// A CRD's group/version document carries the schema the CRD was created with.
std::optional<nlohmann::json> discovery_document(const std::vector<ResourceType>& types, const k8s::CustomResources& crds,
                                                 const std::string& path);

}  // namespace eksim::serve
