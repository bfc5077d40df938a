#include "models/aws/nodegroup_spec.hpp"

#include <algorithm>

namespace eksim::aws {

std::string kubernetes_taint_effect(const std::string& e) {
  if (e == "NO_SCHEDULE") return "NoSchedule";
  if (e == "NO_EXECUTE") return "NoExecute";
  if (e == "PREFER_NO_SCHEDULE") return "PreferNoSchedule";
  return e;
}

namespace {
bool ascii_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
}  // namespace

std::optional<AwsError> nodegroup_name_error(std::string_view name) {
  if (name.size() > 63) return AwsError{"InvalidParameterException", "nodeGroupName can't be longer than 63 characters!"};
  bool valid = !name.empty() && ascii_alnum(name.front()) &&
               std::all_of(name.begin(), name.end(), [](char c) { return ascii_alnum(c) || c == '-' || c == '_'; });
  if (valid) return std::nullopt;
  return AwsError{"InvalidParameterException",
                  "The nodegroup name parameter contains invalid characters. It should begin with letter or digit and "
                  "can have any of the following characters: the set of Unicode letters, digits, hyphens and underscores."};
}

}  // namespace eksim::aws
