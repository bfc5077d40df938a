#pragma once
// A loaded scenario: the cluster, the Kubernetes objects applied at the start, the operator's
// timeline and the expectations (CONTRACT.md, "Scenario files").
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "models/cluster/cluster_spec.hpp"
#include "sim/engine/time.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/scenario/k8s_manifest.hpp"
#include "sim/scenario/workloads.hpp"

namespace eksim::scenario {

// A node group as a terraform.apply action gives it: the full module arguments after the change,
// and which keys the apply names (the rest keep their current values).
struct NodeGroupChange {
  NodeGroupSpec spec;
  std::set<std::string> keys;
  Location where;
};

struct Action {
  engine::SimTime at;
  std::string action;  // kubectl.apply, kubectl.delete, eks.update-nodegroup-config, ...
  Location where;
  // kubectl.apply, kubectl.create
  std::vector<Manifest> manifests;
  // kubectl.delete, kubectl.scale, kubectl.label (kind, name, namespace); eks.create-addon and
  // eks.delete-addon (name: the EKS add-on's name); kubectl.cordon,
  // kubectl.uncordon, kubectl.drain and kubectl.taint name a node (node below).
  std::string kind, name, ns;
  std::int32_t replicas = 0;                                  // kubectl.scale --replicas
  std::map<std::string, std::optional<std::string>> labels;  // kubectl.label; null removes (key-)
  std::vector<k8s::Taint> taints;                             // kubectl.taint: added or updated
  std::vector<std::string> remove_taints;                     // kubectl.taint: "key" or "key:Effect" (key-)
  // eks.update-nodegroup-config, eks.update-nodegroup-version
  std::string nodegroup;
  std::optional<std::int64_t> min_size, max_size, desired_size;
  bool force = false;  // update-nodegroup-version --force
  // terraform.apply
  std::vector<NodeGroupChange> node_group_changes;
  std::vector<SecurityGroupSpec> security_groups;
  std::vector<AddonSpec> addons;  // helm_release add-ons the apply creates
  // ec2.set-quota
  QuotaSpec quotas;
  // sg.authorize-ingress, sg.revoke-ingress
  std::string group;
  SecurityGroupRuleSpec rule;
  // autoscaling.set-desired-capacity (autoScalingGroupName or nodegroup above, desiredCapacity,
  // honorCooldown) and autoscaling.terminate-instance-in-auto-scaling-group (instanceId, or node /
  // nodegroup + instance as for spot interruptions; shouldDecrementDesiredCapacity).
  std::string auto_scaling_group, instance_id;
  std::int64_t desired_capacity = 0;
  bool honor_cooldown = false;
  bool should_decrement = false;
  // ec2.send-spot-instance-interruptions: the target (nodegroup above, node_pool or node) and
  // which of its instances by launch order: "newest", "oldest" or an index ("0" = first launched).
  std::string node_pool, node, instance = "newest";
  engine::Duration before_interruption = engine::Duration::minutes(2);
};

// One `expect:` entry. Exactly one subject key (pod, event, nodes, nodeGroup, job, cost) decides
// which of the fields below matter.
struct Expectation {
  std::string subject;
  std::string description;  // given, or generated from the entry
  Location where;
  std::optional<engine::SimTime> by;  // the condition held at some time <= by
  std::optional<engine::SimTime> at;  // the condition holds at exactly this time
  // pod
  std::string ns, name, phase, reason;
  // event
  std::string event_reason, event_type, object, message_contains;
  // hint (eksim's own remarks, k8s::Hint): kind; object and message_contains as for events
  std::string hint_kind;
  std::optional<std::int64_t> count, min_count, max_count;
  bool absent = false;
  // nodes
  std::string node_group, node_pool, instance_type, zone;
  bool ready_only = true;
  // nodeGroup
  std::string activity_status, activity_contains;
  std::optional<std::int64_t> desired;
  // nodeGroup: an EKS update record (update: InProgress|Successful|Failed, updateType, errorContains)
  std::string update_status, update_type, error_contains;
  std::string health_issue;  // nodeGroup: a DescribeNodegroup health issue code (NodeCreationFailure)
  // nodes: only nodes whose allocatable (capacity) has these amounts (canonical units)
  k8s::ResourceList allocatable;
  k8s::ResourceList capacity;
  // nodes: only nodes whose non-terminated pods request these amounts, as `kubectl describe
  // node` sums them under "Allocated resources" (pods: the number of those pods)
  k8s::ResourceList allocated;
  // nodes: only nodes with these labels, and these taints ("key=value:Effect" as kubectl taint
  // writes them; "key:Effect" for an empty value)
  std::map<std::string, std::string> labels;
  std::vector<std::string> taints;
  // subnet: DescribeSubnets AvailableIpAddressCount at the end of the run
  std::string subnet;
  std::optional<std::int64_t> available_addresses;
  // nodePool / nodeClass: a status condition of that Karpenter object (at the end, `at` or `by`
  // a time), or its age (now - metadata.creationTimestamp, as kubectl's AGE prints it)
  std::string condition_type, condition_status, condition_reason;
  std::optional<engine::Duration> age;
  // event: the count of the Event object the API server holds (after the correlator and the
  // spam filter: `kubectl describe`'s "x6 over 3m21s"), not the number of occurrences
  std::optional<std::int64_t> stored_count;
  // log (pod in ns/name): the container's log contains message_contains (absent: it does not);
  // the first container unless named; `previous`: the run before the last restart
  std::string log_container;
  bool log_previous = false;
  // job
  std::string job_status;
  // cost
  std::optional<double> max_usd, min_usd;
};

struct Scenario {
  std::string file;
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  engine::Duration duration = engine::Duration::hours(1);
  ClusterSpec cluster;
  std::vector<Manifest> manifests;
  std::vector<Action> timeline;
  std::vector<Expectation> expectations;
  std::vector<WorkloadGenerator> workloads;  // `workloads:` (sim/scenario/workloads.hpp)
};

// Loads and validates a scenario file (YAML or JSON). Throws InputError.
Scenario load_scenario(const std::string& path);
// The same from a YAML tree already read (a sweep edits the base scenario's tree per point);
// file names the scenario in messages and is the base for relative `file:` paths.
Scenario load_scenario(const YAML::Node& root, const std::string& file);

}  // namespace eksim::scenario
