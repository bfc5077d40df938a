#pragma once
// What the API server holds: the cluster rendered as API objects after each simulation slice,
// with a resourceVersion per object and a change log that watches replay from. Rendering the
// whole (lab-sized) cluster and diffing it keeps the models free of any API-server bookkeeping:
// the server only reads the model between slices.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "models/cluster/cluster.hpp"
#include "sim/serve/resources/render.hpp"

namespace eksim::serve {

struct StoredObject {
  nlohmann::json object;  // without metadata.resourceVersion
  std::uint64_t resource_version = 0;
};

struct WatchEvent {
  std::uint64_t resource_version = 0;
  std::string resource;  // store key of the type: "pods", "karpenter.sh/nodepools"
  std::string type;      // ADDED | MODIFIED | DELETED
  nlohmann::json object;  // with its resourceVersion
};

class ObjectStore {
 public:
  // The store key of a type: its plural, prefixed by "group/" outside the core group.
  static std::string type_key(const std::string& group, const std::string& resource) {
    return group.empty() ? resource : group + "/" + resource;
  }

  // Renders the cluster with the anchor `time` and records every change since the last sync.
  void sync(const Cluster& cluster, const TimeBase& time);

  std::uint64_t resource_version() const { return rv_; }
  const std::map<std::string, StoredObject>& objects(const std::string& type) const;
  const StoredObject* find(const std::string& type, const std::string& ns, const std::string& name) const;
  // The object as served: its resourceVersion filled in.
  static nlohmann::json served(const StoredObject& o);

  // Changes of a type after rv, oldest first; false when rv is older than the retained log (the
  // client must list again: 410 Expired).
  bool changes_since(const std::string& type, std::uint64_t rv, std::vector<const WatchEvent*>& out) const;
  // Metadata the API server keeps for objects whose model has no place for it (a NodePool's
  // labels and annotations, kubectl's last-applied-configuration among them): merged into the
  // rendered object at every sync, dropped once the object is gone.
  void set_metadata(const std::string& type, const std::string& key, nlohmann::json metadata) {
    metadata_[type][key] = std::move(metadata);
  }
  // Called for every change as sync records it (the watch streams).
  std::function<void(const WatchEvent&)> on_change;

 private:
  std::map<std::string, std::map<std::string, StoredObject>> types_;
  std::map<std::string, std::map<std::string, nlohmann::json>> metadata_;
  std::deque<WatchEvent> log_;
  std::uint64_t rv_ = 1000;
  std::uint64_t oldest_rv_ = 1000;  // changes after this are all in log_
};

}  // namespace eksim::serve
