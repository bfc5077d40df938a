#include "models/k8s/api/api_server.hpp"

#include <cstdio>

#include "models/k8s/api/admission.hpp"

namespace eksim::k8s {

namespace {
std::string pod_key(const std::string& ns, const std::string& name) { return ns + "/" + name; }
}  // namespace

std::string ApiServer::random_suffix(const std::string& stream) {
  // The alphabet of k8s.io/apimachinery/pkg/util/rand (no vowels, no confusable digits).
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  auto& r = rng_.get(stream);
  std::string out;
  for (int i = 0; i < 5; ++i) out += kAlphabet[r.below(sizeof(kAlphabet) - 1)];
  return out;
}

void ApiServer::add_system_namespace(const std::string& ns) {
  if (std::find(namespaces_.begin(), namespaces_.end(), ns) == namespaces_.end()) namespaces_.push_back(ns);
  if (!is_system_namespace(ns)) system_namespaces_.push_back(ns);
}

std::string ApiServer::new_uid() {
  // Deterministic UUID-shaped ids: a counter, not random, so adding a pod elsewhere shifts nothing
  // but the counter.
  char buf[40];
  ++uid_counter_;
  std::snprintf(buf, sizeof buf, "00000000-0000-4000-8000-%012llx", static_cast<unsigned long long>(uid_counter_));
  return buf;
}

PodId ApiServer::create_pod(Pod pod) {
  if (pod.meta.ns.empty()) pod.meta.ns = "default";
  // EKS's mutating admission (DefaultTolerationSeconds, ExtendedResourceToleration).
  admission_.admit(pod.spec);
  pod.meta.uid = new_uid();
  pod.meta.creation_timestamp = sim_.now();
  PodId id{static_cast<std::uint32_t>(pods_.size())};
  pod_index_[pod_key(pod.meta.ns, pod.meta.name)] = id;
  const std::uint32_t template_id = intern_template(pod);
  pods_.push_back(PodRecord{std::move(pod), {}, false, false, {}, template_id});
  for (auto& fn : on_pod_added) fn(id);
  return id;
}

const std::string& ApiServer::owner_key(const Pod& pod, const OwnerReference& owner) {
  return owner_key_.assign(owner.kind).append("/").append(pod.meta.ns).append("/").append(owner.name);
}

std::uint32_t ApiServer::intern_template(const Pod& pod) {
  const OwnerReference* owner = controller_ref(pod.meta);
  if (!owner) return ++template_ids_;
  OwnerTemplates& entry = templates_by_owner_[owner_key(pod, *owner)];
  ++entry.live_pods;
  auto& known = entry.known;
  for (auto it = known.rbegin(); it != known.rend(); ++it)
    if (it->spec == pod.spec && it->labels == pod.meta.labels) return it->id;
  if (known.size() == kTemplatesPerOwner) known.erase(known.begin());
  known.push_back({pod.meta.labels, pod.spec, ++template_ids_});
  return template_ids_;
}

void ApiServer::put_config_map(const std::string& ns, const std::string& name, std::map<std::string, std::string> data,
                               Labels labels) {
  // No uid from new_uid(): that sequence names pods, and a ConfigMap must not shift theirs.
  const std::string key = ns + "/" + name;
  auto [meta, created] = config_map_meta_.try_emplace(key);
  if (created) {
    meta->second.name = name;
    meta->second.ns = ns;
    meta->second.creation_timestamp = now();
  }
  meta->second.labels = std::move(labels);
  config_maps_[key] = std::move(data);
}

void ApiServer::release_template(const Pod& pod) {
  const OwnerReference* owner = controller_ref(pod.meta);
  if (!owner) return;
  auto it = templates_by_owner_.find(owner_key(pod, *owner));
  if (it != templates_by_owner_.end() && --it->second.live_pods == 0) templates_by_owner_.erase(it);
}

std::optional<PodId> ApiServer::find_pod(const std::string& ns, const std::string& name) const {
  auto it = pod_index_.find(pod_key(ns, name));
  if (it == pod_index_.end()) return std::nullopt;
  return it->second;
}

void ApiServer::bind(PodId id, NodeId node) {
  PodRecord& rec = pods_[id.v];
  rec.node = node;
  rec.pod.spec.node_name = nodes_[node.v].node.meta.name;
  rec.pod.status.scheduled_at = sim_.now();
  nodes_[node.v].pods.push_back(id);
  for (auto& fn : on_pod_bound) fn(id);
}

void ApiServer::mark_terminating(PodId id) {
  PodRecord& rec = pods_[id.v];
  if (rec.deleted || rec.terminating) return;
  rec.terminating = true;
  rec.terminating_since = sim_.now();
  for (auto& fn : on_pod_terminating) fn(id);
}

void ApiServer::remove_pod(PodId id) {
  PodRecord& rec = pods_[id.v];
  if (rec.deleted) return;
  rec.deleted = true;
  if (rec.node.valid()) {
    auto& list = nodes_[rec.node.v].pods;
    std::erase(list, id);
  }
  auto it = pod_index_.find(pod_key(rec.pod.meta.ns, rec.pod.meta.name));
  if (it != pod_index_.end() && it->second == id) pod_index_.erase(it);
  release_template(rec.pod);
  for (auto& fn : on_pod_deleted) fn(id);
}

void ApiServer::compact_removed_pod(PodId id) {
  PodRecord& rec = pods_[id.v];
  if (!rec.deleted) return;
  Pod& p = rec.pod;
  Container summed;
  summed.requests = pod_requests(p.spec);
  PodSpec spec;
  spec.containers.push_back(std::move(summed));
  spec.node_name = std::move(p.spec.node_name);
  spec.priority = p.spec.priority;
  spec.priority_class_name = std::move(p.spec.priority_class_name);
  spec.scheduler_name = std::move(p.spec.scheduler_name);
  spec.restart_policy = std::move(p.spec.restart_policy);
  spec.host_network = p.spec.host_network;
  p.spec = std::move(spec);
  p.meta.labels = {};
  p.meta.annotations = {};
  p.status.message = {};
}

void ApiServer::set_pod_phase(PodId id, PodPhase phase, std::string reason) {
  PodRecord& rec = pods_[id.v];
  // Reason changes inside a phase (ContainerCreating -> "", Running -> CrashLoopBackOff) are what
  // `kubectl get pods` shows, so they notify too.
  bool changed = rec.pod.status.phase != phase || rec.pod.status.reason != reason;
  rec.pod.status.phase = phase;
  rec.pod.status.reason = std::move(reason);
  if (changed)
    for (auto& fn : on_pod_phase) fn(id);
}

NodeId ApiServer::register_node(NodeRecord record) {
  NodeId id{static_cast<std::uint32_t>(nodes_.size())};
  record.node.meta.uid = new_uid();
  record.node.meta.creation_timestamp = sim_.now();
  record.registered_at = sim_.now();
  node_index_[record.node.meta.name] = id;
  node_deleted_.push_back(record.deleted);
  nodes_.push_back(std::move(record));
  node_changed(id, NodeChange::Added);
  return id;
}

std::optional<NodeId> ApiServer::find_node(const std::string& name) const {
  auto it = node_index_.find(name);
  if (it == node_index_.end()) return std::nullopt;
  return it->second;
}

void ApiServer::pod_updated(PodId id) {
  pods_[id.v].template_id = ++template_ids_;  // its labels may no longer be its controller's
  for (auto& fn : on_pod_updated) fn(id);
}

void ApiServer::node_changed(NodeId id, NodeChange change) {
  for (auto& fn : on_node) fn(id, change);
}

void ApiServer::remove_node(NodeId id) {
  NodeRecord& rec = nodes_[id.v];
  if (rec.deleted) return;
  rec.deleted = true;
  node_deleted_[id.v] = true;
  rec.deleted_at = sim_.now();
  rec.node.ready = false;
  node_index_.erase(rec.node.meta.name);
  node_changed(id, NodeChange::Deleted);
}

void ApiServer::emit(k8s::EventType type, std::string_view reason, const k8s::ObjectRef& object,
                     std::string_view message, std::string_view source) {
  log_.record(sim_.now(), type, reason, object, message, source);
}

}  // namespace eksim::k8s
