// EC2NodeClass subnet / security group discovery and the status conditions it gives the
// EC2NodeClass and its NodePools (karpenter-provider-aws pkg/controllers/nodeclass, karpenter
// pkg/controllers/nodepool/readiness, awslabs/operatorpkg status.ConditionSet).
#include <gtest/gtest.h>

#include "karpenter_world.hpp"
#include "models/autoscaling/karpenter/nodeclass/discovery.hpp"

namespace eksim::autoscaling::karpenter {
namespace {

using Tags = std::map<std::string, std::string>;

TEST(TagsMatch, EveryKeyWithItsValueOrAnyValueForStar) {
  struct Case {
    Tags want, have;
    bool match;
  } cases[] = {
      {{{"karpenter.sh/discovery", "myeks"}}, {{"karpenter.sh/discovery", "myeks"}}, true},
      {{{"karpenter.sh/discovery", "myeks"}}, {{"karpenter.sh/discovery", "other"}}, false},
      {{{"karpenter.sh/discovery", "*"}}, {{"karpenter.sh/discovery", "other"}}, true},
      {{{"karpenter.sh/discovery", "*"}}, {}, false},
      // keys within a term are ANDed
      {{{"a", "1"}, {"b", "2"}}, {{"a", "1"}}, false},
      {{{"a", "1"}, {"b", "2"}}, {{"a", "1"}, {"b", "2"}, {"c", "3"}}, true},
  };
  for (const auto& c : cases) EXPECT_EQ(tags_match(c.want, c.have), c.match);
}

TEST(SubnetSelection, TermsAreOredAndAnIdSelectsByIdAlone) {
  aws::Subnet a;
  a.id = "subnet-a";
  a.tags = {{"karpenter.sh/discovery", "myeks"}};
  aws::Subnet b;
  b.id = "subnet-b";
  std::vector<SelectorTerm> terms{SelectorTerm{{{"karpenter.sh/discovery", "myeks"}}, "", ""}};
  EXPECT_TRUE(subnet_selected(terms, a));
  EXPECT_FALSE(subnet_selected(terms, b));
  terms.push_back(SelectorTerm{{}, "subnet-b", ""});
  EXPECT_TRUE(subnet_selected(terms, b));
}

TEST(SecurityGroupSelection, ByIdNameOrTags) {
  aws::SecurityGroup g = aws::new_security_group("sg-0123", "myeks-node");
  g.tags = {{"Team", "ml"}};
  EXPECT_TRUE(security_group_selected({SelectorTerm{{}, "sg-0123", ""}}, g));
  EXPECT_TRUE(security_group_selected({SelectorTerm{{}, "", "myeks-node"}}, g));
  EXPECT_FALSE(security_group_selected({SelectorTerm{{}, "", "other"}}, g));
  EXPECT_TRUE(security_group_selected({SelectorTerm{{{"Team", "*"}}, "", ""}}, g));
  EXPECT_FALSE(security_group_selected({SelectorTerm{{{"Team", "infra"}}, "", ""}}, g));
}

TEST(Conditions, RootListsUnhealthyDependentsAndKeepsTransitionTimes) {
  const engine::SimTime t0{}, t1 = t0 + engine::Duration::minutes(1);
  ConditionSet cs = new_condition_set({"A", "B"}, t0);
  EXPECT_EQ(find_condition(cs, "Ready")->status, "Unknown");
  EXPECT_EQ(find_condition(cs, "Ready")->reason, "ReconcilingDependents");
  set_true(cs, "A", t0);
  set_false(cs, "B", "Broken", "b is broken", t0);
  const Condition* ready = find_condition(cs, "Ready");
  EXPECT_EQ(ready->status, "False");
  EXPECT_EQ(ready->reason, "UnhealthyDependents");
  EXPECT_EQ(ready->message, "B=False");
  EXPECT_EQ(cs.conditions.back().type, "Ready");  // the root is listed last
  set_true(cs, "B", t1);
  EXPECT_EQ(find_condition(cs, "Ready")->status, "True");
  EXPECT_EQ(find_condition(cs, "Ready")->reason, "Ready");
  EXPECT_EQ(find_condition(cs, "Ready")->last_transition, t1);
  EXPECT_EQ(find_condition(cs, "A")->last_transition, t0);  // unchanged status keeps its time
  EXPECT_EQ(find_condition(cs, "B")->reason, "B");          // SetTrue: the reason is the type
}

class Discovery : public ::testing::Test {
 protected:
  // Two subnets: private-a tagged for discovery, private-b not; one group tagged.
  test::World w{[] {
    test::WorldOptions o;
    o.zones = 2;
    o.subnet_a_tags = {{"karpenter.sh/discovery", "test"}};
    return o;
  }()};

  void SetUp() override {
    aws::SecurityGroup g = aws::new_security_group("test-node", "test-node");
    g.tags = {{"karpenter.sh/discovery", "test"}};
    w.cluster->security_groups.put(g);
  }

  NodeClass node_class(Tags subnet_tags, Tags group_tags) {
    NodeClass nc;
    nc.name = "default";
    nc.role = "KarpenterNodeRole";
    nc.subnet_terms = std::vector<SelectorTerm>{SelectorTerm{std::move(subnet_tags), "", ""}};
    nc.security_group_terms = std::vector<SelectorTerm>{SelectorTerm{std::move(group_tags), "", ""}};
    return nc;
  }
};

TEST_F(Discovery, NoMatchingSubnetLeavesTheClassAndItsPoolNotReadyAndLaunchesNothing) {
  w.k->apply_node_class(node_class({{"karpenter.sh/discovery", "nope"}}, {{"karpenter.sh/discovery", "test"}}));
  w.pool("WhenEmpty", std::nullopt);
  w.pod("web", 500);
  w.run_to(engine::Duration::minutes(5));
  EXPECT_TRUE(w.k->node_claims().empty());
  EXPECT_EQ(w.count("Nominated"), 0);
  const NodeClass& nc = w.k->node_classes().at("default");
  EXPECT_FALSE(nc.ready());
  const Condition* subnets = find_condition(nc.conditions, "SubnetsReady");
  ASSERT_NE(subnets, nullptr);
  EXPECT_EQ(subnets->status, "False");
  EXPECT_EQ(subnets->reason, "SubnetsNotFound");
  EXPECT_EQ(subnets->message, "SubnetSelector did not match any Subnets");
  const Condition* validation = find_condition(nc.conditions, "ValidationSucceeded");
  EXPECT_EQ(validation->message, "Awaiting AMI, Instance Profile, Security Group, and Subnet resolution");
  EXPECT_EQ(find_condition(nc.conditions, "Ready")->message, "SubnetsReady=False, ValidationSucceeded=False");
  const NodePool& pool = w.k->node_pools().at("cpu");
  const Condition* ncr = find_condition(pool.conditions, "NodeClassReady");
  EXPECT_EQ(ncr->status, "False");
  EXPECT_EQ(ncr->reason, "UnhealthyDependents");
  EXPECT_EQ(ncr->message, "SubnetsReady=False, ValidationSucceeded=False");
  EXPECT_EQ(find_condition(pool.conditions, "Ready")->message, "NodeClassReady=False");
}

TEST_F(Discovery, NoMatchingGroupIsSecurityGroupsNotFound) {
  w.k->apply_node_class(node_class({{"karpenter.sh/discovery", "test"}}, {{"Team", "ml"}}));
  const NodeClass& nc = w.k->node_classes().at("default");
  const Condition* sgs = find_condition(nc.conditions, "SecurityGroupsReady");
  EXPECT_EQ(sgs->status, "False");
  EXPECT_EQ(sgs->reason, "SecurityGroupsNotFound");
  EXPECT_EQ(sgs->message, "SecurityGroupSelector did not match any SecurityGroups");
  EXPECT_TRUE(nc.subnet_ids == std::vector<std::string>{"private-a"});
}

TEST_F(Discovery, LaunchedInstancesUseOnlySelectedSubnetsAndCarryTheSelectedGroups) {
  w.k->apply_node_class(node_class({{"karpenter.sh/discovery", "test"}}, {{"karpenter.sh/discovery", "*"}}));
  w.pool("WhenEmpty", std::nullopt);
  w.pod("web", 500);
  w.run_to(engine::Duration::minutes(3));
  ASSERT_FALSE(w.k->node_claims().empty());
  const NodeClaimState& c = w.claim();
  EXPECT_EQ(c.zone, "ap-northeast-2a");  // private-b is not selected: its zone has no offering
  const aws::Instance* inst = nullptr;
  for (const auto& i : w.cluster->ec2.instances())
    if (i.id == c.instance_id) inst = &i;
  ASSERT_NE(inst, nullptr);
  EXPECT_EQ(inst->subnet_id, "private-a");
  EXPECT_EQ(inst->security_groups, std::vector<std::string>{"test-node"});
  ConditionSet cs = nodeclaim_conditions(c);
  EXPECT_EQ(find_condition(cs, "Launched")->status, "True");
}

TEST_F(Discovery, TaggingTheGroupLaterIsPickedUpWithinAMinute) {
  w.k->apply_node_class(node_class({{"karpenter.sh/discovery", "test"}}, {{"Team", "ml"}}));
  w.pool("WhenEmpty", std::nullopt);
  w.pod("web", 500);
  w.run_to(engine::Duration::minutes(2) + engine::Duration::seconds(30));
  EXPECT_TRUE(w.k->node_claims().empty());
  aws::SecurityGroup g = *w.cluster->security_groups.find("test-node");
  g.tags["Team"] = "ml";
  w.cluster->security_groups.put(g);
  // Nothing watches the tags: the change is seen at the next one-minute requeue (3m).
  w.run_to(engine::Duration::minutes(3) - engine::Duration::seconds(1));
  EXPECT_FALSE(w.k->node_classes().at("default").ready());
  w.run_to(engine::Duration::minutes(3));
  EXPECT_TRUE(w.k->node_classes().at("default").ready());
  EXPECT_TRUE(w.k->node_pools().at("cpu").ready());
  EXPECT_EQ(find_condition(w.k->node_classes().at("default").conditions, "Ready")->last_transition,
            engine::SimTime{} + engine::Duration::minutes(3));
  // The pending pod's batch closes after the 1 s idle window.
  w.run_to(engine::Duration::minutes(3) + engine::Duration::seconds(2));
  EXPECT_EQ(w.live().size(), 1u);
}

// Issue 41 item 6 (lab 002: `gpu-pool  default  0  False  5s`): a new EC2NodeClass has no status
// until the nodeclass controller's first reconcile (6 s); meanwhile its NodePool is
// NodeClassReady=False (NodeClassReadinessUnknown) and Ready=False. Both carry their own
// creationTimestamp; a pool applied to a class already resolved is Ready at once.
TEST(NodeClassResolution, ANewClassLeavesItsPoolNotReadyUntilItsFirstReconcile) {
  test::WorldOptions o;
  o.node_class_resolve_time = Settings{}.node_class_resolve_time;
  test::World w{o};
  w.run_to(engine::Duration::minutes(2));
  NodeClass gpu;
  gpu.name = "gpu";
  gpu.role = "KarpenterNodeRole";
  NodePool pool;
  pool.name = "gpu-pool";
  pool.node_class_name = "gpu";
  w.k->apply_node_pool(pool);
  w.k->apply_node_class(gpu);
  const engine::SimTime applied = engine::SimTime{} + engine::Duration::minutes(2);
  w.run_to(engine::Duration::minutes(2) + engine::Duration::seconds(5));
  const NodePool& p = w.k->node_pools().at("gpu-pool");
  EXPECT_EQ(p.created, applied);
  EXPECT_EQ(w.k->node_classes().at("gpu").created, applied);
  EXPECT_FALSE(p.ready());
  const Condition* ncr = find_condition(p.conditions, "NodeClassReady");
  EXPECT_EQ(ncr->reason, "NodeClassReadinessUnknown");
  EXPECT_EQ(ncr->message, "Node Class Readiness Unknown");
  EXPECT_EQ(find_condition(w.k->node_classes().at("gpu").conditions, "Ready")->status, "Unknown");
  w.run_to(engine::Duration::minutes(2) + engine::Duration::seconds(6));
  EXPECT_TRUE(w.k->node_pools().at("gpu-pool").ready());
  EXPECT_EQ(find_condition(w.k->node_pools().at("gpu-pool").conditions, "Ready")->last_transition,
            applied + engine::Duration::seconds(6));
  // Re-applied, a pool keeps its creationTimestamp; a second pool on the resolved class is Ready
  // as soon as it is applied.
  w.k->apply_node_pool(pool);
  EXPECT_EQ(w.k->node_pools().at("gpu-pool").created, applied);
  NodePool other = pool;
  other.name = "other";
  w.k->apply_node_pool(other);
  EXPECT_TRUE(w.k->node_pools().at("other").ready());
  EXPECT_EQ(w.k->node_pools().at("other").created, applied + engine::Duration::seconds(6));
  // The history the expectations read: Ready Unknown at the apply, False, then True at 6 s.
  ASSERT_FALSE(p.conditions.history.empty());
  EXPECT_EQ(p.conditions.history.front().time, applied);
}

}  // namespace
}  // namespace eksim::autoscaling::karpenter
