#pragma once
// The simulated cluster's Kubernetes state: the objects an API server would store, plus the
// notification bus controllers watch (informers in the real system). Controllers never call each
// other; they change objects here and react to the notifications.
//
// Objects live in deques (stable addresses) and are referred to by typed ids; deleted objects
// keep their slot with `deleted = true`, so an id never dangles.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/k8s/api/admission.hpp"
#include "models/k8s/api/custom_resources.hpp"
#include "models/k8s/api/objects.hpp"
#include "models/k8s/api/services.hpp"
#include "models/k8s/api/workloads.hpp"
#include "models/k8s/events/event_log.hpp"
#include "sim/engine/rng.hpp"
#include "sim/engine/simulator.hpp"

namespace eksim::k8s {

struct PodId {
  std::uint32_t v = UINT32_MAX;
  bool valid() const { return v != UINT32_MAX; }
  auto operator<=>(const PodId&) const = default;
};
struct NodeId {
  std::uint32_t v = UINT32_MAX;
  bool valid() const { return v != UINT32_MAX; }
  auto operator<=>(const NodeId&) const = default;
};

struct PodRecord {
  Pod pod;
  NodeId node;           // bound node, invalid while unscheduled
  bool deleted = false;  // removed from the API (after termination)
  bool terminating = false;
  engine::SimTime terminating_since;  // metadata.deletionTimestamp's instant, once terminating
  // Pods a controller created with equal labels and specs share it (ApiServer::intern_template);
  // a pod whose labels change gets an id of its own. Only binding writes a spec afterwards, and
  // only its nodeName: for pods not yet bound, equal ids mean the same controller, labels and spec.
  std::uint32_t template_id = 0;
};

struct NodeRecord {
  Node node;
  bool deleted = false;
  std::optional<engine::SimTime> registered_at;
  std::optional<engine::SimTime> ready_at;
  std::optional<engine::SimTime> deleted_at;
  std::string instance_id;  // backing machine (EC2 instance), for reports and billing
  std::string node_group;   // EKS managed node group, if any
  std::string node_pool;    // Karpenter NodePool, if any
  std::string capacity_type;  // on-demand | spot
  std::vector<PodId> pods;  // bound, not deleted
};

// Why the bus fired; controllers filter on what could change their decisions (the scheduler's
// queueing hints upstream).
enum class NodeChange { Added, Ready, Updated, Deleted };

class ApiServer {
 public:
  ApiServer(engine::Simulator& sim, k8s::EventLog& log, engine::RngStreams& rng) : sim_(sim), log_(log), rng_(rng) {}

  engine::Simulator& sim() { return sim_; }
  k8s::EventLog& log() { return log_; }
  engine::RngStreams& rng() { return rng_; }
  engine::SimTime now() const { return sim_.now(); }

  // --- pods
  PodId create_pod(Pod pod);  // fills uid and creationTimestamp, notifies on_pod_added
  PodRecord& pod(PodId id) { return pods_[id.v]; }
  const PodRecord& pod(PodId id) const { return pods_[id.v]; }
  std::optional<PodId> find_pod(const std::string& ns, const std::string& name) const;
  std::size_t pod_slots() const { return pods_.size(); }
  // The pods not yet removed from the API, by "ns/name": what a count over the cluster's pods
  // walks, instead of every pod slot of the run (PodGC bounds this, history does not).
  // In no particular order (a hash map: 100,000 creates cost no ordered-tree string compares).
  const std::unordered_map<std::string, PodId>& live_pods() const { return pod_index_; }
  void bind(PodId pod, NodeId node);  // sets spec.nodeName, notifies on_pod_bound
  // Sets the pod's deletionTimestamp (graceful deletion began) and notifies on_pod_terminating:
  // ReplicaSets stop counting a terminating pod and create its replacement at once
  // (controller.FilterActivePods), while the old containers still stop.
  void mark_terminating(PodId pod);
  // Marks the pod gone from the API (after its containers stopped) and notifies on_pod_deleted.
  void remove_pod(PodId pod);
  // Shrinks a removed pod to what the report reads (name, owners, phase and times, node, summed
  // requests): a week of pods would otherwise keep every spec. Only for pods nothing reads again.
  void compact_removed_pod(PodId pod);
  // Phase changes go through here so that workload controllers hear about them.
  void set_pod_phase(PodId pod, PodPhase phase, std::string reason = {});

  // --- nodes
  NodeId register_node(NodeRecord record);
  NodeRecord& node(NodeId id) { return nodes_[id.v]; }
  const NodeRecord& node(NodeId id) const { return nodes_[id.v]; }
  std::optional<NodeId> find_node(const std::string& name) const;
  std::size_t node_slots() const { return nodes_.size(); }
  // NodeRecord::deleted without touching the record: controllers ask it of every node they
  // track on every pass.
  bool node_deleted(NodeId id) const { return node_deleted_[id.v]; }
  // A pod's labels or annotations were written (kubectl label, apply): an informer's Update.
  void pod_updated(PodId id);
  void node_changed(NodeId id, NodeChange change);  // after a controller edits a node
  void remove_node(NodeId id);

  // --- workloads (owners of pods)
  std::deque<Deployment>& deployments() { return deployments_; }
  std::deque<Job>& jobs() { return jobs_; }
  std::deque<DaemonSet>& daemon_sets() { return daemon_sets_; }
  std::vector<std::string>& namespaces() { return namespaces_; }
  // CustomResourceDefinitions (which custom kinds are served) and the objects kept whole.
  CustomResources& custom_resources() { return custom_resources_; }
  const CustomResources& custom_resources() const { return custom_resources_; }
  const std::vector<std::string>& namespaces() const { return namespaces_; }
  // Namespaces eksim installs system workloads into (pod_factory.hpp names their pods apart).
  void add_system_namespace(const std::string& ns);
  bool is_system_namespace(const std::string& ns) const {
    return std::find(system_namespaces_.begin(), system_namespaces_.end(), ns) != system_namespaces_.end();
  }
  // ConfigMaps as applied: "ns/name" -> data. Programs that read them as mounted files look
  // them up here when their containers start.
  std::map<std::string, std::map<std::string, std::string>>& config_maps() { return config_maps_; }
  const std::map<std::string, std::map<std::string, std::string>>& config_maps() const { return config_maps_; }
  // Creates or replaces a ConfigMap as an apply does: the data and labels are replaced, the
  // creation time is the first apply's.
  void put_config_map(const std::string& ns, const std::string& name, std::map<std::string, std::string> data,
                      Labels labels = {});
  bool delete_config_map(const std::string& ns, const std::string& name) {
    config_map_meta_.erase(ns + "/" + name);
    return config_maps_.erase(ns + "/" + name) > 0;
  }
  // The ConfigMap's metadata (name, namespace, labels, creation time), if it went through
  // put_config_map.
  const ObjectMeta* config_map_meta(const std::string& key) const {
    auto it = config_map_meta_.find(key);
    return it == config_map_meta_.end() ? nullptr : &it->second;
  }

  // Services and their ClusterIPs.
  ServiceRegistry& services() { return services_; }
  const ServiceRegistry& services() const { return services_; }
  // Creates or replaces a Service, its address drawn from the allocator's own stream.
  const Service& apply_service(Service s) { return services_.apply(std::move(s), rng_.get("k8s/service-ips"), now()); }

  // --- events (all components emit through here, so the object reference is uniform)
  void emit(k8s::EventType type, std::string_view reason, const k8s::ObjectRef& object, std::string_view message,
            std::string_view source);
  static k8s::ObjectRef ref(const Pod& p) { return {"Pod", p.meta.ns, p.meta.name}; }
  static k8s::ObjectRef ref(const Node& n) { return {"Node", "", n.meta.name}; }

  // A random lowercase-alphanumeric suffix as the API server's generateName gives
  // ("gpu-pool-6csft"), drawn from the "k8s/names" stream unless another is named (eksim keeps
  // some system objects' names off the user's stream, pod_factory.hpp).
  std::string random_suffix(const std::string& stream = "k8s/names");
  std::string new_uid();

  // --- notification bus
  std::vector<std::function<void(PodId)>> on_pod_added;
  std::vector<std::function<void(PodId)>> on_pod_bound;
  std::vector<std::function<void(PodId)>> on_pod_phase;
  std::vector<std::function<void(PodId)>> on_pod_terminating;
  std::vector<std::function<void(PodId)>> on_pod_deleted;
  std::vector<std::function<void(PodId)>> on_pod_updated;
  std::vector<std::function<void(NodeId, NodeChange)>> on_node;

 private:
  // A template id for a new pod: a controller's pods are compared with the few distinct labels
  // and specs it created last (a template changes rarely), other pods get an id of their own.
  // Comparing once at creation spares the autoscalers comparing every pending pod on every scan.
  std::uint32_t intern_template(const Pod& pod);
  // The pod left the API: its controller's templates are forgotten with its last pod (a
  // finished Job's, a deleted ReplicaSet's), so a week of Jobs does not keep a spec per Job.
  void release_template(const Pod& pod);
  struct InternedTemplate {
    Labels labels;
    PodSpec spec;
    std::uint32_t id;
  };
  struct OwnerTemplates {
    std::vector<InternedTemplate> known;  // oldest first
    std::size_t live_pods = 0;
  };
  static constexpr std::size_t kTemplatesPerOwner = 4;
  // "Kind/ns/name" of a pod's controller, built in a buffer each call reuses: a valid reference
  // until the next call.
  const std::string& owner_key(const Pod& pod, const OwnerReference& owner);
  std::string owner_key_;
  std::unordered_map<std::string, OwnerTemplates> templates_by_owner_;
  std::uint32_t template_ids_ = 0;
  engine::Simulator& sim_;
  k8s::EventLog& log_;
  engine::RngStreams& rng_;
  std::deque<PodRecord> pods_;
  std::deque<NodeRecord> nodes_;
  std::unordered_map<std::string, PodId> pod_index_;  // "ns/name" of live pods
  std::vector<bool> node_deleted_;            // by NodeId, as NodeRecord::deleted
  std::map<std::string, NodeId> node_index_;  // name of live nodes
  std::deque<Deployment> deployments_;
  std::deque<Job> jobs_;
  std::deque<DaemonSet> daemon_sets_;
  std::vector<std::string> namespaces_{"default", "kube-system"};
  std::vector<std::string> system_namespaces_{"kube-system"};
  std::map<std::string, std::map<std::string, std::string>> config_maps_;
  std::map<std::string, ObjectMeta> config_map_meta_;
  ServiceRegistry services_;
  CustomResources custom_resources_;
  std::uint64_t uid_counter_ = 0;
  Admission admission_;
};

}  // namespace eksim::k8s
