#pragma once
// The resource types `eksim serve` answers for, as discovery lists them: one table of built-in
// types plus a row per served version of each CustomResourceDefinition the cluster holds drives
// discovery, routing and OpenAPI, so a type is added in one place.
#include <optional>
#include <string>
#include <vector>

#include "models/k8s/api/custom_resources.hpp"

namespace eksim::serve {

struct ResourceType {
  std::string group;     // "" for the core group
  std::string version;   // "v1"
  std::string resource;  // plural: "pods"
  std::string singular;  // "pod"
  std::string kind;      // "Pod"
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> verbs;
  std::vector<std::string> categories;  // "all" for `kubectl get all`

  std::string group_version() const { return group.empty() ? version : group + "/" + version; }
  std::string list_kind() const { return kind + "List"; }
};

// The built-in types (the API server's own groups).
const std::vector<ResourceType>& resource_types();
// The built-in types and those the cluster's CustomResourceDefinitions serve now.
std::vector<ResourceType> served_types(const k8s::CustomResources& crds);
// By group and plural name; nullopt when the server does not serve it (now).
std::optional<ResourceType> find_resource_type(const k8s::CustomResources& crds, const std::string& group,
                                               const std::string& version, const std::string& resource);
// The type of a group's kind among `types`.
std::optional<ResourceType> find_kind(const std::vector<ResourceType>& types, const std::string& group, const std::string& kind);
// The group/versions served, core ("v1") first.
std::vector<std::string> group_versions(const std::vector<ResourceType>& types);

}  // namespace eksim::serve
