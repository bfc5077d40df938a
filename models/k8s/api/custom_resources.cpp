#include "models/k8s/api/custom_resources.hpp"

#include <algorithm>

namespace eksim::k8s {

bool CustomResourceDefinition::serves(const std::string& version) const {
  return std::any_of(versions.begin(), versions.end(), [&](const CrdVersion& v) { return v.name == version && v.served; });
}

std::string raw_object_key(const std::string& group, const std::string& kind, const std::string& ns, const std::string& name) {
  return group + "/" + kind + "/" + ns + "/" + name;
}

std::pair<std::string, std::string> split_api_version(const std::string& api_version) {
  auto slash = api_version.find('/');
  if (slash == std::string::npos) return {"", api_version};
  return {api_version.substr(0, slash), api_version.substr(slash + 1)};
}

void CustomResources::put_crd(CustomResourceDefinition crd) {
  auto it = crds_.find(crd.name());
  if (it != crds_.end()) crd.created = it->second.created;
  crds_[crd.name()] = std::move(crd);
}

bool CustomResources::delete_crd(const std::string& name) {
  auto it = crds_.find(name);
  if (it == crds_.end()) return false;
  // The apiextensions finalizer deletes the CRD's objects before the CRD goes.
  const std::string prefix = it->second.group + "/" + it->second.kind + "/";
  for (auto o = objects_.lower_bound(prefix); o != objects_.end() && o->first.starts_with(prefix);) o = objects_.erase(o);
  crds_.erase(it);
  return true;
}

const CustomResourceDefinition* CustomResources::find_crd(const std::string& name) const {
  auto it = crds_.find(name);
  return it == crds_.end() ? nullptr : &it->second;
}

const CustomResourceDefinition* CustomResources::crd_for_kind(const std::string& group, const std::string& version,
                                                              const std::string& kind) const {
  for (const auto& [name, crd] : crds_)
    if (crd.group == group && crd.kind == kind && crd.serves(version)) return &crd;
  return nullptr;
}

bool CustomResources::serves(const std::string& api_version, const std::string& kind) const {
  auto [group, version] = split_api_version(api_version);
  return crd_for_kind(group, version, kind) != nullptr;
}

void CustomResources::put_object(RawObject o) {
  const std::string key = raw_object_key(o.group, o.kind, o.ns, o.name);
  auto it = objects_.find(key);
  if (it != objects_.end()) {
    o.created = it->second.created;
    o.generation = it->second.generation + (it->second.object_json == o.object_json ? 0 : 1);
  }
  objects_[key] = std::move(o);
}

bool CustomResources::delete_object(const std::string& group, const std::string& kind, const std::string& ns,
                                    const std::string& name) {
  return objects_.erase(raw_object_key(group, kind, ns, name)) > 0;
}

const RawObject* CustomResources::find_object(const std::string& group, const std::string& kind, const std::string& ns,
                                              const std::string& name) const {
  auto it = objects_.find(raw_object_key(group, kind, ns, name));
  return it == objects_.end() ? nullptr : &it->second;
}

void CustomResources::delete_namespace(const std::string& ns) {
  std::erase_if(objects_, [&](const auto& kv) { return kv.second.ns == ns; });
}

}  // namespace eksim::k8s
