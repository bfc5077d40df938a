#pragma once
// Kubernetes manifests -> model objects, as strictly as `kubectl apply` with server-side strict
// field validation: unknown fields, wrong types, invalid names, labels, quantities, tolerations,
// selectors and restart policies are rejected with the API server's own texts, e.g.
//   The Pod "gpu-pod" is invalid: spec.tolerations[0].operator: Invalid value: "true": value must
//   be empty when `operator` is 'Exists'
//   Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field
//   "spec.containers[0].imagee"; did you mean "image"?
// The first problem found is reported (the API server lists them all), located at the YAML node.
//
// Every kind eksim models is decoded here, once, into the model's own struct: Pod, Deployment,
// Job, DaemonSet, Namespace, Service, PodDisruptionBudget, ConfigMap, and Karpenter's NodePool,
// EC2NodeClass and Auto Mode's NodeClass (sim/scenario/karpenter_manifest). The other kinds the
// API serves (Secret, ServiceAccount, RBAC, PriorityClass, NodeClaim, ...) change nothing eksim
// simulates: they are checked for apiVersion/kind and kept by name. How long a container runs is
// not decided here: command and args are kept as written, eksim.io annotations decoded
// (run_annotations.hpp), for the kubelet model.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "models/autoscaling/cas/config/autoscaling_options.hpp"
#include "models/autoscaling/karpenter/nodepool.hpp"
#include "models/autoscaling/karpenter/settings.hpp"
#include "models/cluster/cluster_spec.hpp"
#include "models/cluster/disruption_controller.hpp"
#include "models/k8s/api/custom_resources.hpp"
#include "models/k8s/api/objects.hpp"
#include "models/k8s/api/services.hpp"
#include "models/k8s/api/workloads.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {

struct NamespaceObject {
  k8s::ObjectMeta meta;
};

// policy/v1 PodDisruptionBudget, as much as evictions need, and what eksim does not model of it
// (a percentage minAvailable): remarks the run records when the budget is applied.
struct PdbObject {
  PodDisruptionBudget pdb;
  std::vector<std::string> unsupported;
};

// v1 ConfigMap: the API server keeps it for the pods that mount it and the controllers that read it.
struct ConfigMapObject {
  k8s::ObjectMeta meta;
  std::map<std::string, std::string> data;
};

// A kind the API serves that eksim does not model (a ServiceAccount, a ClusterRole, a custom
// resource): the API server keeps it whole (Manifest::object_json).
struct OtherObject {
  std::string name, ns;
};

struct Manifest {
  std::string api_version, kind;
  Location where;  // of the object
  std::variant<k8s::Pod, k8s::Deployment, k8s::Job, k8s::DaemonSet, NamespaceObject, k8s::Service,
               autoscaling::karpenter::NodePool, autoscaling::karpenter::NodeClass, PdbObject, ConfigMapObject, k8s::CustomResourceDefinition,
               OtherObject>
      object;
  // The object as written, as JSON text, for the kinds the API server may keep whole: custom
  // kinds (a NodePool whose Karpenter is not running yet) and the kinds eksim does not model.
  std::string object_json;
  // A Deployment running Karpenter's controller image: its settings, decoded from the container's
  // env (sim/scenario/controller_deployment.hpp).
  std::optional<autoscaling::karpenter::Settings> karpenter;
  // A Deployment running Cluster Autoscaler's image: its flags typed, from the container's command.
  std::optional<autoscaling::CasOptions> cluster_autoscaler;
};

// list_or_object: the scenario's `manifests:` value (a list of inline objects and {file: path}
// entries) or a single inline object / {file: path} (a timeline kubectl.apply). A file may hold
// several YAML documents; a document may be `kind: List` with items, or itself {file: path}.
// Paths are relative to the file naming them. Missing files and include cycles are InputErrors
// at the `file:` entry.
std::vector<Manifest> parse_manifests(const Value& list_or_object, FileLoader& loader);

// Whether a group/version is not one of the API server's built-in groups, so a CustomResourceDefinition
// must serve it (Karpenter's, Auto Mode's, a chart's): applying such a kind needs its CRD installed.
bool is_custom_kind(const std::string& api_version);

// metadata.name of an object as written, or "" when it has none (or metadata is not a mapping):
// only to name the object in messages before it is validated, so it never throws.
std::string raw_name(const Value& obj);

// The objects of the file named by file_value (the scalar of a `file:` key, e.g. a timeline
// kubectl.apply action's), resolved relative to the file holding file_value.
std::vector<Manifest> load_manifest_file(const Value& file_value, FileLoader& loader);

// One inline object (no `file:`; a `kind: List` gives several).
// Kinds served besides the built-in ones and those the scenario's CRDs declare (in `eksim
// serve`, the cluster's CRDs).
using ServedKinds = std::function<bool(const std::string& api_version, const std::string& kind)>;
std::vector<Manifest> parse_manifest_object(const Value& object, const ServedKinds& served = {});

// --- building blocks for other manifest parsers (Karpenter NodePool, ...) -------------------
// Each reports problems as `The KIND "NAME" is invalid: PATH: ...` like the API server.

struct ObjectRef {
  std::string kind;     // "NodePool"
  std::string name;     // metadata.name, for "The KIND \"NAME\" is invalid"
  std::string version;  // version without group, for decode errors ("v1")
};

// DNS-1123 checks; empty vector = valid. Messages are apimachinery's IsDNS1123Subdomain/Label.
std::vector<std::string> dns1123_subdomain_errors(const std::string& s);
std::vector<std::string> dns1123_label_errors(const std::string& s);
// Label keys (qualified names) and values, as metav1validation.ValidateLabels.
std::vector<std::string> qualified_name_errors(const std::string& s);
std::vector<std::string> label_value_errors(const std::string& s);

std::vector<k8s::Toleration> parse_tolerations(const Value& v, const ObjectRef& obj, const std::string& path);
std::vector<k8s::NodeSelectorRequirement> parse_node_selector_requirements(const Value& v, const ObjectRef& obj,
                                                                           const std::string& path);
// labels / nodeSelector style maps: string keys and string values, both validated as labels.
k8s::Labels parse_labels(const Value& v, const ObjectRef& obj, const std::string& path, const char* go_struct);
// One resource list (requests or limits) in canonical amounts (see models/k8s/api/resources.hpp).
k8s::ResourceList parse_resource_list(const Value& v, const ObjectRef& obj, const std::string& path);

}  // namespace eksim::scenario
