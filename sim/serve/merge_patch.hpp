#pragma once
// The patch types kubectl sends: JSON merge patch (RFC 7386: label, annotate, scale) and strategic
// merge patch (client-side apply, cordon, taint): lists of objects with a merge key (containers
// by name, ports by containerPort, ...) merge element-wise, with the $patch, $setElementOrder,
// $retainKeys and $deleteFromPrimitiveList directives.
#include <nlohmann/json.hpp>

namespace eksim::serve {

nlohmann::json json_merge_patch(nlohmann::json target, const nlohmann::json& patch);
// Throws std::invalid_argument on a malformed directive.
nlohmann::json strategic_merge_patch(nlohmann::json target, const nlohmann::json& patch);

}  // namespace eksim::serve
