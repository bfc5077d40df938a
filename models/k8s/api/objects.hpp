#pragma once
// Kubernetes objects with Kubernetes field names (snake_case in C++, the JSON name in comments
// where they differ). Only what the simulated controllers read is modelled; the scenario loader
// accepts the remaining standard fields and leaves them out.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/k8s/api/cow_vector.hpp"
#include "models/k8s/api/resources.hpp"
#include "sim/engine/time.hpp"

namespace eksim::k8s {

using Labels = std::map<std::string, std::string>;

struct OwnerReference {
  std::string kind;  // ReplicaSet, Job, DaemonSet, NodeClaim, ...
  std::string name;
  bool controller = true;
};

struct ObjectMeta {
  std::string name;
  std::string ns;  // "namespace"; empty for cluster-scoped objects
  std::string uid;
  Labels labels;
  Labels annotations;
  std::vector<OwnerReference> owner_references;
  engine::SimTime creation_timestamp;
};

// --- taints and tolerations -------------------------------------------------------------

inline constexpr const char* kNoSchedule = "NoSchedule";
inline constexpr const char* kPreferNoSchedule = "PreferNoSchedule";
inline constexpr const char* kNoExecute = "NoExecute";

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule | PreferNoSchedule | NoExecute
  bool operator==(const Taint&) const = default;
};

struct Toleration {
  std::string key;       // empty with operator Exists tolerates everything
  std::string op;        // "operator": Equal (default when empty) | Exists
  std::string value;
  std::string effect;    // empty matches every effect
  std::optional<std::int64_t> toleration_seconds;
  bool operator==(const Toleration&) const = default;
};

// --- selectors and affinity ---------------------------------------------------------------

// matchExpressions entry of a node selector: operator In, NotIn, Exists, DoesNotExist, Gt, Lt.
struct NodeSelectorRequirement {
  std::string key;
  std::string op;
  std::vector<std::string> values;
  bool operator==(const NodeSelectorRequirement&) const = default;
};

// Requirements inside a term are ANDed; terms of a NodeSelector are ORed.
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;  // only metadata.name is meaningful
  bool operator==(const NodeSelectorTerm&) const = default;
};

struct PreferredSchedulingTerm {
  std::int32_t weight = 0;
  NodeSelectorTerm preference;
  bool operator==(const PreferredSchedulingTerm&) const = default;
};

// matchExpressions entry of a label selector: In, NotIn, Exists, DoesNotExist.
struct LabelSelectorRequirement {
  std::string key;
  std::string op;
  std::vector<std::string> values;
  bool operator==(const LabelSelectorRequirement&) const = default;
};

struct LabelSelector {
  Labels match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
  bool operator==(const LabelSelector&) const = default;
};

struct PodAffinityTerm {
  LabelSelector label_selector;
  std::string topology_key;
  std::vector<std::string> namespaces;  // empty = the pod's own namespace
  bool operator==(const PodAffinityTerm&) const = default;
};

struct WeightedPodAffinityTerm {
  std::int32_t weight = 0;
  PodAffinityTerm term;
  bool operator==(const WeightedPodAffinityTerm&) const = default;
};

struct Affinity {
  // nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms; nullopt when
  // absent (an empty list of terms matches nothing, as upstream).
  std::optional<std::vector<NodeSelectorTerm>> node_required;
  std::vector<PreferredSchedulingTerm> node_preferred;
  std::vector<PodAffinityTerm> pod_affinity_required;
  std::vector<WeightedPodAffinityTerm> pod_affinity_preferred;
  std::vector<PodAffinityTerm> pod_anti_affinity_required;
  std::vector<WeightedPodAffinityTerm> pod_anti_affinity_preferred;
  bool operator==(const Affinity&) const = default;
};

struct TopologySpreadConstraint {
  std::int32_t max_skew = 1;
  std::string topology_key;
  std::string when_unsatisfiable = "DoNotSchedule";  // | ScheduleAnyway
  LabelSelector label_selector;
  std::optional<std::int32_t> min_domains;
  bool operator==(const TopologySpreadConstraint&) const = default;
};

// --- pods -----------------------------------------------------------------------------------

struct ContainerPort {
  std::int32_t container_port = 0;
  std::int32_t host_port = 0;  // 0 = none
  std::string protocol = "TCP";
  bool operator==(const ContainerPort&) const = default;
};

// A container's environment variable with a literal value (valueFrom sources are not read).
struct EnvVar {
  std::string name;
  std::string value;
  bool operator==(const EnvVar&) const = default;
};

// Where a container sees a pod volume (subPath and readOnly are not modelled).
struct VolumeMount {
  std::string name;
  std::string mount_path;
  bool operator==(const VolumeMount&) const = default;
};

struct Container {
  std::string name;
  std::string image;
  std::vector<std::string> command;
  std::vector<std::string> args;
  std::vector<EnvVar> env;  // what programs read flags from (FAIL_ON_INIT_ERROR, ...)
  ResourceList requests;  // after defaulting: a limit with no request implies the request
  ResourceList limits;
  std::vector<ContainerPort> ports;
  std::vector<VolumeMount> volume_mounts;  // where programs find their config files
  bool operator==(const Container&) const = default;
};

// The value of the container's variable `name` ("" when it has none), as a program reading its
// environment sees it.
std::string env_of(const Container& c, const std::string& name);
// Sets the variable, replacing its value if the container has it (the GPU Operator's
// setContainerEnv, how its ClusterPolicy values reach the operands).
void set_env(Container& c, const std::string& name, const std::string& value);

// A pod volume, as much as Cluster Autoscaler's drain rules need: its name and the kind of its
// source (the VolumeSource key: emptyDir, hostPath, persistentVolumeClaim, configMap, ...), and
// for a configMap source the ConfigMap's name (device plugins read their config files from one).
struct Volume {
  std::string name;
  std::string source;
  std::string config_map;
  bool operator==(const Volume&) const = default;
};

struct PodSpec {
  // Shared by the replicas of a template until one changes (copy-on-write), as are the
  // tolerations admission gives them all.
  CowVector<Container> init_containers;
  CowVector<Container> containers;
  Labels node_selector;
  Affinity affinity;
  CowVector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topology_spread_constraints;
  std::string restart_policy = "Always";  // Always | OnFailure | Never
  std::string priority_class_name;
  std::int32_t priority = 0;
  std::string node_name;
  std::string scheduler_name = "default-scheduler";
  std::int64_t termination_grace_period_seconds = 30;
  bool host_network = false;
  std::vector<Volume> volumes;
  bool operator==(const PodSpec&) const = default;
};

// Pod-level request: sum over app containers, at least the largest init container
// (resource.PodRequests upstream; no overhead, no sidecars).
ResourceList pod_requests(const PodSpec& spec);

enum class PodPhase { Pending, Running, Succeeded, Failed, Unknown };
const char* to_string(PodPhase p);

struct PodStatus {
  PodPhase phase = PodPhase::Pending;
  std::string reason;  // as `kubectl get pods` STATUS shows it: ContainerCreating, CrashLoopBackOff, ...
  std::string message;
  std::string nominated_node_name;
  std::optional<engine::SimTime> scheduled_at;
  std::optional<engine::SimTime> started_at;  // the first container start
  std::optional<engine::SimTime> finished_at;
  std::int32_t restart_count = 0;
  // The first container's latest run (containerStatuses[0].state startedAt) and, once the
  // kubelet has restarted it, the run that ended (lastState.terminated): `describe`'s Last State,
  // and the runs `kubectl logs` and `logs --previous` read.
  std::optional<engine::SimTime> container_started_at;
  struct Termination {
    engine::SimTime started_at;
    engine::SimTime finished_at;
    int exit_code = 0;
  };
  std::optional<Termination> last_termination;
};

// eksim's own annotations on a pod or its template (eksim.io/duration, exit-code, image-size,
// stop-time: how the simulated container behaves), decoded where the manifest is decoded
// (sim/scenario/run_annotations) so that models read numbers, never text. The annotations stay
// in meta as written, for `kubectl get -o yaml`; unset fields leave the kubelet's defaults.
inline constexpr const char* kAnnotationDuration = "eksim.io/duration";
inline constexpr const char* kAnnotationExitCode = "eksim.io/exit-code";
inline constexpr const char* kAnnotationImageSize = "eksim.io/image-size";  // bytes, decimal
// How long the container takes to stop on SIGTERM (Go duration); default: see KubeletConfig.
inline constexpr const char* kAnnotationStopTime = "eksim.io/stop-time";

struct RunAnnotations {
  std::optional<engine::Duration> duration;   // how long the container runs (0 to one year)
  std::optional<std::int32_t> exit_code;      // how it exits (0 to 255)
  std::optional<std::int64_t> image_size;     // bytes the kubelet pulls (1 to 1Ti)
  std::optional<engine::Duration> stop_time;  // how long it takes to stop once killed
  bool operator==(const RunAnnotations&) const = default;
};

struct Pod {
  ObjectMeta meta;
  PodSpec spec;
  PodStatus status;
  RunAnnotations run;
};

// metav1.GetControllerOf: the owner reference with controller=true, or nullptr. eksim's
// references carry no uid; kind, namespace and name identify the controller.
const OwnerReference* controller_ref(const ObjectMeta& meta);

// --- nodes ----------------------------------------------------------------------------------

struct Node {
  ObjectMeta meta;
  std::vector<Taint> taints;
  bool unschedulable = false;  // spec.unschedulable (cordon)
  std::string provider_id;     // aws:///ap-northeast-2a/i-0123...
  ResourceList capacity;
  ResourceList allocatable;
  bool ready = false;          // status.conditions[Ready]
  // status.conditions[Ready] reason and message as the kubelet posts them (KubeletNotReady +
  // the container runtime's NetworkReady=false text while the CNI is not initialised).
  std::string ready_reason;
  std::string ready_message;
};

// Well-known label keys.
inline constexpr const char* kLabelHostname = "kubernetes.io/hostname";
// The one field a node selector's matchFields may name (NodeSelectorRequirement over fields).
inline constexpr const char* kFieldMetadataName = "metadata.name";
inline constexpr const char* kLabelArch = "kubernetes.io/arch";
inline constexpr const char* kLabelOs = "kubernetes.io/os";
inline constexpr const char* kLabelInstanceType = "node.kubernetes.io/instance-type";
inline constexpr const char* kLabelZone = "topology.kubernetes.io/zone";
inline constexpr const char* kLabelRegion = "topology.kubernetes.io/region";
inline constexpr const char* kLabelNodegroup = "eks.amazonaws.com/nodegroup";
inline constexpr const char* kLabelEksCapacityType = "eks.amazonaws.com/capacityType";

}  // namespace eksim::k8s
