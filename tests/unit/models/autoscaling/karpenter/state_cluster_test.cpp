// Karpenter cluster state (state/cluster.hpp): the cached StateNodes match a rebuild from the API
// objects after every kind of change, pod classes group exactly the pods the filters judge alike,
// a simulation's delta overlay answers "first fit" as a scan of full NodeInfos would, and the
// multi-node consolidation window is bounded by upstream's 100 candidates.
#include <gtest/gtest.h>

#include "models/autoscaling/karpenter/state/cluster.hpp"
#include "models/k8s/scheduling/plugins.hpp"
#include "tests/unit/models/autoscaling/karpenter/karpenter_world.hpp"

namespace eksim::autoscaling::karpenter {
namespace {

using engine::Duration;
using test::World;

void expect_same(const std::vector<ExistingNode>& cached, const std::vector<ExistingNode>& rebuilt, const char* when) {
  SCOPED_TRACE(when);
  ASSERT_EQ(cached.size(), rebuilt.size());
  for (std::size_t i = 0; i < cached.size(); ++i) {
    const ExistingNode& a = cached[i];
    const ExistingNode& b = rebuilt[i];
    EXPECT_EQ(a.node_name, b.node_name) << i;
    EXPECT_EQ(a.nodeclaim, b.nodeclaim) << i;
    EXPECT_EQ(a.initialized, b.initialized) << i;
    EXPECT_EQ(a.info.name(), b.info.name()) << i;
    EXPECT_EQ(a.info.pods, b.info.pods) << i;
    EXPECT_TRUE(a.info.requested == b.info.requested) << i;
    EXPECT_TRUE(a.info.node.allocatable == b.info.node.allocatable) << i;
    EXPECT_EQ(a.info.node.taints, b.info.node.taints) << i;
    EXPECT_EQ(a.info.node.meta.labels, b.info.node.meta.labels) << i;
  }
}

TEST(KarpenterClusterState, CacheMatchesRebuildThroughLaunchRegistrationDrainAndDeletion) {
  World w;
  w.pool("WhenEmptyOrUnderutilized", Duration::minutes(1));
  auto a = w.pod("a", 1500);
  w.run_to(Duration::seconds(3));
  // Launched, not registered: the NodeClaim counts as a node.
  expect_same(w.k->cached_simulation_nodes(), w.k->rebuilt_simulation_nodes(), "launched");
  EXPECT_EQ(w.k->cached_simulation_nodes().size(), 1u);
  w.run_to(Duration::seconds(45));
  expect_same(w.k->cached_simulation_nodes(), w.k->rebuilt_simulation_nodes(), "registered");
  auto b = w.pod("b", 1500);
  w.run_to(Duration::minutes(3));
  expect_same(w.k->cached_simulation_nodes(), w.k->rebuilt_simulation_nodes(), "two nodes initialized");
  w.bind(a, 0);
  auto c = w.pod("c", 200);
  w.run_to(Duration::minutes(4));
  expect_same(w.k->cached_simulation_nodes(), w.k->rebuilt_simulation_nodes(), "pods bound");
  const auto with_pods = w.k->cached_simulation_nodes();
  std::size_t pods = 0;
  for (const auto& n : with_pods) pods += n.info.pods.size();
  EXPECT_GE(pods, 3u);  // the cache saw the bindings (a, b, c), not a stale empty node
  w.cluster->kubelet->delete_pod(a);
  w.cluster->kubelet->delete_pod(c);
  w.run_to(Duration::minutes(5));
  expect_same(w.k->cached_simulation_nodes(), w.k->rebuilt_simulation_nodes(), "pods deleted");
  w.cluster->kubelet->delete_pod(b);
  // Emptiness after 1 m: disrupted taint, drain, termination, Node gone.
  w.run_to(Duration::minutes(8));
  expect_same(w.k->cached_simulation_nodes(), w.k->rebuilt_simulation_nodes(), "consolidated");
  EXPECT_TRUE(w.live().empty());
  EXPECT_TRUE(w.k->cached_simulation_nodes().empty());
}

k8s::Pod pod_with(const std::string& name, std::int64_t cpu_m) {
  k8s::Pod p;
  p.meta.name = name;
  p.meta.ns = "default";
  p.meta.uid = "uid-" + name;
  k8s::Container c;
  c.name = "main";
  c.requests.set(k8s::kCpu, cpu_m);
  p.spec.containers.push_back(c);
  return p;
}

TEST(KarpenterPodClasses, SameFilterInputsShareAClassOthersDoNot) {
  state::PodClasses classes;
  k8s::Pod a = pod_with("a", 500), b = pod_with("b", 500), c = pod_with("c", 600);
  b.meta.labels["app"] = "other";  // labels are not read by an unconstrained pod's filters
  b.spec.node_name = "ip-1";       // nor is nodeName: the representative is unbound
  ASSERT_TRUE(classes.of(a).has_value());
  EXPECT_EQ(classes.of(a), classes.of(b));
  EXPECT_NE(classes.of(a), classes.of(c));
  EXPECT_TRUE(classes.representative(*classes.of(b)).spec.node_name.empty());
  k8s::Pod tolerant = pod_with("t", 500);
  tolerant.spec.tolerations.push_back(k8s::Toleration{"gpu", "Exists", "", "NoSchedule", std::nullopt});
  EXPECT_NE(classes.of(a), classes.of(tolerant));
  k8s::Pod selective = pod_with("s", 500);
  selective.spec.node_selector["zone"] = "a";
  EXPECT_NE(classes.of(a), classes.of(selective));
  // Constraints that look beyond the node have no class (the simulation scans instead).
  k8s::Pod spread = pod_with("sp", 500);
  spread.spec.topology_spread_constraints.push_back(k8s::TopologySpreadConstraint{});
  EXPECT_FALSE(classes.of(spread).has_value());
  k8s::Pod anti = pod_with("an", 500);
  anti.spec.affinity.pod_anti_affinity_required.push_back(k8s::PodAffinityTerm{});
  EXPECT_FALSE(classes.of(anti).has_value());
  k8s::Pod port = pod_with("po", 500);
  port.spec.containers.mut()[0].ports.push_back(k8s::ContainerPort{80, 8080, "TCP"});
  EXPECT_FALSE(classes.of(port).has_value());
}

state::StateNode state_node(const std::string& name, std::int64_t cpu_m, bool initialized) {
  k8s::Node n;
  n.meta.name = name;
  n.allocatable = {{"cpu", cpu_m}, {"pods", 10}};
  n.ready = true;
  state::StateNode s;
  s.node.node_name = name;
  s.node.initialized = initialized;
  s.node.info = k8s::make_node_info(n);
  s.dirty = false;
  return s;
}

TEST(KarpenterSimulationNodes, FirstFitWithDeltaMatchesAScanOverFullNodeInfos) {
  std::vector<state::StateNode> nodes{state_node("n1", 1000, true), state_node("n2", 2000, true),
                                      state_node("n3", 500, true), state_node("n4", 4000, false)};
  state::Snapshot snap;
  snap.version = 1;
  for (auto& n : nodes) snap.nodes.push_back(&n);
  state::PodClasses classes;
  std::vector<k8s::Pod> pods;
  for (int i = 0; i < 8; ++i) pods.push_back(pod_with("p" + std::to_string(i), 600));
  // Leave n2 out, as a consolidation candidate's own node is.
  state::SimulationNodes sim(snap, classes, {1});
  std::vector<ExistingNode> reference;
  for (auto& n : nodes) reference.push_back(n.node);
  const k8s::SchedulerOptions options;
  for (const auto& p : pods) {
    std::optional<std::size_t> hit;
    ASSERT_TRUE(sim.first_fit(p, options, hit));
    std::optional<std::size_t> expect;
    for (std::size_t i = 0; i < reference.size() && !expect; ++i)
      if (i != 1 && k8s::fits(p, reference[i].info, k8s::NodeInfoView{}, options).ok()) expect = i;
    EXPECT_EQ(hit, expect) << p.meta.name;
    if (!hit) continue;
    sim.add_pod(*hit, p);
    k8s::add_pod(reference[*hit].info, p);
    EXPECT_TRUE(sim.get(*hit).info.requested == reference[*hit].info.requested);
  }
  // n1 takes one 600m pod, n3 none, n4 (4000m) six; the eighth fits nowhere.
  EXPECT_EQ(sim.get(0).info.pods.size(), 1u);
  EXPECT_EQ(sim.get(3).info.pods.size(), 6u);
  EXPECT_TRUE(sim.base(3).info.pods.empty());  // the snapshot itself is untouched
  EXPECT_TRUE(nodes[3].node.info.pods.empty());
}

TEST(KarpenterMultiNodeConsolidation, ConsidersAtMostOneHundredCandidates) {
  EXPECT_EQ(MultiNodeConsolidation::search_limit(0), 0u);
  EXPECT_EQ(MultiNodeConsolidation::search_limit(1), 0u);  // single-node consolidation's
  EXPECT_EQ(MultiNodeConsolidation::search_limit(2), 2u);
  EXPECT_EQ(MultiNodeConsolidation::search_limit(57), 57u);
  EXPECT_EQ(MultiNodeConsolidation::search_limit(100), 100u);
  EXPECT_EQ(MultiNodeConsolidation::search_limit(5000), 100u);
}

}  // namespace
}  // namespace eksim::autoscaling::karpenter
