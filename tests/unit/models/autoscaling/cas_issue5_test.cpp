// Cluster Autoscaler: balance-similar-node-groups, priority expander ConfigMap and chain,
// drainability rules with PodDisruptionBudgets and local storage, graceful termination cap,
// scale-down texts.
#include <gtest/gtest.h>

#include "models/autoscaling/cas/expander/expander.hpp"
#include "models/autoscaling/cas/processors/nodegroupset/balancing_processor.hpp"
#include "models/autoscaling/cas/processors/status/eventing_scale_up_processor.hpp"
#include "models/autoscaling/cas/simulator/drainability/rules.hpp"
#include "models/autoscaling/cas/simulator/utilization.hpp"
#include "models/autoscaling/cas/core/scaledown/actuation/drain.hpp"
#include "models/autoscaling/cluster_autoscaler.hpp"

namespace eksim::autoscaling::cas {
namespace {

k8s::Node gpu_node(const std::string& name, const std::string& zone, std::int64_t mem_mib = 15360) {
  k8s::Node n;
  n.meta.name = name;
  n.meta.labels = {{"kubernetes.io/hostname", name},
                   {"topology.kubernetes.io/zone", zone},
                   {"node.kubernetes.io/instance-type", "g5.xlarge"},
                   {"eks.amazonaws.com/nodegroup", "gpu-" + zone},
                   {"nvidia.com/gpu", "true"}};
  n.capacity = {{"cpu", 4000}, {"memory", mem_mib << 20}, {"pods", 58}, {"nvidia.com/gpu", 1}};
  n.allocatable = n.capacity;
  return n;
}

// --- similarity (compare_nodegroups.go) -----------------------------------------------------

TEST(CasBalance, SimilarityTolerancesLabelsAndTaints) {
  const auto ignored = aws_ignored_labels();
  auto a = gpu_node("a", "ap-northeast-2a");
  auto b = gpu_node("b", "ap-northeast-2b");
  // Zone, hostname and eks.amazonaws.com/nodegroup differ: ignored.
  EXPECT_TRUE(node_infos_similar(k8s::make_node_info(a), k8s::make_node_info(b), ignored));

  struct Case {
    std::string what;
    std::function<void(k8s::Node&)> change;
    bool similar;
  };
  const std::vector<Case> cases = {
      // Capacity memory within 1.5 %: 15360 MiB vs 15360 * 0.986 -> similar; 2 % off -> not.
      {"memory -1.4%", [](k8s::Node& n) { n.capacity.set("memory", (15360LL << 20) * 986 / 1000); n.allocatable = n.capacity; }, true},
      {"memory -2%", [](k8s::Node& n) { n.capacity.set("memory", (15360LL << 20) * 98 / 100); n.allocatable = n.capacity; }, false},
      // Other capacities must be equal.
      {"cpu differs", [](k8s::Node& n) { n.capacity.set("cpu", 8000); n.allocatable = n.capacity; }, false},
      {"gpu missing", [](k8s::Node& n) { n.capacity.set("nvidia.com/gpu", 0); n.capacity = k8s::ResourceList{{"cpu", 4000}, {"memory", 15360LL << 20}, {"pods", 58}}; n.allocatable = n.capacity; }, false},
      // Allocatable within 5 %: 4 % less cpu allocatable is fine, 6 % is not.
      {"alloc cpu -4%", [](k8s::Node& n) { n.allocatable.set("cpu", 3840); }, true},
      {"alloc cpu -6%", [](k8s::Node& n) { n.allocatable.set("cpu", 3760); }, false},
      // A label that is not ignored must match; AWS-specific ignored labels may differ.
      {"tier label", [](k8s::Node& n) { n.meta.labels["tier"] = "gpu"; }, false},
      {"lifecycle label", [](k8s::Node& n) { n.meta.labels["lifecycle"] = "Ec2Spot"; }, true},
      {"eksctl nodegroup", [](k8s::Node& n) { n.meta.labels["alpha.eksctl.io/nodegroup-name"] = "x"; }, true},
      {"ebs csi zone", [](k8s::Node& n) { n.meta.labels["topology.ebs.csi.aws.com/zone"] = "x"; }, true},
      // Taints are not compared (upstream neither; pods that do not tolerate drop the group later).
      {"taint", [](k8s::Node& n) { n.taints.push_back({"nvidia.com/gpu", "true", "NoSchedule"}); }, true},
  };
  for (const auto& c : cases) {
    auto x = gpu_node("b", "ap-northeast-2b");
    c.change(x);
    EXPECT_EQ(node_infos_similar(k8s::make_node_info(a), k8s::make_node_info(x), ignored), c.similar) << c.what;
  }
  // --balancing-ignore-label adds to the list.
  auto x = gpu_node("b", "ap-northeast-2b");
  x.meta.labels["nodegroup-name"] = "gpu-b";
  a.meta.labels["nodegroup-name"] = "gpu-a";
  EXPECT_FALSE(node_infos_similar(k8s::make_node_info(a), k8s::make_node_info(x), ignored));
  EXPECT_TRUE(node_infos_similar(k8s::make_node_info(a), k8s::make_node_info(x), aws_ignored_labels({"nodegroup-name"})));
}

TEST(CasBalance, FreeResourcesWithinFivePercent) {
  const auto ignored = aws_ignored_labels();
  auto a = gpu_node("a", "z1");
  auto b = gpu_node("b", "z2");
  k8s::Pod p;
  p.meta.name = "ds";
  k8s::Container c;
  c.requests.set("cpu", 400);  // 10 % of 4 CPUs used on one node only
  p.spec.containers.push_back(c);
  std::vector<const k8s::Pod*> pods{&p};
  EXPECT_FALSE(node_infos_similar(k8s::make_node_info(a, pods), k8s::make_node_info(b), ignored));
  p.spec.containers.mut()[0].requests.set("cpu", 100);  // 2.5 %
  EXPECT_TRUE(node_infos_similar(k8s::make_node_info(a, pods), k8s::make_node_info(b), ignored));
}

// --- BalanceScaleUpBetweenGroups (balancing_processor_test.go cases) ---------------------------

TEST(CasBalance, SplitTable) {
  struct Case {
    std::vector<GroupSize> groups;
    std::int64_t new_nodes;
    std::vector<ScaleUpInfo> want;
  };
  const std::vector<Case> cases = {
      // Two empty groups, 4 nodes: 2 + 2.
      {{{"g1", 0, 3}, {"g2", 0, 3}}, 4, {{"g1", 0, 2, 3}, {"g2", 0, 2, 3}}},
      // Odd count: the first group in order gets the extra node.
      {{{"g1", 0, 3}, {"g2", 0, 3}}, 1, {{"g1", 0, 1, 3}}},
      // Smallest group first: g2 (1) catches up with g1 (3), then alternate.
      {{{"g1", 3, 10}, {"g2", 1, 10}}, 4, {{"g2", 1, 4, 10}, {"g1", 3, 4, 10}}},
      // Max size respected, the rest goes to the other group.
      {{{"g1", 0, 1}, {"g2", 0, 10}}, 4, {{"g1", 0, 1, 1}, {"g2", 0, 3, 10}}},
      // Capped at the set's capacity; maxed groups are skipped.
      {{{"g1", 2, 2}, {"g2", 0, 2}}, 5, {{"g2", 0, 2, 2}}},
      {{{"g1", 2, 2}}, 1, {}},
      // Three groups sizes 1, 2, 3 and 6 nodes: all end at 4.
      {{{"a", 3, 9}, {"b", 1, 9}, {"c", 2, 9}}, 6, {{"b", 1, 4, 9}, {"c", 2, 4, 9}, {"a", 3, 4, 9}}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) EXPECT_EQ(balance_scale_up(cases[i].groups, cases[i].new_nodes), cases[i].want) << i;
  EXPECT_EQ(triggered_scale_up_message({scale_up_info("g1", 0, 1, 3), scale_up_info("g2", 0, 1, 3)}),
            "pod triggered scale-up: [{g1 0->1 (max: 3)} {g2 0->1 (max: 3)}]");
}

// --- priority expander ConfigMap --------------------------------------------------------------

ExpansionOption opt(const std::string& id, std::int64_t nodes, std::int64_t vcpu, const std::vector<const k8s::Pod*>& pods) {
  ExpansionOption o;
  o.group_id = id;
  o.node_count = nodes;
  o.pods = pods;
  o.template_node.capacity.set("cpu", vcpu * 1000);
  o.template_node.capacity.set("memory", vcpu * 4 << 30);
  return o;
}

TEST(CasPriority, ChainHighestWinsTiesFallThroughUnmatchedReported) {
  k8s::Pod p;
  k8s::Container c;
  c.requests.set("cpu", 1000);
  c.requests.set("memory", 1LL << 30);
  p.spec.containers.push_back(c);
  std::vector<const k8s::Pod*> pods{&p};
  auto spot_small = opt("eks-gpu-spot-small", 1, 4, pods);
  auto spot_big = opt("eks-gpu-spot-big", 1, 16, pods);
  auto od = opt("eks-gpu-ondemand", 1, 4, pods);
  auto other = opt("eks-cpu", 1, 4, pods);
  PriorityConfig prio{{50, {".*spot.*"}}, {10, {".*ondemand.*"}}};
  engine::Rng rng(3);
  std::vector<std::string> unmatched;
  // Highest priority (50) keeps both spot groups; least-waste then prefers the small one.
  EXPECT_EQ(choose_option({od, spot_big, spot_small, other}, {Expander::Priority, Expander::LeastWaste}, prio, rng, &unmatched), 2);
  EXPECT_EQ(unmatched, (std::vector<std::string>{"eks-cpu"}));
  // Without the spot groups the on-demand one wins even though it is not the least waste.
  unmatched.clear();
  auto od_big = opt("eks-gpu-ondemand-big", 1, 16, pods);
  EXPECT_EQ(choose_option({other, od_big}, {Expander::Priority, Expander::LeastWaste}, prio, rng, &unmatched), 1);
  // Nothing matches: no option is filtered, least-waste decides.
  EXPECT_EQ(choose_option({spot_big, spot_small}, {Expander::Priority, Expander::LeastWaste}, PriorityConfig{{5, {"^nomatch$"}}}, rng), 1);
  // The chain stops once a single option is left (priority decides, least-waste never runs).
  EXPECT_EQ(choose_option({spot_small, od}, {Expander::Priority, Expander::LeastWaste}, PriorityConfig{{5, {"ondemand"}}}, rng), 1);
  EXPECT_TRUE(priority_group_matches("eks-gpu-spot-2024", {"spot"}));  // unanchored, as FindStringIndex
  EXPECT_FALSE(priority_group_matches("eks-gpu", {"^spot"}));
}

// --- drainability -------------------------------------------------------------------------

k8s::Pod pod(const std::string& name, const std::string& ns = "default", bool controlled = true) {
  k8s::Pod p;
  p.meta.name = name;
  p.meta.ns = ns;
  p.meta.labels = {{"app", name}};
  if (controlled) p.meta.owner_references.push_back({"ReplicaSet", name + "-rs", true});
  p.status.phase = k8s::PodPhase::Running;
  return p;
}

TEST(CasDrain, BlockersInUpstreamOrderWithTexts) {
  RemainingPdb none_left;
  none_left.ns = "default";
  none_left.selector.match_labels = {{"app", "web"}};
  none_left.disruptions_allowed = 0;
  RemainingPdb sys_pdb;
  sys_pdb.ns = "kube-system";
  sys_pdb.selector.match_labels = {{"app", "coredns"}};
  sys_pdb.disruptions_allowed = 1;
  const std::vector<RemainingPdb> pdbs{none_left, sys_pdb};

  struct Case {
    std::string what;
    k8s::Pod pod;
    DrainOptions options;
    std::optional<BlockingPod> want;
  };
  auto with = [](k8s::Pod p, auto f) { f(p); return p; };
  const std::vector<Case> cases = {
      {"replicated", pod("api"), {}, std::nullopt},
      {"bare pod", pod("bare", "default", false), {}, BlockingPod{"NotReplicated", "default/bare is not replicated"}},
      {"bare, safe-to-evict", with(pod("bare", "default", false), [](k8s::Pod& p) { p.meta.annotations[kAnnotationSafeToEvict] = "true"; }), {}, std::nullopt},
      {"kube-system without PDB", pod("metrics", "kube-system"), {},
       BlockingPod{"UnmovableKubeSystemPod", "non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: metrics"}},
      {"kube-system with PDB", pod("coredns", "kube-system"), {}, std::nullopt},
      {"kube-system, flag off", pod("metrics", "kube-system"), DrainOptions{false, true}, std::nullopt},
      {"not safe to evict", with(pod("api"), [](k8s::Pod& p) { p.meta.annotations[kAnnotationSafeToEvict] = "false"; }), {},
       BlockingPod{"NotSafeToEvictAnnotation", "pod annotated as not safe to evict present: api"}},
      {"emptyDir", with(pod("cache"), [](k8s::Pod& p) { p.spec.volumes.push_back({"scratch", "emptyDir", ""}); }), {},
       BlockingPod{"LocalStorageRequested", "pod with local storage present: cache"}},
      {"hostPath", with(pod("logs"), [](k8s::Pod& p) { p.spec.volumes.push_back({"varlog", "hostPath", ""}); }), {},
       BlockingPod{"LocalStorageRequested", "pod with local storage present: logs"}},
      {"emptyDir, flag off", with(pod("cache"), [](k8s::Pod& p) { p.spec.volumes.push_back({"scratch", "emptyDir", ""}); }), DrainOptions{true, false}, std::nullopt},
      {"emptyDir listed safe", with(pod("cache"), [](k8s::Pod& p) {
         p.spec.volumes.push_back({"scratch", "emptyDir", ""});
         p.meta.annotations[kAnnotationSafeToEvictLocalVolumes] = "scratch";
       }), {}, std::nullopt},
      {"pvc is not local", with(pod("db"), [](k8s::Pod& p) { p.spec.volumes.push_back({"data", "persistentVolumeClaim", ""}); }), {}, std::nullopt},
      {"PDB exhausted", pod("web"), {}, BlockingPod{"NotEnoughPdb", "not enough pod disruption budget to move default/web"}},
      {"PDB exhausted, safe-to-evict", with(pod("web"), [](k8s::Pod& p) { p.meta.annotations[kAnnotationSafeToEvict] = "true"; }), {}, std::nullopt},
      // replicated is checked before local storage and the PDB.
      {"bare with emptyDir", with(pod("web", "default", false), [](k8s::Pod& p) { p.spec.volumes.push_back({"s", "emptyDir", ""}); }), {},
       BlockingPod{"NotReplicated", "default/web is not replicated"}},
      {"DaemonSet", with(pod("agent"), [](k8s::Pod& p) { p.meta.owner_references = {{"DaemonSet", "agent", true}}; p.spec.volumes.push_back({"h", "hostPath", ""}); }), {}, std::nullopt},
      {"terminal bare", with(pod("done", "default", false), [](k8s::Pod& p) { p.status.phase = k8s::PodPhase::Succeeded; }), {}, std::nullopt},
  };
  for (const auto& c : cases) EXPECT_EQ(drain_blocker(c.pod, c.options, pdbs), c.want) << c.what;
}

TEST(CasDrain, GracefulTerminationCap) {
  struct Case {
    std::int64_t pod_grace, cap, want;
  };
  const std::vector<Case> cases = {{30, 600, 30}, {900, 600, 600}, {3600, 60, 60}, {0, 600, 0}, {120, 0, 120}};
  for (const auto& c : cases) {
    k8s::Pod p;
    p.spec.termination_grace_period_seconds = c.pod_grace;
    EXPECT_EQ(eviction_grace_seconds(p, c.cap), c.want) << c.pod_grace << " " << c.cap;
  }
}

TEST(CasDrain, UtilizationInfoAsGoPrintsIt) {
  Utilization u;
  u.cpu = 0.25;
  u.memory = 0.75;
  u.value = 0.75;
  EXPECT_EQ(utilization_info_string(u), "{0.25 0.75 0 memory 0.75}");
  u.cpu = 0.5;
  u.memory = 0.5;
  u.value = 0.5;
  EXPECT_EQ(utilization_info_string(u), "{0.5 0.5 0 memory 0.5}");  // ties go to memory
  u.cpu = 0.0625;
  u.memory = 0.01;
  u.gpu_node = true;
  u.gpu = 0;
  u.value = 0;
  EXPECT_EQ(utilization_info_string(u), "{0.0625 0.01 0 nvidia.com/gpu 0}");
  EXPECT_EQ(go_float(0.00001), "1e-05");
  EXPECT_EQ(go_float(0.0001), "0.0001");
  EXPECT_EQ(go_float(1.0 / 3), "0.3333333333333333");
}

}  // namespace
}  // namespace eksim::autoscaling::cas
