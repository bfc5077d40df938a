#pragma once
// terraform-aws-modules/eks node group keys -> NodeGroupSpec (the `cluster.nodeGroups` entries
// and terraform.apply's changes to them).
#include <set>
#include <string>

#include "models/cluster/cluster_spec.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {

// Reads terraform-aws-modules/eks node group keys from v into spec (which holds defaults or the
// current values) and returns the keys that were given. Under module semantics unknown keys are
// recorded in spec.ignored_keys instead of failing.
std::set<std::string> read_node_group_into(const Value& v, const ClusterSpec& cluster, NodeGroupSpec& spec,
                                           bool creating);

// EKS CreateNodegroup's name rule (1-63 letters, digits, hyphens, underscores, starting with a
// letter or digit), a located error with EKS's InvalidParameterException text at `at`.
void check_node_group_name(const Value& at, const std::string& name);

}  // namespace eksim::scenario
