#include "sim/ops/kubectl_operations.hpp"

#include <algorithm>
#include <cctype>

#include "models/autoscaling/karpenter/controller.hpp"
#include "models/cluster/disruption_controller.hpp"
#include "models/k8s/controllers/daemonset_controller.hpp"
#include "models/k8s/controllers/job_controller.hpp"
#include "sim/ops/custom_resources.hpp"
#include "sim/scenario/kubectl_kinds.hpp"

namespace eksim::ops {

using scenario::api_group_of_kind;
using scenario::cluster_scoped_kind;
using scenario::resource_name_of_kind;

namespace {

KubectlError not_found(const std::string& kind, const std::string& name) {
  const std::string group = api_group_of_kind(kind);
  return {"NotFound", 404,
          resource_name_of_kind(kind) + (group.empty() ? "" : "." + group) + " \"" + name + "\" not found"};
}

std::optional<k8s::NodeId> live_node(Cluster& c, const std::string& name) {
  auto id = c.api.find_node(name);
  if (id && c.api.node(*id).deleted) return std::nullopt;
  return id;
}

}  // namespace

namespace {

autoscaling::karpenter::Controller* karpenter(Cluster& c) {
  return c.controllers.karpenter.get();
}

// The namespace controller's work, done at once: every object in the namespace is deleted (pods
// through their grace periods), then the namespace. eksim does not show the Terminating phase.
std::optional<KubectlError> delete_namespace(Cluster& c, const std::string& name) {
  // NamespaceLifecycle's immortal namespaces.
  for (const char* immortal : {"default", "kube-system", "kube-public"})
    if (name == immortal)
      return KubectlError{"Forbidden", 403, "namespaces \"" + name + "\" is forbidden: this namespace may not be deleted"};
  auto& names = c.api.namespaces();
  auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return not_found("Namespace", name);
  names.erase(it);
  std::vector<std::string> owners;
  for (const auto& d : c.api.deployments())
    if (!d.deleted && d.meta.ns == name) owners.push_back(d.meta.name);
  for (const auto& d : owners) c.deployments->remove(name, d);
  owners.clear();
  for (const auto& j : c.api.jobs())
    if (!j.deleted && j.meta.ns == name) owners.push_back(j.meta.name);
  for (const auto& j : owners) c.jobs->remove(name, j);
  owners.clear();
  for (const auto& ds : c.api.daemon_sets())
    if (!ds.deleted && ds.meta.ns == name) owners.push_back(ds.meta.name);
  for (const auto& ds : owners) c.daemon_sets->remove(name, ds);
  std::vector<k8s::PodId> pods;
  for (const auto& [key, id] : c.api.live_pods())
    if (c.api.pod(id).pod.meta.ns == name) pods.push_back(id);
  std::sort(pods.begin(), pods.end());  // the pod index is unordered: delete in creation order
  for (k8s::PodId p : pods) c.kubelet->delete_pod(p);
  owners.clear();
  for (const auto& [key, data] : c.api.config_maps())
    if (key.starts_with(name + "/")) owners.push_back(key.substr(name.size() + 1));
  for (const auto& cm : owners) c.api.delete_config_map(name, cm);
  owners.clear();
  for (const auto& b : c.controllers.pdb->budgets())
    if (b.spec.ns == name) owners.push_back(b.spec.name);
  for (const auto& b : owners) c.controllers.pdb->remove(name, b);
  c.api.custom_resources().delete_namespace(name);
  return std::nullopt;
}

}  // namespace

std::optional<KubectlError> kubectl_delete(Cluster& c, const std::string& kind, const std::string& ns,
                                           const std::string& name, std::optional<std::int64_t> grace_seconds) {
  if (kind == "Pod") {
    auto id = c.api.find_pod(ns, name);
    if (!id) return not_found(kind, name);
    c.kubelet->delete_pod(*id, grace_seconds);
    return std::nullopt;
  }
  if (kind == "Deployment") {
    if (!c.deployments->remove(ns, name)) return not_found(kind, name);
    return std::nullopt;
  }
  if (kind == "ReplicaSet") {
    if (!c.deployments->delete_replica_set(ns, name)) return not_found(kind, name);
    return std::nullopt;
  }
  if (kind == "Job") {
    if (!c.jobs->remove(ns, name)) return not_found(kind, name);
    return std::nullopt;
  }
  if (kind == "DaemonSet") {
    if (!c.daemon_sets->remove(ns, name)) return not_found(kind, name);
    return std::nullopt;
  }
  if (kind == "ConfigMap") {
    // Pods that mount it keep the files they read at start; a pod starting later finds none.
    if (!c.api.delete_config_map(ns, name)) return not_found(kind, name);
    return std::nullopt;
  }
  if (kind == "Service") {
    if (!c.api.services().remove(ns, name)) return not_found(kind, name);
    return std::nullopt;
  }
  if (kind == "PodDisruptionBudget") {
    // The disruption controller's budget, and the object as sent (what the API server lists).
    const bool budget = c.controllers.pdb->remove(ns, name);
    const bool kept = c.api.custom_resources().delete_object("policy", kind, ns, name);
    if (!budget && !kept) return not_found(kind, name);
    return std::nullopt;
  }
  if (kind == "Namespace") return delete_namespace(c, name);
  if (kind == "Node") {
    auto id = live_node(c, name);
    if (!id) return not_found(kind, name);
    // A Karpenter node's finalizer drains it and terminates its instance. Any other Node just
    // goes: its kubelet, already registered, does not register it again; the pod GC deletes its
    // pods and Cluster Autoscaler removes the instance as an unregistered node.
    if (auto* k = karpenter(c); k && k->delete_node(*id)) return std::nullopt;
    c.api.remove_node(*id);
    return std::nullopt;
  }
  // Karpenter's kinds: through Karpenter when it runs; else the API server holds them as sent.
  if (auto* k = karpenter(c)) {
    if (kind == "NodePool" && k->delete_node_pool(name)) return std::nullopt;
    if (kind == "NodeClaim" && k->delete_node_claim(name)) return std::nullopt;
    if ((kind == "EC2NodeClass" || kind == "NodeClass") && k->delete_node_class(kind, name)) return std::nullopt;
  }
  if (auto kept = delete_kept(c, kind, ns, name)) return *kept;
  return not_found(kind, name);
}

std::optional<KubectlError> kubectl_scale(Cluster& c, const std::string& kind, const std::string& ns,
                                          const std::string& name, std::int32_t replicas) {
  if (replicas < 0) return KubectlError{"Invalid", 422, "Scale.autoscaling \"" + name + "\" is invalid: spec.replicas: Invalid value: " + std::to_string(replicas) + ": must be greater than or equal to 0"};
  if (kind != "Deployment") return not_found(kind, name);
  for (const auto& d : c.api.deployments())
    if (!d.deleted && d.meta.ns == ns && d.meta.name == name) {
      c.deployments->scale(ns, name, replicas);
      return std::nullopt;
    }
  return not_found(kind, name);
}

std::optional<KubectlError> kubectl_cordon(Cluster& c, const std::string& node, bool unschedulable) {
  auto id = live_node(c, node);
  if (!id) return not_found("Node", node);
  k8s::NodeRecord& rec = c.api.node(*id);
  if (rec.node.unschedulable == unschedulable) return std::nullopt;
  rec.node.unschedulable = unschedulable;
  c.api.node_changed(*id, k8s::NodeChange::Updated);
  return std::nullopt;
}

std::optional<KubectlError> kubectl_drain(Cluster& c, const std::string& node) {
  if (auto err = kubectl_cordon(c, node, true)) return err;
  auto id = *live_node(c, node);
  std::vector<k8s::PodId> pods = c.api.node(id).pods;
  for (k8s::PodId p : pods) {
    const k8s::PodRecord& rec = c.api.pod(p);
    bool daemon = std::any_of(rec.pod.meta.owner_references.begin(), rec.pod.meta.owner_references.end(),
                              [](const k8s::OwnerReference& o) { return o.kind == "DaemonSet"; });
    if (!daemon && !rec.deleted && !rec.terminating) c.kubelet->delete_pod(p);
  }
  return std::nullopt;
}

std::optional<KubectlError> kubectl_label(Cluster& c, const std::string& kind, const std::string& ns,
                                          const std::string& name,
                                          const std::map<std::string, std::optional<std::string>>& labels) {
  auto apply = [&](k8s::Labels& target) {
    for (const auto& [k, v] : labels) {
      if (v) target[k] = *v;
      else target.erase(k);
    }
  };
  if (kind == "Node") {
    auto id = live_node(c, name);
    if (!id) return not_found(kind, name);
    apply(c.api.node(*id).node.meta.labels);
    c.api.node_changed(*id, k8s::NodeChange::Updated);
    return std::nullopt;
  }
  if (kind == "Pod") {
    auto id = c.api.find_pod(ns, name);
    if (!id) return not_found(kind, name);
    apply(c.api.pod(*id).pod.meta.labels);
    c.api.pod_updated(*id);
    return std::nullopt;
  }
  return KubectlError{"MethodNotAllowed", 405, "eksim: labelling " + resource_name_of_kind(kind) + " is not modelled (pods and nodes are)"};
}

std::optional<KubectlError> kubectl_taint(Cluster& c, const std::string& node, const std::vector<k8s::Taint>& add,
                                          const std::vector<std::string>& remove) {
  auto id = live_node(c, node);
  if (!id) return not_found("Node", node);
  std::vector<k8s::Taint> taints = c.api.node(*id).node.taints;
  for (const auto& r : remove) {
    auto colon = r.find(':');
    std::string key = r.substr(0, colon), effect = colon == std::string::npos ? "" : r.substr(colon + 1);
    auto before = taints.size();
    std::erase_if(taints, [&](const k8s::Taint& t) { return t.key == key && (effect.empty() || t.effect == effect); });
    if (taints.size() == before) return KubectlError{"NotFound", 404, "taint \"" + r + "\" not found"};
  }
  for (const auto& t : add) {
    auto it = std::find_if(taints.begin(), taints.end(), [&](const k8s::Taint& x) { return x.key == t.key && x.effect == t.effect; });
    if (it == taints.end()) taints.push_back(t);
    else *it = t;
  }
  return kubectl_set_taints(c, node, std::move(taints));
}

std::optional<KubectlError> kubectl_set_taints(Cluster& c, const std::string& node, std::vector<k8s::Taint> taints) {
  auto id = live_node(c, node);
  if (!id) return not_found("Node", node);
  k8s::NodeRecord& rec = c.api.node(*id);
  if (rec.node.taints == taints) return std::nullopt;
  rec.node.taints = std::move(taints);
  c.api.node_changed(*id, k8s::NodeChange::Updated);
  return std::nullopt;
}

}  // namespace eksim::ops
