// The bounds that keep Cluster Autoscaler's loop independent of the cluster's size, each with the
// upstream flag that sets it: --max-scale-down-parallelism / --max-drain-parallelism (actuation
// budgets), --max-nodes-per-scaleup (estimator limit), --scale-down-non-empty-candidates-count
// with --scale-down-candidates-pool-ratio / -min-count (planning), the equivalence groups of the
// scale-up simulation, and the incremental NodeInfo cache and snapshot fork they run on.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "models/autoscaling/cas/core/scaledown/budgets/budgets.hpp"
#include "models/autoscaling/cas/core/scaleup/equivalence/groups.hpp"
#include "models/autoscaling/cas/core/scaleup/resource/limits.hpp"
#include "models/autoscaling/cas/simulator/cluster_snapshot.hpp"
#include "models/autoscaling/cluster_autoscaler.hpp"
#include "sim/ops/runner.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::autoscaling::cas {
namespace {

// --- budgets (core/scaledown/budgets CropNodes) ---------------------------------------------

TEST(CasBudgets, EmptyNodesFirstThenDrainsWithinBothBudgets) {
  struct Case {
    std::int64_t parallelism, drain_parallelism;
    std::size_t empty_in_progress, drain_in_progress, empty, drain;
    std::size_t want_empty, want_drain;
  };
  const std::vector<Case> cases = {
      {10, 1, 0, 0, 15, 3, 10, 0},  // empties use the whole parallelism
      {10, 1, 0, 0, 4, 3, 4, 1},    // one drain at a time by default
      {10, 1, 0, 1, 4, 3, 4, 0},    // a drain in progress blocks the next
      {10, 5, 2, 1, 20, 5, 7, 0},   // in-progress deletions count against the parallelism
      {3, 5, 0, 0, 0, 6, 0, 3},     // drains are capped by the parallelism too
      {10, 3, 0, 0, 2, 5, 2, 3},
      {10, 1, 12, 0, 5, 5, 0, 0},   // over budget: nothing starts
  };
  for (const auto& c : cases) {
    ScaleDownBudget b = crop_nodes(c.parallelism, c.drain_parallelism, c.empty_in_progress, c.drain_in_progress, c.empty, c.drain);
    EXPECT_EQ(b.empty, c.want_empty) << c.parallelism << "/" << c.drain_parallelism << " " << c.empty << "+" << c.drain;
    EXPECT_EQ(b.drain, c.want_drain) << c.parallelism << "/" << c.drain_parallelism << " " << c.empty << "+" << c.drain;
  }
}

// --- estimator limit --------------------------------------------------------------------------

TEST(CasScaleUpLimits, MaxNodesPerScaleUpCapsTheHeadroom) {
  EXPECT_EQ(scale_up_headroom(600, 0, 0, 0, 1000), 600);   // group max binds
  EXPECT_EQ(scale_up_headroom(600, 0, 0, 0, 100), 100);    // --max-nodes-per-scaleup binds
  EXPECT_EQ(scale_up_headroom(600, 550, 560, 0, 100), 50);
  EXPECT_EQ(scale_up_headroom(600, 0, 90, 100, 1000), 10);  // --max-nodes-total binds
  EXPECT_EQ(scale_up_headroom(600, 0, 0, 0, 0), 600);      // 0: no estimator limit
}

// --- equivalence groups -------------------------------------------------------------------------

k8s::Pod job_pod(const std::string& name, const std::string& job, std::int64_t cpu_m) {
  k8s::Pod p;
  p.meta.name = name;
  p.meta.ns = "default";
  if (!job.empty()) p.meta.owner_references.push_back({"Job", job, true});
  p.meta.labels = {{"job-name", job}};
  k8s::Container c;
  c.name = "main";
  c.requests.set(k8s::kCpu, cpu_m);
  p.spec.containers.push_back(c);
  return p;
}

TEST(CasEquivalence, SameControllerLabelsAndSpecShareAGroup) {
  engine::Simulator sim;
  k8s::EventLog log;
  engine::RngStreams rng(1);
  k8s::ApiServer api(sim, log, rng);
  std::vector<k8s::PodId> pods = {
      api.create_pod(job_pod("a-1", "a", 1000)), api.create_pod(job_pod("b-1", "b", 1000)),
      api.create_pod(job_pod("a-2", "a", 1000)), api.create_pod(job_pod("a-3", "a", 2000)),  // other spec
      api.create_pod(job_pod("bare-1", "", 1000)), api.create_pod(job_pod("bare-2", "", 1000)),
  };
  std::vector<std::size_t> group_of;
  auto groups = build_pod_equivalence_groups(api, pods, &group_of);
  ASSERT_EQ(groups.size(), 5u);  // {a-1, a-2}, {b-1}, {a-3}, {bare-1}, {bare-2}
  EXPECT_EQ(groups[0].pods, (std::vector<k8s::PodId>{pods[0], pods[2]}));
  EXPECT_EQ(group_of, (std::vector<std::size_t>{0, 1, 0, 2, 3, 4}));
  // A different label splits the group too.
  k8s::Pod relabelled = job_pod("a-4", "a", 1000);
  relabelled.meta.labels["extra"] = "x";
  pods.push_back(api.create_pod(relabelled));
  EXPECT_EQ(build_pod_equivalence_groups(api, pods).size(), 6u);
}

// --- cache and fork -----------------------------------------------------------------------------

TEST(CasSnapshot, CacheRebuildsOnlyChangedNodesAndForkRevertsTrials) {
  engine::Simulator sim;
  k8s::EventLog log;
  engine::RngStreams rng(1);
  k8s::ApiServer api(sim, log, rng);
  NodeInfoCache cache(api);
  std::vector<k8s::NodeId> nodes;
  for (int i = 0; i < 3; ++i) {
    k8s::NodeRecord rec;
    rec.node.meta.name = "n" + std::to_string(i);
    rec.node.allocatable = {{"cpu", 4000}, {"memory", 8LL << 30}, {"pods", 110}};
    rec.node.ready = true;
    nodes.push_back(api.register_node(std::move(rec)));
  }
  EXPECT_EQ(cache.live().size(), 3u);
  for (auto id : nodes) cache.get(id);
  EXPECT_EQ(cache.rebuilds(), 3u);
  for (auto id : nodes) cache.get(id);
  EXPECT_EQ(cache.rebuilds(), 3u);  // nothing changed: nothing rebuilt
  k8s::PodId p = api.create_pod(job_pod("a-1", "a", 1000));
  api.bind(p, nodes[1]);
  EXPECT_EQ(cache.get(nodes[1]).requested.get(k8s::kCpu), 1000);
  EXPECT_EQ(cache.rebuilds(), 4u);  // only the node that got the pod
  api.set_pod_phase(p, k8s::PodPhase::Succeeded);
  EXPECT_EQ(cache.get(nodes[1]).requested.get(k8s::kCpu), 0);  // terminal pods hold nothing
  api.remove_node(nodes[2]);
  EXPECT_EQ(cache.live().size(), 2u);
  EXPECT_EQ(cache.live_pods(), (std::set<k8s::PodId>{p}));
  api.remove_pod(p);
  EXPECT_TRUE(cache.live_pods().empty());
  EXPECT_TRUE(cache.get(nodes[1]).pods.empty());

  SnapshotFork fork;
  fork.add_shared(&cache.get(nodes[0]));
  fork.add_shared(&cache.get(nodes[1]));
  k8s::Pod moved = job_pod("m", "m", 500);
  fork.fork();
  fork.add_pod(0, moved);
  EXPECT_EQ(fork.at(0).requested.get(k8s::kCpu), 500);
  EXPECT_EQ(cache.get(nodes[0]).requested.get(k8s::kCpu), 0);  // the cache is never written
  fork.revert();
  EXPECT_EQ(fork.at(0).requested.get(k8s::kCpu), 0);
  EXPECT_EQ(&fork.at(0), &cache.get(nodes[0]));  // shared again
  fork.fork();
  fork.add_pod(1, moved);
  fork.commit();
  fork.fork();
  fork.add_pod(1, moved);
  fork.revert();  // undoes the second trial only
  EXPECT_EQ(fork.at(1).requested.get(k8s::kCpu), 500);
}

TEST(CasSnapshot, FirstFitMemoStartsEqualTemplatesWhereTheLastOneEnded) {
  // a and b: two pods of one template (PodRecord::template_id 1); big: another (2).
  k8s::Pod a = job_pod("a-1", "a", 1000), b = job_pod("a-2", "a", 1000), big = job_pod("c-1", "c", 3000);
  const std::uint32_t ta = 1, tbig = 2;
  FirstFitMemo memo({});
  EXPECT_EQ(memo.start(a, ta), 0u);
  memo.record(a, ta, 4);
  EXPECT_EQ(memo.start(b, ta), 4u);    // same template: nodes 0..3 refused it
  EXPECT_EQ(memo.start(big, tbig), 0u);  // other template: nothing known
  memo.record(b, ta, 7);
  EXPECT_EQ(memo.start(a, ta), 7u);
  // Topology spread makes placements depend on where the others went: no memo.
  k8s::Pod spread = a;
  spread.spec.topology_spread_constraints.push_back(k8s::TopologySpreadConstraint{});
  memo.record(spread, 3, 9);
  EXPECT_EQ(memo.start(spread, 3), 0u);
  // Once a pod with required anti-affinity is placed, labels matter for every later pod.
  k8s::Pod anti = big;
  anti.spec.affinity.pod_anti_affinity_required.push_back(k8s::PodAffinityTerm{});
  memo.record(anti, 4, 2);
  EXPECT_EQ(memo.start(a, ta), 0u);
  // Nor does it apply when the snapshot already holds such a pod.
  k8s::NodeInfo holder = k8s::make_node_info(k8s::Node{});
  k8s::add_pod(holder, anti);
  std::vector<const k8s::NodeInfo*> all{&holder};
  FirstFitMemo off(all);
  off.record(a, ta, 5);
  EXPECT_EQ(off.start(b, ta), 0u);
}

// --- the controller in a running cluster --------------------------------------------------------

class CasBoundsRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("eksim-cas-bounds-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // `nodes` m5.large nodes in group ng-work (min 0), one 100m pod of Deployment "web" spread on
  // each (preferred anti-affinity), plus the given CA flags.
  scenario::Scenario spread_cluster(int nodes, const std::string& flags) {
    return cluster(nodes, nodes, nodes, "100m", flags);
  }
  // ng-work of m5.large (desired, max), Deployment "web" of `replicas` pods requesting `cpu`.
  // With system_group, a t3.medium group where the cluster-autoscaler pod runs when ng-work starts
  // empty (CA only acts while its pod is Running).
  scenario::Scenario cluster(int desired, int max, int replicas, const std::string& cpu, const std::string& flags,
                             bool system_group = false) {
    const std::string system = system_group ? "    ng-system: {instance_types: [t3.medium], desired_size: 1, min_size: 1, max_size: 1}\n" : "";
    std::string text = R"(apiVersion: eksim/v1
kind: Scenario
metadata: {name: bounds}
seed: 5
duration: 1h
cluster:
  name: myeks
  region: ap-northeast-2
  kubernetesVersion: "1.35"
  vpc:
    cidr: 192.168.0.0/16
    subnets: [{id: private-a, az: ap-northeast-2a, cidr: 192.168.12.0/22}]
  quotas: {onDemand: {Standard: 512, G: 512}}
  nodeGroups:
    ng-work:
      instance_types: [m5.large]
      desired_size: )" + std::to_string(desired) + R"(
      min_size: 0
      max_size: )" + std::to_string(max) + R"(
      labels: {role: work}
)" + system + R"(  autoscaler:
    clusterAutoscaler: {)" + flags + R"(}
manifests:
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web}
    spec:
      replicas: )" + std::to_string(replicas) + R"(
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:
          affinity:
            podAntiAffinity:
              preferredDuringSchedulingIgnoredDuringExecution:
                - weight: 100
                  podAffinityTerm: {labelSelector: {matchLabels: {app: web}}, topologyKey: kubernetes.io/hostname}
          containers:
            - {name: web, image: nginx:1.27, resources: {requests: {cpu: )" + cpu + R"(, memory: 64Mi}}}
)";
    std::ofstream(dir_ / "s.yaml") << text;
    return scenario::load_scenario((dir_ / "s.yaml").string());
  }
  static ClusterAutoscaler& ca(ops::RunResult& r) {
    return *r.cluster->controllers.cluster_autoscaler;
  }
  // "Scale-down: removing node ..." events by timestamp.
  static std::map<std::int64_t, int> drains_started(const ops::RunResult& r) {
    std::map<std::int64_t, int> at;
    for (const auto& e : r.cluster->log.events())
      if (e.reason == "ScaleDown" && e.message.rfind("Scale-down: removing node ", 0) == 0) at[e.time.us]++;
    return at;
  }
  std::filesystem::path dir_;
};

TEST_F(CasBoundsRun, AtMostMaxScaleDownParallelismNodesDrainAtOnce) {
  // Eight nodes, one small pod each: all but one are unneeded. Drains may run five at a time,
  // but the parallelism allows three.
  auto s = spread_cluster(8, "max-scale-down-parallelism: 3, max-drain-parallelism: 5");
  ops::RunOptions o;
  o.until = engine::Duration::minutes(40);
  auto r = ops::run_scenario(s, o);
  auto at = drains_started(r);
  ASSERT_FALSE(at.empty());
  int most = 0, total = 0;
  for (const auto& [t, n] : at) {
    most = std::max(most, n);
    total += n;
  }
  EXPECT_EQ(most, 3);
  EXPECT_GT(total, 3);  // the rest go once the first drains are over

  // Default budgets: one drain at a time.
  auto d = ops::run_scenario(spread_cluster(8, "scanInterval: 10s"), o);
  for (const auto& [t, n] : drains_started(d)) EXPECT_EQ(n, 1);
}

TEST_F(CasBoundsRun, CandidatesPoolLimitsTheNonEmptyNodesConsidered) {
  ops::RunOptions o;
  o.until = engine::Duration::minutes(5);  // pods running, nothing removed yet (unneeded time 10m)
  // Defaults: every node but the one that takes the pods is found unneeded, and but the one the
  // cluster-autoscaler pod runs on (a kube-system pod without a PodDisruptionBudget:
  // skip-nodes-with-system-pods).
  auto wide = ops::run_scenario(spread_cluster(8, "scanInterval: 10s"), o);
  EXPECT_EQ(ca(wide).unneeded_count(), 6u);
  // Two non-empty candidates per loop, looked for among max(ceil(8 * 0), 3) = 3 new ones; the
  // two found stay candidates, and with the count used up no others are simulated.
  auto narrow = ops::run_scenario(
      spread_cluster(8, "scale-down-non-empty-candidates-count: 2, scale-down-candidates-pool-ratio: 0, "
                        "scale-down-candidates-pool-min-count: 3"),
      o);
  EXPECT_EQ(ca(narrow).unneeded_count(), 2u);
  EXPECT_EQ(ca(narrow).last_planning().simulated, 2u);
  EXPECT_EQ(ca(narrow).last_planning().skipped_by_pool, 6u);
  auto reasons = ca(narrow).unremovable();
  int other = 0;
  for (const auto& [node, u] : reasons) other += u.reason == "NotUnneededOtherReason";
  EXPECT_EQ(other, 6);
}

TEST_F(CasBoundsRun, AQuietLoopRebuildsNoNodeInfo) {
  ops::RunOptions o;
  o.until = engine::Duration::minutes(5);
  auto r = ops::run_scenario(spread_cluster(8, "scanInterval: 10s"), o);
  ClusterAutoscaler& a = ca(r);
  a.run_once();
  const auto before = a.node_infos().rebuilds();
  a.run_once();  // nothing happened in between: every NodeInfo is reused
  EXPECT_EQ(a.node_infos().rebuilds(), before);
  // One node changes: one NodeInfo is rebuilt.
  k8s::NodeId some = *a.node_infos().live().begin();
  r.cluster->api.node_changed(some, k8s::NodeChange::Updated);
  a.run_once();
  EXPECT_EQ(a.node_infos().rebuilds(), before + 1);
}

TEST_F(CasBoundsRun, MaxNodesPerScaleUpCapsAScaleUp) {
  // Twelve pods that each need a node of their own (1500m of an m5.large's 1930m): the group
  // could take all twelve, the estimator stops at five.
  ops::RunOptions o;
  o.until = engine::Duration::seconds(30);
  auto r = ops::run_scenario(cluster(0, 12, 12, "1500m", "max-nodes-per-scaleup: 5", true), o);
  std::vector<std::string> scaled;
  for (const auto& e : r.cluster->log.events())
    if (e.reason == "ScaledUpGroup") scaled.push_back(e.message);
  ASSERT_FALSE(scaled.empty());
  EXPECT_NE(scaled.front().find("size to 5 instead of 0 (max: 12)"), std::string::npos) << scaled.front();
  // Without the flag's cap (default 1000) the first scale-up asks for all twelve.
  auto d = ops::run_scenario(cluster(0, 12, 12, "1500m", "scanInterval: 10s", true), o);
  for (const auto& e : d.cluster->log.events())
    if (e.reason == "ScaledUpGroup") {
      EXPECT_NE(e.message.find("size to 12 instead of 0 (max: 12)"), std::string::npos) << e.message;
      break;
    }
}

}  // namespace
}  // namespace eksim::autoscaling::cas
