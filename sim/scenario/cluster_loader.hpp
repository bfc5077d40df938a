#pragma once
// The `cluster:` section of a scenario -> ClusterSpec, with the checks AWS, EKS and the
// terraform module would make (unknown instance types, subnets outside the VPC, node group sizes).
#include <set>
#include <string>
#include <vector>

#include "models/aws/instance_catalog.hpp"
#include "models/cluster/cluster_spec.hpp"
#include "sim/scenario/node_group_loader.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {

ClusterSpec read_cluster(const Value& v, const aws::InstanceCatalog& catalog);

// A located "unknown WHAT" error at v, with a did-you-mean or the allowed values, unless `got` is
// one of `allowed` (shared by the cluster and autoscaler readers).
void check_one_of(const Value& v, const std::string& got, const std::vector<std::string>& allowed, const std::string& what);

std::vector<SecurityGroupSpec> read_security_groups(const Value& v);
SecurityGroupRuleSpec read_sg_rule(const Value& v, const ClusterSpec& cluster);
void check_security_group_exists(const ClusterSpec& cluster, const std::string& name, const Value& at);
// Reads onDemand/spot from a reader positioned on a mapping that has them.
QuotaSpec read_quotas(const Value& at, MapReader& r);
// Helm add-ons as `cluster.addons` declares them (a terraform.apply's `addons` too).
std::vector<AddonSpec> read_addon_list(const Value& addons);

}  // namespace eksim::scenario
