#include "models/k8s/api/objects.hpp"

namespace eksim::k8s {

ResourceList pod_requests(const PodSpec& spec) {
  ResourceList total;
  for (const auto& c : spec.containers) total += c.requests;
  for (const auto& c : spec.init_containers) total.max_with(c.requests);
  return total;
}

std::string env_of(const Container& c, const std::string& name) {
  for (const auto& e : c.env)
    if (e.name == name) return e.value;
  return {};
}

void set_env(Container& c, const std::string& name, const std::string& value) {
  for (auto& e : c.env)
    if (e.name == name) {
      e.value = value;
      return;
    }
  c.env.push_back(EnvVar{name, value});
}

const OwnerReference* controller_ref(const ObjectMeta& meta) {
  for (const auto& o : meta.owner_references)
    if (o.controller) return &o;
  return nullptr;
}

const char* to_string(PodPhase p) {
  switch (p) {
    case PodPhase::Pending: return "Pending";
    case PodPhase::Running: return "Running";
    case PodPhase::Succeeded: return "Succeeded";
    case PodPhase::Failed: return "Failed";
    case PodPhase::Unknown: return "Unknown";
  }
  return "Unknown";
}

}  // namespace eksim::k8s
