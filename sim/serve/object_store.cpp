#include "sim/serve/object_store.hpp"

namespace eksim::serve {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxLog = 20000;  // changes kept for watches that resume from an old list

}  // namespace

json ObjectStore::served(const StoredObject& o) {
  json out = o.object;
  out["metadata"]["resourceVersion"] = std::to_string(o.resource_version);
  return out;
}

void ObjectStore::sync(const Cluster& cluster, const TimeBase& time) {
  RenderContext ctx{cluster, time};
  std::map<std::string, ObjectMap> now;
  render_pods(ctx, now["pods"]);
  render_nodes(ctx, now["nodes"]);
  render_namespaces(ctx, now["namespaces"]);
  render_config_maps(ctx, now["configmaps"]);
  render_services(ctx, now["services"]);
  render_leases(ctx, now["coordination.k8s.io/leases"]);
  render_events(ctx, now["events"], now["events.k8s.io/events"]);
  render_workloads(ctx, now["apps/deployments"], now["apps/replicasets"], now["apps/daemonsets"], now["batch/jobs"]);
  render_crds(ctx, now["apiextensions.k8s.io/customresourcedefinitions"]);
  render_karpenter(ctx, now["karpenter.sh/nodepools"], now["karpenter.sh/nodeclaims"],
                   now["karpenter.k8s.aws/ec2nodeclasses"], now["eks.amazonaws.com/nodeclasses"]);
  render_kept_objects(ctx, now);
  for (auto& [type, extra] : metadata_) {
    auto& objects = now[type];
    for (auto it = extra.begin(); it != extra.end();) {
      auto obj = objects.find(it->first);
      if (obj == objects.end()) {
        it = extra.erase(it);
        continue;
      }
      for (const char* field : {"labels", "annotations"})
        if (it->second.contains(field)) obj->second["metadata"][field] = it->second[field];
      ++it;
    }
  }
  auto record = [&](const std::string& type, const char* what, const StoredObject& o) {
    WatchEvent e{o.resource_version, type, what, served(o)};
    log_.push_back(std::move(e));
    if (log_.size() > kMaxLog) {
      oldest_rv_ = log_.front().resource_version;
      log_.pop_front();
    }
    if (on_change) on_change(log_.back());
  };
  // A type nothing rendered this time (its last kept object deleted, its CRD gone) lost all its
  // objects.
  for (const auto& [type, stored] : types_) now[type];
  for (auto& [type, objects] : now) {
    auto& stored = types_[type];
    for (auto it = stored.begin(); it != stored.end();) {
      if (objects.count(it->first)) {
        ++it;
        continue;
      }
      StoredObject gone = it->second;
      gone.resource_version = ++rv_;
      it = stored.erase(it);
      record(type, "DELETED", gone);
    }
    for (auto& [key, obj] : objects) {
      auto it = stored.find(key);
      if (it == stored.end()) {
        StoredObject& o = stored[key];
        o.object = std::move(obj);
        o.resource_version = ++rv_;
        record(type, "ADDED", o);
      } else if (it->second.object != obj) {
        it->second.object = std::move(obj);
        it->second.resource_version = ++rv_;
        record(type, "MODIFIED", it->second);
      }
    }
  }
}

const std::map<std::string, StoredObject>& ObjectStore::objects(const std::string& type) const {
  static const std::map<std::string, StoredObject> empty;
  auto it = types_.find(type);
  return it == types_.end() ? empty : it->second;
}

const StoredObject* ObjectStore::find(const std::string& type, const std::string& ns, const std::string& name) const {
  const auto& objs = objects(type);
  auto it = objs.find(object_key(ns, name));
  return it == objs.end() ? nullptr : &it->second;
}

bool ObjectStore::changes_since(const std::string& type, std::uint64_t rv, std::vector<const WatchEvent*>& out) const {
  if (rv < oldest_rv_) return false;
  for (const auto& e : log_)
    if (e.resource_version > rv && e.resource == type) out.push_back(&e);
  return true;
}

}  // namespace eksim::serve
