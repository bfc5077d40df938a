#pragma once
// apiextensions.k8s.io/v1 CustomResourceDefinition manifests, and the JSON text of an object the
// API server keeps whole (yaml_to_json): what `kubectl create -f karpenter.sh_nodepools.yaml` and a
// chart's ServiceAccounts and RBAC become.
#include <string>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "models/k8s/api/custom_resources.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {

// The CRD's names, scope and versions, checked as the API server validates them (a name other
// than plural.group, no versions, no storage version); object_json keeps the whole object.
k8s::CustomResourceDefinition decode_crd(const Value& v);

// A YAML node as JSON: plain scalars typed as YAML 1.2's core schema reads them (true, 12, 1.5,
// null), quoted ones as strings.
nlohmann::json yaml_to_json(const YAML::Node& node);

}  // namespace eksim::scenario
