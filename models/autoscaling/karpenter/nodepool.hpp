#pragma once
// NodePool (karpenter.sh/v1), EC2NodeClass (karpenter.k8s.aws/v1) and Auto Mode's NodeClass
// (eks.amazonaws.com/v1) as plain data; sim/scenario/karpenter_manifest.cpp fills them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/autoscaling/karpenter/status/conditions.hpp"
#include "models/k8s/kubelet/allocatable.hpp"
#include "models/k8s/api/objects.hpp"
#include "sim/engine/time.hpp"

namespace eksim::autoscaling::karpenter {

struct Budget {
  std::string nodes = "10%";         // integer or percentage (pkg/apis/v1 default "10%")
  std::vector<std::string> reasons;  // Empty | Drifted | Underutilized; empty = all
  std::string schedule;              // cron; with duration, active only inside the window
  std::optional<engine::Duration> duration;
};

struct NodePool {
  std::string name;
  std::int32_t weight = 0;
  // spec.template
  k8s::Labels labels;
  k8s::Labels annotations;
  std::vector<k8s::NodeSelectorRequirement> requirements;
  std::map<std::string, std::int64_t> min_values;  // requirement key -> minValues
  std::vector<k8s::Taint> taints;
  std::vector<k8s::Taint> startup_taints;
  std::string node_class_group = "karpenter.k8s.aws";
  std::string node_class_kind = "EC2NodeClass";
  std::string node_class_name = "default";
  // "Never" disables expiry (pkg/apis/v1 default 720h).
  std::optional<engine::Duration> expire_after = engine::Duration::hours(720);
  std::optional<engine::Duration> termination_grace_period;
  // spec.disruption (defaults: WhenEmptyOrUnderutilized, 0s, nodes 10%)
  std::string consolidation_policy = "WhenEmptyOrUnderutilized";
  std::optional<engine::Duration> consolidate_after = engine::Duration{};  // nullopt = Never
  std::vector<Budget> budgets{Budget{}};
  // spec.limits: resource name -> canonical amount (cpu millicores, memory bytes, counts)
  std::map<std::string, std::int64_t> limits;
  bool built_in = false;  // Auto Mode's system / general-purpose
  // metadata.creationTimestamp: when it was first applied (an apply that replaces it keeps it),
  // so `kubectl get nodepools` shows its own AGE, not the cluster's.
  engine::SimTime created;
  // status.conditions (ValidationSucceeded, NodeClassReady, Ready): nodeclass/discovery.cpp.
  ConditionSet conditions;
  bool ready() const { return is_true(conditions, "Ready"); }
};

// One subnet or security group selector term: keys ANDed within it. A term with an id (or, for
// security groups, a name) selects by that alone (the CRD makes them exclusive); tags match when
// every key is present with that value, "*" meaning any value (an EC2 tag-key filter).
struct SelectorTerm {
  std::map<std::string, std::string> tags;
  std::string id;
  std::string name;
};

struct NodeClass {
  std::string kind = "EC2NodeClass";  // or NodeClass (Auto Mode)
  std::string name;
  std::string role;           // node IAM role (spec.role); must be mapped for nodes to join
  std::string ami_family;     // AL2023 | AL2 | Bottlerocket | Custom ("" = from alias)
  std::string ami_alias;      // al2023@latest
  std::int64_t root_volume_gib = 20;  // blockDeviceMappings[..xvda].ebs.volumeSize (Karpenter default 20Gi)
  std::optional<int> max_pods;        // spec.kubelet.maxPods
  // spec.kubelet podsPerCore, kubeReserved, systemReserved, evictionHard (memory.available,
  // nodefs.available): what its nodes' kubelets get and Karpenter's prediction uses.
  k8s::KubeletOptions kubelet;
  std::map<std::string, std::string> tags;
  // spec.subnetSelectorTerms / spec.securityGroupSelectorTerms (ORed). nullopt: not given, as
  // Auto Mode's NodeClass allows (every cluster subnet, no extra group).
  std::optional<std::vector<SelectorTerm>> subnet_terms, security_group_terms;
  // status, written by the nodeclass controller (nodeclass/discovery.cpp): status.subnets (ids in
  // upstream order) and status.securityGroups, and the conditions.
  std::vector<std::string> subnet_ids;
  std::vector<std::string> security_groups;
  ConditionSet conditions;
  // metadata.deletionTimestamp: deleted, held by the termination finalizer until no NodeClaim
  // uses it (nodeclass/termination.cpp).
  std::optional<engine::SimTime> deletion_timestamp;
  engine::SimTime created;  // metadata.creationTimestamp, as for NodePool
  bool ready() const { return is_true(conditions, "Ready"); }
};

// The hashes a NodeClaim keeps from launch (nodepool/hash, the EC2NodeClass's static hash):
// Drift compares them with the NodePool's and NodeClass's now (disruption/drift.cpp).
std::string pool_hash(const NodePool& p);
std::string class_hash(const NodeClass& c);

}  // namespace eksim::autoscaling::karpenter
