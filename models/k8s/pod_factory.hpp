#pragma once
// Pods made from a workload's template, as the controllers' pod control does
// (controller.GetPodFromTemplate): template labels and annotations, the spec, a controller owner
// reference, and a generateName suffix from the API server.
#include <string>

#include "models/k8s/api_server.hpp"

namespace eksim::k8s {

inline Pod pod_from_template(ApiServer& api, const PodTemplate& tmpl, const std::string& ns,
                             const std::string& generate_name, OwnerReference owner) {
  Pod p;
  p.meta.name = generate_name + api.random_suffix();
  p.meta.ns = ns.empty() ? "default" : ns;
  p.meta.labels = tmpl.meta.labels;
  p.meta.annotations = tmpl.meta.annotations;
  p.meta.owner_references.push_back(std::move(owner));
  p.spec = tmpl.spec;
  p.spec.node_name.clear();
  return p;
}

inline bool owned_by(const Pod& pod, const std::string& kind, const std::string& name) {
  for (const auto& o : pod.meta.owner_references)
    if (o.controller && o.kind == kind && o.name == name) return true;
  return false;
}

inline bool pod_active(const PodRecord& r) {
  return !r.deleted && !r.terminating && r.pod.status.phase != PodPhase::Succeeded &&
         r.pod.status.phase != PodPhase::Failed;
}

}  // namespace eksim::k8s
