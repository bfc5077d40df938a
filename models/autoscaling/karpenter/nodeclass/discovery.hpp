#pragma once
// Subnet and security group discovery for an EC2NodeClass (karpenter-provider-aws
// pkg/providers/subnet, pkg/providers/securitygroup: getFilterSets) and the status it gives the
// NodeClass (pkg/controllers/nodeclass: subnet.go, securitygroup.go, validation.go), and the
// NodePool's NodeClassReady that follows from it (karpenter pkg/controllers/nodepool/readiness).
#include <map>
#include <string>
#include <vector>

#include "models/autoscaling/karpenter/nodepool.hpp"
#include "models/aws/ec2.hpp"
#include "models/aws/security_groups.hpp"

namespace eksim::autoscaling::karpenter {

// EC2 tag filters of one term: every key present, with that value unless the value is "*".
bool tags_match(const std::map<std::string, std::string>& want, const std::map<std::string, std::string>& have);
bool subnet_selected(const std::vector<SelectorTerm>& terms, const aws::Subnet& s);
bool security_group_selected(const std::vector<SelectorTerm>& terms, const aws::SecurityGroup& g);

// Subnet ids the terms select, most available addresses first, then by id (status.subnets).
std::vector<std::string> discover_subnets(const std::vector<SelectorTerm>& terms, const aws::Ec2& ec2);
// Security group ids the terms select, by id (status.securityGroups).
std::vector<std::string> discover_security_groups(const std::vector<SelectorTerm>& terms, const aws::SecurityGroups& groups);

// The EC2NodeClass condition types (EC2NodeClass.StatusConditions; capacity reservations are
// behind a feature gate, off by default).
std::vector<std::string> node_class_condition_types();
std::vector<std::string> node_pool_condition_types();

// One nodeclass controller reconcile: status.subnets, status.securityGroups and the conditions.
// Returns whether the status changed.
bool reconcile_node_class(NodeClass& nc, const aws::Ec2& ec2, const aws::SecurityGroups& groups, engine::SimTime now);
// The nodepool readiness controller: NodeClassReady from the NodeClass's Ready (nullptr: not found).
bool reconcile_node_pool_readiness(NodePool& pool, const NodeClass* nc, engine::SimTime now);

}  // namespace eksim::autoscaling::karpenter
