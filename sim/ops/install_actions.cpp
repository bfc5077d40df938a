#include "sim/ops/install_actions.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "models/cluster/system_addons.hpp"
#include "sim/ops/actions.hpp"
#include "sim/scenario/kubectl_kinds.hpp"

namespace eksim::ops {

namespace {

void warn(Cluster& c, const k8s::ObjectRef& obj, const std::string& reason, const std::string& message, const char* source) {
  c.api.emit(k8s::EventType::Warning, reason, obj, message, source);
}

template <class Objects>
bool live_named(const Objects& objects, const std::string& ns, const std::string& name) {
  return std::any_of(objects.begin(), objects.end(),
                     [&](const auto& o) { return !o.deleted && o.meta.ns == ns && o.meta.name == name; });
}

// Whether the object a manifest names is already in the API server (the kinds eksim stores by
// name and namespace; others are created again as apply would).
bool exists(Cluster& c, const scenario::Manifest& m, std::string& ns, std::string& name) {
  auto in = [](const std::string& n) { return n.empty() ? std::string("default") : n; };
  if (const auto* o = std::get_if<scenario::NamespaceObject>(&m.object)) {
    name = o->meta.name;
    const auto& list = c.api.namespaces();
    return std::find(list.begin(), list.end(), name) != list.end();
  }
  if (const auto* o = std::get_if<k8s::Deployment>(&m.object)) {
    ns = in(o->meta.ns), name = o->meta.name;
    return live_named(c.api.deployments(), ns, name);
  }
  if (const auto* o = std::get_if<k8s::DaemonSet>(&m.object)) {
    ns = in(o->meta.ns), name = o->meta.name;
    return live_named(c.api.daemon_sets(), ns, name);
  }
  if (const auto* o = std::get_if<k8s::Pod>(&m.object)) {
    ns = in(o->meta.ns), name = o->meta.name;
    return c.api.find_pod(ns, name).has_value();
  }
  return false;
}

}  // namespace

void create_manifests(Cluster& c, const std::vector<scenario::Manifest>& manifests) {
  for (const auto& m : manifests) {
    std::string ns, name;
    if (!exists(c, m, ns, name)) {
      apply_manifests(c, {m});
      continue;
    }
    std::string resource = scenario::resource_name_of_kind(m.kind);
    const std::string group = scenario::api_group_of_kind(m.kind);
    if (!group.empty()) resource += "." + group;
    warn(c, {m.kind, ns, name}, "AlreadyExists", resource + " \"" + name + "\" already exists", "kubectl");
  }
}

void apply_terraform_addons(Cluster& c, const std::vector<AddonSpec>& addons) {
  for (const auto& a : addons) c.install_helm_addon(a);
}

void apply_eks_addon_action(Cluster& c, const scenario::Action& a) {
  const k8s::ObjectRef ref{"Addon", "", a.name};
  if (a.action == "eks.create-addon") {
    if (!create_eks_addon(c, a.name)) warn(c, ref, "ResourceInUseException", "Addon already exists.", "eks");
  } else if (!delete_eks_addon(c, a.name)) {
    warn(c, ref, "ResourceNotFoundException", "No addon: " + a.name + " found in cluster: " + c.spec().name, "eks");
  }
}

}  // namespace eksim::ops
