#include "models/aws/nodegroup_spec.hpp"

namespace eksim::aws {

std::string kubernetes_taint_effect(const std::string& e) {
  if (e == "NO_SCHEDULE") return "NoSchedule";
  if (e == "NO_EXECUTE") return "NoExecute";
  if (e == "PREFER_NO_SCHEDULE") return "PreferNoSchedule";
  return e;
}

}  // namespace eksim::aws
