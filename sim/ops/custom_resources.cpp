#include "sim/ops/custom_resources.hpp"

#include "models/autoscaling/karpenter/controller.hpp"
#include "sim/scenario/kubectl_kinds.hpp"

namespace eksim::ops {

void apply_crd(Cluster& c, const k8s::CustomResourceDefinition& crd) {
  k8s::CustomResourceDefinition next = crd;
  next.created = c.sim.now();
  c.api.custom_resources().put_crd(std::move(next));
}

void keep_object(Cluster& c, const scenario::Manifest& m) {
  auto [group, version] = k8s::split_api_version(m.api_version);
  k8s::RawObject o;
  o.group = group;
  o.version = version;
  o.kind = m.kind;
  o.object_json = m.object_json;
  o.created = c.sim.now();
  if (const auto* other = std::get_if<scenario::OtherObject>(&m.object)) {
    o.name = other->name;
    o.ns = other->ns;
  } else if (const auto* pool = std::get_if<autoscaling::karpenter::NodePool>(&m.object)) {
    o.name = pool->name;
  } else if (const auto* nc = std::get_if<autoscaling::karpenter::NodeClass>(&m.object)) {
    o.name = nc->name;
  } else if (const auto* pdb = std::get_if<scenario::PdbObject>(&m.object)) {
    o.name = pdb->pdb.name;
    o.ns = pdb->pdb.ns;
  }
  const k8s::CustomResourceDefinition* crd = c.api.custom_resources().crd_for_kind(group, version, m.kind);
  const bool namespaced = crd ? crd->namespaced : !scenario::cluster_scoped_kind(m.kind);
  if (!namespaced) o.ns.clear();
  else if (o.ns.empty()) o.ns = "default";
  c.api.custom_resources().put_object(std::move(o));
}

namespace {

// The objects Karpenter models of a CRD's kind go through Karpenter's own deletion (finalizers).
void delete_modelled(Cluster& c, const k8s::CustomResourceDefinition& crd) {
  autoscaling::karpenter::Controller* k = c.controllers.karpenter.get();
  if (!k) return;
  std::vector<std::string> names;
  if (crd.kind == "NodePool") {
    for (const auto& [name, pool] : k->node_pools()) names.push_back(name);
    for (const auto& n : names) k->delete_node_pool(n);
  } else if (crd.kind == "EC2NodeClass" || crd.kind == "NodeClass") {
    for (const auto& [name, nc] : k->node_classes())
      if (nc.kind == crd.kind) names.push_back(nc.name);
    for (const auto& n : names) k->delete_node_class(crd.kind, n);
  }
}

}  // namespace

std::optional<std::optional<KubectlError>> delete_kept(Cluster& c, const std::string& kind, const std::string& ns,
                                                       const std::string& name) {
  k8s::CustomResources& registry = c.api.custom_resources();
  if (kind == "CustomResourceDefinition") {
    const k8s::CustomResourceDefinition* crd = registry.find_crd(name);
    if (!crd) return KubectlError{"NotFound", 404, "customresourcedefinitions.apiextensions.k8s.io \"" + name + "\" not found"};
    delete_modelled(c, *crd);
    registry.delete_crd(name);
    return std::optional<KubectlError>{};
  }
  for (const auto& [key, o] : registry.objects())
    if (o.kind == kind && o.ns == ns && o.name == name) {
      registry.delete_object(o.group, o.kind, o.ns, o.name);
      return std::optional<KubectlError>{};
    }
  return std::nullopt;
}

}  // namespace eksim::ops
