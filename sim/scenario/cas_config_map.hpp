#pragma once
// ConfigMaps Cluster Autoscaler reads, from the scenario's manifests: the priority expander's
// kube-system/cluster-autoscaler-priority-expander, key `priorities`, a YAML map[int][]string
// (expander/priority/priority.go parsePrioritiesYAMLString).
#include <map>
#include <optional>
#include <string>

#include "models/autoscaling/cas/expander/expander.hpp"
#include "models/cluster/cluster.hpp"
#include "sim/scenario/k8s_manifest.hpp"

namespace eksim::scenario {

// The parsed configuration, or nullopt with *error set to upstream's text:
//   priority configuration in cluster-autoscaler-priority-expander configmap is empty; please provide valid configuration
//   Can't parse YAML with priorities in the configmap: yaml: unmarshal errors:\n  line 2: cannot unmarshal !!str `high` into int
//   Can't compile regexp rule for priority 10 and rule [a: error parsing regexp: missing closing ]: `[a`
std::optional<autoscaling::cas::PriorityConfig> parse_priority_config(const std::string& yaml, std::string* error);


}  // namespace eksim::scenario
