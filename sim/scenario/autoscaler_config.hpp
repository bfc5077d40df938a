#pragma once
// The `autoscaler:` section of a cluster: cluster-autoscaler flags (decoded into CasOptions by
// the table in cas_flags.hpp) or Karpenter settings, each checked against the real component's
// own flags and their value kinds.
#include <vector>

#include "models/autoscaling/cas/config/autoscaling_options.hpp"
#include "models/cluster/cluster_spec.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {

// `none`, {clusterAutoscaler: {flag: value}} or {karpenter: {setting: value}}; flag names may be
// given in camelCase (read as the kebab-case flag).
AutoscalerSpec read_autoscaler(const Value& v);
// Cluster Autoscaler's flags as its container's command and args pass them
// ("--scan-interval=10s"), decoded with the same table; flags eksim does not model (logging,
// --cloud-provider, ...) are accepted and ignored, an unknown one is pflag's `unknown flag`.
autoscaling::CasOptions read_cluster_autoscaler_args(const std::vector<Value>& args);

}  // namespace eksim::scenario
