#pragma once
// Pods made from a workload's template, as the controllers' pod control does
// (controller.GetPodFromTemplate): template labels and annotations, the spec, a controller owner
// reference, and a generateName suffix from the API server.
#include <string>

#include "models/k8s/api/api_server.hpp"

namespace eksim::k8s {

// The generateName suffix of a workload's pod. Workloads in the system namespaces (kube-system:
// the EKS add-ons, the autoscaler's controller; Karpenter's own namespace when it has one) each
// draw from a stream of their own: the API server's draws are one sequence in a real cluster
// too, but eksim keeps the names of the user's pods independent of which system pods the
// cluster runs and when their nodes join.
inline std::string pod_name_suffix(ApiServer& api, const std::string& ns, const std::string& generate_name) {
  if (!api.is_system_namespace(ns)) return api.random_suffix();
  return api.random_suffix("k8s/names/" + ns + "/" + generate_name);
}

inline Pod pod_from_template(ApiServer& api, const PodTemplate& tmpl, const std::string& ns,
                             const std::string& generate_name, OwnerReference owner) {
  Pod p;
  p.meta.ns = ns.empty() ? "default" : ns;
  p.meta.name = generate_name + pod_name_suffix(api, p.meta.ns, generate_name);
  p.meta.labels = tmpl.meta.labels;
  p.meta.annotations = tmpl.meta.annotations;
  p.run = tmpl.run;
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
