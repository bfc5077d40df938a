#pragma once
// The resource types `eksim serve` answers for, as discovery lists them: one table drives
// discovery, routing and the OpenAPI stub, so a type is added in one place.
#include <string>
#include <vector>

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

const std::vector<ResourceType>& resource_types();
// By group and plural name; nullptr when eksim does not serve it.
const ResourceType* find_resource_type(const std::string& group, const std::string& version, const std::string& resource);
// The group/versions served, core ("v1") first.
std::vector<std::string> group_versions();

}  // namespace eksim::serve
