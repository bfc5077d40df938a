// The EKS managed node group rolling update: pure rules (surge, maxUnavailable, PDB budget,
// EKS texts) and the state machine's paths on a whole Cluster: success, NodeCreationFailure from
// the vCPU quota with the rollback, PodEvictionFailure from a PodDisruptionBudget, force.
#include <gtest/gtest.h>

#include <algorithm>

#include "models/cluster/cluster.hpp"
#include "models/cluster/nodegroup_update.hpp"

namespace eksim {
namespace {

using engine::Duration;
using engine::SimTime;

TEST(NodegroupUpdateRules, SurgeIsTwicePerAzOrMaxUnavailable) {
  struct Row {
    std::int64_t azs, max_unavailable, want;
  };
  for (const Row& r : {Row{1, 1, 2}, Row{3, 1, 6}, Row{5, 1, 10}, Row{5, 20, 20}, Row{2, 4, 4}})
    EXPECT_EQ(surge_size(r.azs, r.max_unavailable), r.want) << r.azs << " AZs, maxUnavailable " << r.max_unavailable;
}

TEST(NodegroupUpdateRules, MaxUnavailableFromUpdateConfig) {
  aws::NodeGroupSpec spec;
  EXPECT_EQ(max_unavailable_nodes(spec, 2), 1);   // module default 33%, at least 1
  EXPECT_EQ(max_unavailable_nodes(spec, 9), 2);   // 33% of 9 rounded down
  EXPECT_EQ(max_unavailable_nodes(spec, 0), 1);
  spec.max_unavailable_percentage = 50;
  EXPECT_EQ(max_unavailable_nodes(spec, 4), 2);
  spec.max_unavailable_percentage.reset();
  spec.max_unavailable = 3;
  EXPECT_EQ(max_unavailable_nodes(spec, 10), 3);
}

TEST(NodegroupUpdateRules, DisruptionsAllowed) {
  PodDisruptionBudget min1;
  min1.min_available = 1;
  EXPECT_EQ(disruptions_allowed(min1, 1, 1), 0);
  EXPECT_EQ(disruptions_allowed(min1, 3, 3), 2);
  PodDisruptionBudget max0;
  max0.max_unavailable = 0;
  EXPECT_EQ(disruptions_allowed(max0, 2, 2), 0);
  PodDisruptionBudget max1;
  max1.max_unavailable = 1;
  EXPECT_EQ(disruptions_allowed(max1, 2, 2), 1);
  EXPECT_EQ(disruptions_allowed(max1, 1, 2), 0);  // one already down
}

TEST(NodegroupUpdateRules, EksTexts) {
  EXPECT_EQ(node_creation_failure_message("gpu"),
            "Couldn't proceed with upgrade process as new nodes are not joining node group gpu");
  EXPECT_EQ(pod_eviction_failure_message("ng-backend"),
            "Reached max retries while trying to evict pods from nodes in node group ng-backend");
  EXPECT_EQ(not_active_error().code, "ResourceInUseException");
  EXPECT_EQ(not_active_error().message, "Nodegroup cannot be updated as it is currently not in Active State");
  EXPECT_EQ(format_update_errors({{"PodEvictionFailure", "m", {"ip-1", "ip-2"}}}),
            "PodEvictionFailure: m (resourceIds: [ip-1, ip-2])");
}

// A one-AZ cluster with one node group of `count` running instances of `type`.
ClusterSpec one_group(const std::string& type, std::int64_t count, std::optional<std::int64_t> g_quota) {
  ClusterSpec spec;
  spec.name = "myeks";
  spec.region = "ap-northeast-2";
  spec.subnets = {SubnetSpec{"private-a", "ap-northeast-2a", "192.168.12.0/22"}};
  if (g_quota) spec.quotas.on_demand["G"] = *g_quota;
  NodeGroupSpec ng;
  ng.name = "ng";
  ng.instance_types = {type};
  ng.min_size = 0;
  ng.max_size = count;
  ng.desired_size = count;
  ng.subnet_ids = {"private-a"};
  ng.iam_role_name = "ng-role";
  spec.node_groups.push_back(ng);
  return spec;
}

std::int64_t ready_nodes(Cluster& c) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < c.api.node_slots(); ++i) {
    const k8s::NodeRecord& r = c.api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
    if (!r.deleted && r.node.ready) ++n;
  }
  return n;
}

std::int64_t events_with_reason(Cluster& c, const std::string& reason) {
  return std::count_if(c.log.events().begin(), c.log.events().end(), [&](const k8s::Event& e) { return e.reason == reason; });
}

TEST(NodegroupUpdate, QuotaBlocksTheSurgeAndTheUpdateFailsWithNodeCreationFailure) {
  Cluster c(one_group("g5.xlarge", 2, 8), 7);
  c.start();
  NodegroupUpdater& u = *c.controllers.nodegroup_update;
  ASSERT_FALSE(u.update_version("ng").has_value());
  aws::ManagedNodegroup& ng = *c.eks.find("ng");
  EXPECT_EQ(ng.status, "UPDATING");
  // The surge: max and desired grow by max(2 x 1 AZ, 1) = 2.
  EXPECT_EQ(c.eks.sizes("ng"), (aws::GroupSizes{0, 4, 4}));
  auto refused = c.eks.update_nodegroup_config("ng", aws::SizesUpdate{std::nullopt, std::nullopt, 1});
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->message, "Nodegroup cannot be updated as it is currently not in Active State");
  // A second update is refused the same way while this one runs.
  ASSERT_TRUE(u.update_version("ng").has_value());

  c.sim.run_until(SimTime{} + Duration::minutes(14));
  EXPECT_EQ(u.updates().back().status, "InProgress");
  c.sim.run_until(SimTime{} + Duration::minutes(16));
  const NodegroupUpdateRecord& rec = u.updates().back();
  EXPECT_EQ(rec.type, "VersionUpdate");
  EXPECT_EQ(rec.status, "Failed");
  ASSERT_EQ(rec.errors.size(), 1u);
  EXPECT_EQ(rec.errors[0].code, "NodeCreationFailure");
  EXPECT_EQ(rec.errors[0].message, "Couldn't proceed with upgrade process as new nodes are not joining node group ng");
  EXPECT_EQ(events_with_reason(c, "NodeCreationFailure"), 1);
  // Rolled back: sizes, template version, status; the old nodes kept serving throughout.
  EXPECT_EQ(ng.status, "ACTIVE");
  EXPECT_EQ(c.eks.sizes("ng"), (aws::GroupSizes{0, 2, 2}));
  EXPECT_EQ(c.auto_scaling.find(ng.asg_name)->launch_template.version, 1);
  EXPECT_EQ(ready_nodes(c), 2);
  std::int64_t quota_failures = 0;
  for (const auto& a : c.activities)
    if (a.service == "autoscaling" && a.status == "Failed" && a.status_message.find("VcpuLimitExceeded") != std::string::npos)
      ++quota_failures;
  EXPECT_GE(quota_failures, 3);
  const aws::Activity& eks_act = c.activities[rec.activity];
  EXPECT_EQ(eks_act.service, "eks");
  EXPECT_EQ(eks_act.status, "Failed");
  EXPECT_NE(eks_act.status_message.find("NodeCreationFailure: Couldn't proceed"), std::string::npos);
  // Config updates are accepted again.
  EXPECT_FALSE(c.eks.update_nodegroup_config("ng", aws::SizesUpdate{std::nullopt, std::nullopt, 1}).has_value());
}

TEST(NodegroupUpdate, RollingUpdateReplacesEveryNodeAndRestoresTheSizes) {
  Cluster c(one_group("t3.medium", 2, std::nullopt), 7);
  c.start();
  NodegroupUpdater& u = *c.controllers.nodegroup_update;
  ASSERT_FALSE(u.update_version("ng").has_value());
  c.sim.run_until(SimTime{} + Duration::minutes(30));
  const NodegroupUpdateRecord& rec = u.updates().back();
  EXPECT_EQ(rec.status, "Successful");
  EXPECT_TRUE(rec.errors.empty());
  aws::ManagedNodegroup& ng = *c.eks.find("ng");
  EXPECT_EQ(ng.status, "ACTIVE");
  EXPECT_EQ(c.eks.sizes("ng"), (aws::GroupSizes{0, 2, 2}));
  const aws::AutoScalingGroup& g = *c.auto_scaling.find(ng.asg_name);
  ASSERT_EQ(g.instances.size(), 2u);
  for (const auto& id : g.instances) EXPECT_EQ(c.ec2.find(id)->template_version, 2);
  EXPECT_EQ(ready_nodes(c), 2);
  // Each old node was cordoned before it went.
  EXPECT_GE(events_with_reason(c, "NodeNotSchedulable"), 2);
}

k8s::Pod guarded_pod() {
  k8s::Pod p;
  p.meta.name = "db";
  p.meta.ns = "default";
  p.meta.labels = {{"app", "db"}};
  k8s::Container ctr;
  ctr.name = "db";
  ctr.image = "postgres:16";
  ctr.requests.set("cpu", 100);
  p.spec.containers.push_back(ctr);
  return p;
}

TEST(NodegroupUpdate, PodDisruptionBudgetBlocksTheDrainAndTheUpdateFailsWithPodEvictionFailure) {
  Cluster c(one_group("t3.medium", 1, std::nullopt), 7);
  c.start();
  c.api.create_pod(guarded_pod());
  NodegroupUpdater& u = *c.controllers.nodegroup_update;
  PodDisruptionBudget pdb;
  pdb.name = "db";
  pdb.selector.match_labels = {{"app", "db"}};
  pdb.min_available = 1;
  c.controllers.pdb->apply(pdb);
  c.sim.run_until(SimTime{} + Duration::minutes(2));
  ASSERT_FALSE(u.update_version("ng").has_value());
  c.sim.run_until(SimTime{} + Duration::minutes(40));
  const NodegroupUpdateRecord& rec = u.updates().back();
  EXPECT_EQ(rec.status, "Failed");
  ASSERT_EQ(rec.errors.size(), 1u);
  EXPECT_EQ(rec.errors[0].code, "PodEvictionFailure");
  EXPECT_EQ(rec.errors[0].message, "Reached max retries while trying to evict pods from nodes in node group ng");
  ASSERT_EQ(rec.errors[0].resource_ids.size(), 1u);
  EXPECT_EQ(rec.errors[0].resource_ids[0].rfind("ip-192-168-", 0), 0u);  // the node's name
  EXPECT_EQ(events_with_reason(c, "PodEvictionFailure"), 1);
  EXPECT_EQ(c.eks.find("ng")->status, "ACTIVE");
  // The guarded pod was never evicted; its node is still there, cordoned.
  auto pod = c.api.find_pod("default", "db");
  ASSERT_TRUE(pod.has_value());
  EXPECT_EQ(c.api.pod(*pod).pod.status.phase, k8s::PodPhase::Running);
  EXPECT_TRUE(c.api.node(c.api.pod(*pod).node).node.unschedulable);
}

TEST(NodegroupUpdate, ForcedUpdateDeletesWhatWouldNotDrain) {
  Cluster c(one_group("t3.medium", 1, std::nullopt), 7);
  c.start();
  c.api.create_pod(guarded_pod());
  NodegroupUpdater& u = *c.controllers.nodegroup_update;
  PodDisruptionBudget pdb;
  pdb.name = "db";
  pdb.selector.match_labels = {{"app", "db"}};
  pdb.max_unavailable = 0;
  c.controllers.pdb->apply(pdb);
  c.sim.run_until(SimTime{} + Duration::minutes(2));
  ASSERT_FALSE(u.update_version("ng", nullptr, /*force=*/true).has_value());
  c.sim.run_until(SimTime{} + Duration::minutes(40));
  EXPECT_EQ(u.updates().back().status, "Successful");
  EXPECT_FALSE(c.api.find_pod("default", "db").has_value());  // a bare pod: nothing recreates it
  EXPECT_EQ(events_with_reason(c, "PodEvictionFailure"), 0);
}

TEST(NodegroupUpdate, UnknownGroupAndEmptyGroup) {
  Cluster c(one_group("t3.medium", 0, std::nullopt), 7);
  c.start();
  NodegroupUpdater& u = *c.controllers.nodegroup_update;
  auto err = u.update_version("nope");
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->code, "ResourceNotFoundException");
  // No node runs the old version: the update completes at once.
  ASSERT_FALSE(u.update_version("ng").has_value());
  EXPECT_EQ(u.updates().back().status, "Successful");
  EXPECT_EQ(c.eks.find("ng")->status, "ACTIVE");
}

}  // namespace
}  // namespace eksim
