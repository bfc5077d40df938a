#pragma once
// The `autoscaler:` section of a cluster: cluster-autoscaler flags or Karpenter settings, each
// checked against the real component's own table of flags and their value kinds.
#include "models/cluster/cluster_spec.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {

// `none`, {clusterAutoscaler: {flag: value}} or {karpenter: {setting: value}}; flag names may be
// given in camelCase (read as the kebab-case flag).
AutoscalerSpec read_autoscaler(const Value& v);

}  // namespace eksim::scenario
