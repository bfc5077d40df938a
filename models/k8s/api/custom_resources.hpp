#pragma once
// apiextensions.k8s.io: the CustomResourceDefinitions the API server holds, which decide which
// custom kinds it serves (a NodePool is refused with `no matches for kind` until its CRD is
// created), and the objects the API server stores whole because eksim models nothing of them (a
// chart's ServiceAccounts, Secrets and RBAC, a custom resource of a CRD eksim does not simulate).
// Both live in the model, not in `eksim serve`, so the scenario runner and the controllers ask
// the same registry whether a kind is served.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/engine/time.hpp"

namespace eksim::k8s {

struct CrdVersion {
  std::string name;  // "v1"
  bool served = true;
  bool storage = true;
};

struct CustomResourceDefinition {
  std::string group, kind, plural, singular, list_kind;
  std::vector<std::string> short_names, categories;
  bool namespaced = false;
  std::vector<CrdVersion> versions;
  // The object as its creator sent it (with its schema), as JSON text; empty for the CRDs the
  // cluster starts with, which are rendered from the fields above.
  std::string object_json;
  engine::SimTime created;

  // metadata.name: plural.group, as the API server requires.
  std::string name() const { return plural + "." + group; }
  bool serves(const std::string& version) const;
};

// An object kept as sent (JSON text), listed back as the API server would.
struct RawObject {
  std::string group, version, kind, ns, name;
  std::string object_json;
  engine::SimTime created;
  std::int64_t generation = 1;
};

class CustomResources {
 public:
  // Creates or replaces (kubectl apply) a CRD; a replacement keeps its creation time.
  void put_crd(CustomResourceDefinition crd);
  // Removes the CRD and every stored object of its kind; false when there was none.
  bool delete_crd(const std::string& name);
  const CustomResourceDefinition* find_crd(const std::string& name) const;
  // The CRD serving group/version's kind, or nullptr (kubectl: no matches for kind).
  const CustomResourceDefinition* crd_for_kind(const std::string& group, const std::string& version,
                                               const std::string& kind) const;
  const std::map<std::string, CustomResourceDefinition>& crds() const { return crds_; }
  // Whether "group/version" + kind is a custom kind served now.
  bool serves(const std::string& api_version, const std::string& kind) const;

  // Stored objects, by group, kind, namespace and name. A replacement keeps the creation time and
  // bumps the generation when the object changed.
  void put_object(RawObject o);
  bool delete_object(const std::string& group, const std::string& kind, const std::string& ns, const std::string& name);
  const RawObject* find_object(const std::string& group, const std::string& kind, const std::string& ns,
                               const std::string& name) const;
  const std::map<std::string, RawObject>& objects() const { return objects_; }
  // Deletes every stored object in a namespace (the namespace controller).
  void delete_namespace(const std::string& ns);

 private:
  std::map<std::string, CustomResourceDefinition> crds_;  // by name
  std::map<std::string, RawObject> objects_;               // by object_key
};

// "group/Kind/namespace/name": objects of one kind sort together.
std::string raw_object_key(const std::string& group, const std::string& kind, const std::string& ns, const std::string& name);
// Splits "group/version" ("v1" for the core group).
std::pair<std::string, std::string> split_api_version(const std::string& api_version);

}  // namespace eksim::k8s
