#include "models/k8s/scheduling/plugins.hpp"

#include <gtest/gtest.h>

#include "tests/unit/models/k8s/scheduling/scheduling_fixtures.hpp"

namespace eksim::k8s {
namespace {

using testing::kGi;
using testing::view_of;
using testing::make_node;
using testing::app_term;
using testing::make_pod;

TEST(SchedulingFilters, ResourceFitReportsEveryShortageIncludingExtended) {
  Node n = make_node("gpu-1", 4000, 16 * kGi, 2);
  n.allocatable.set("nvidia.com/gpu", 1);
  n.allocatable.set("ephemeral-storage", 20 * kGi);
  Pod running = make_pod("running", 3000, 8 * kGi);
  std::vector<const Pod*> on_node = {&running};
  NodeInfo info = make_node_info(n, on_node);

  Pod big = make_pod("big", 2000, 10 * kGi);
  big.spec.containers.mut()[0].requests.set("nvidia.com/gpu", 2);
  big.spec.containers.mut()[0].requests.set("ephemeral-storage", 30 * kGi);
  auto r = fits(big, info, {});
  EXPECT_EQ(r.code, FilterCode::Unschedulable);
  EXPECT_EQ(r.plugin, "NodeResourcesFit");
  EXPECT_EQ(r.reasons, (std::vector<std::string>{"Insufficient cpu", "Insufficient ephemeral-storage",
                                                  "Insufficient memory", "Insufficient nvidia.com/gpu"}));

  Pod one_gpu = make_pod("ok", 1000, 8 * kGi);
  one_gpu.spec.containers.mut()[0].requests.set("nvidia.com/gpu", 1);
  EXPECT_TRUE(fits(one_gpu, info, {}).ok());
  // An extended resource the node does not advertise at all.
  Pod efa = make_pod("efa", 100, 0);
  efa.spec.containers.mut()[0].requests.set("vpc.amazonaws.com/efa", 1);
  EXPECT_EQ(fits(efa, info, {}).reasons, std::vector<std::string>{"Insufficient vpc.amazonaws.com/efa"});

  // Pod count: allocatable pods 2, one running -> second fits, third is "Too many pods".
  Pod small = make_pod("small", 0, 0);
  EXPECT_TRUE(fits(small, info, {}).ok());
  add_pod(info, small);
  auto full = fits(big, info, {});
  ASSERT_FALSE(full.reasons.empty());
  EXPECT_EQ(full.reasons.front(), "Too many pods");
  EXPECT_EQ(full.reasons.size(), 5u);
}

TEST(SchedulingFilters, InitContainerMaxAndTerminalPodsIgnored) {
  Node n = make_node("n", 2000, 4 * kGi);
  Pod done = make_pod("done", 2000, 0);
  done.status.phase = PodPhase::Succeeded;
  std::vector<const Pod*> pods = {&done};
  NodeInfo info = make_node_info(n, pods);
  EXPECT_EQ(info.pod_count(), 0);
  Pod p = make_pod("p", 500, 0);
  Container init;
  init.requests.set("cpu", 2500);
  p.spec.init_containers.push_back(init);
  EXPECT_EQ(fits(p, info, {}).reasons, std::vector<std::string>{"Insufficient cpu"});
}

// Issue 42 item 3: two containers of cpu 5e15 once summed to a negative request that fit a
// 2-vCPU node.
TEST(SchedulingFilters, RequestsPastInt64DoNotFit) {
  Node n = make_node("n", 2000, 4 * kGi);
  NodeInfo info = make_node_info(n);
  Pod p = make_pod("huge", 5'000'000'000'000'000'000, 0);
  Container second = p.spec.containers[0];
  second.name = "second";
  p.spec.containers.push_back(second);
  EXPECT_EQ(fits(p, info, {}).reasons, std::vector<std::string>{"Insufficient cpu"});
}

TEST(SchedulingFilters, FirstFailingPluginWins) {
  Node n = make_node("n", 100, kGi);
  n.unschedulable = true;
  n.taints = {{"dedicated", "gpu", "NoSchedule"}};
  NodeInfo info = make_node_info(n);
  Pod p = make_pod("p", 4000, 0);
  p.spec.node_selector = {{"nope", "x"}};
  EXPECT_EQ(fits(p, info, {}).reasons, std::vector<std::string>{"node(s) were unschedulable"});
  // Tolerating the cordon taint gets past NodeUnschedulable.
  p.spec.tolerations.push_back({"node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule", {}});
  EXPECT_EQ(fits(p, info, {}).reasons, std::vector<std::string>{"node(s) had untolerated taint {dedicated: gpu}"});
  SchedulerOptions v135;
  v135.version.minor = 35;
  EXPECT_EQ(fits(p, info, {}, v135).reasons, std::vector<std::string>{"node(s) had untolerated taint(s)"});
  p.spec.tolerations.push_back({"dedicated", "Equal", "gpu", "", {}});
  EXPECT_EQ(fits(p, info, {}).reasons, std::vector<std::string>{"node(s) didn't match Pod's node affinity/selector"});
  EXPECT_EQ(fits(p, info, {}).code, FilterCode::UnschedulableAndUnresolvable);
  p.spec.node_selector.clear();
  EXPECT_EQ(fits(p, info, {}).reasons, std::vector<std::string>{"Insufficient cpu"});
  p.spec.node_name = "other";
  EXPECT_EQ(fits(p, info, {}).reasons, std::vector<std::string>{"node(s) didn't match the requested node name"});
}

TEST(SchedulingFilters, TaintTextByVersion) {
  Taint t{"CriticalAddonsOnly", "", "NoSchedule"};
  EXPECT_EQ(untolerated_taint_reason(t, {33, -1}), "node(s) had untolerated taint {CriticalAddonsOnly: }");
  EXPECT_EQ(untolerated_taint_reason(t, {34, 1}), "node(s) had untolerated taint {CriticalAddonsOnly: }");
  EXPECT_EQ(untolerated_taint_reason(t, {34, 2}), "node(s) had untolerated taint(s)");
  EXPECT_EQ(untolerated_taint_reason(t, {34, -1}), "node(s) had untolerated taint(s)");
  EXPECT_EQ(untolerated_taint_reason(t, {35, 0}), "node(s) had untolerated taint(s)");
}

TEST(SchedulingFilters, HostPorts) {
  Node n = make_node("n", 4000, 8 * kGi);
  Pod web = make_pod("web", 100, 0);
  web.spec.containers.mut()[0].ports = {{8080, 80, "TCP"}};
  std::vector<const Pod*> pods = {&web};
  NodeInfo info = make_node_info(n, pods);
  Pod same = make_pod("same", 100, 0);
  same.spec.containers.mut()[0].ports = {{8080, 80, "TCP"}};
  auto r = fits(same, info, {});
  EXPECT_EQ(r.reasons, std::vector<std::string>{"node(s) didn't have free ports for the requested pod ports"});
  EXPECT_EQ(r.code, FilterCode::Unschedulable);
  Pod udp = make_pod("udp", 100, 0);
  udp.spec.containers.mut()[0].ports = {{8080, 80, "UDP"}};
  EXPECT_TRUE(fits(udp, info, {}).ok());
  Pod no_host = make_pod("nohost", 100, 0);
  no_host.spec.containers.mut()[0].ports = {{80, 0, "TCP"}};
  EXPECT_TRUE(fits(no_host, info, {}).ok());
  ASSERT_TRUE(remove_pod(info, web));
  EXPECT_TRUE(fits(same, info, {}).ok());
}

TEST(SchedulingFilters, TopologySpreadZoneMaxSkew) {
  std::vector<Pod> pods;
  pods.reserve(8);
  auto web = [&](const std::string& name) {
    Pod p = make_pod(name, 100, 0);
    p.meta.labels = {{"app", "web"}};
    pods.push_back(p);
    return &pods.back();
  };
  std::vector<NodeInfo> infos = {make_node_info(make_node("a1", 8000, 8 * kGi, 110, "a")),
                                 make_node_info(make_node("b1", 8000, 8 * kGi, 110, "b")),
                                 make_node_info(make_node("c1", 8000, 8 * kGi, 110, "c"))};
  add_pod(infos[0], *web("w1"));
  add_pod(infos[0], *web("w2"));
  add_pod(infos[1], *web("w3"));
  Pod other = make_pod("other", 100, 0);  // does not match the selector
  add_pod(infos[2], other);
  Node nolabel = make_node("x1", 8000, 8 * kGi);
  nolabel.meta.labels.erase(kLabelZone);
  infos.push_back(make_node_info(nolabel));
  auto all = view_of(infos);

  Pod incoming = make_pod("new", 100, 0);
  incoming.meta.labels = {{"app", "web"}};
  TopologySpreadConstraint c;
  c.max_skew = 1;
  c.topology_key = kLabelZone;
  c.label_selector.match_labels = {{"app", "web"}};
  incoming.spec.topology_spread_constraints = {c};
  // counts a=2 b=1 c=0, min 0: a -> skew 3, b -> 2, c -> 1.
  EXPECT_EQ(fits(incoming, infos[0], all).reasons,
            std::vector<std::string>{"node(s) didn't match pod topology spread constraints"});
  EXPECT_FALSE(fits(incoming, infos[1], all).ok());
  EXPECT_TRUE(fits(incoming, infos[2], all).ok());
  auto missing = fits(incoming, infos[3], all);
  EXPECT_EQ(missing.code, FilterCode::UnschedulableAndUnresolvable);
  EXPECT_EQ(missing.reasons,
            std::vector<std::string>{"node(s) didn't match pod topology spread constraints (missing required label)"});
  incoming.spec.topology_spread_constraints[0].max_skew = 2;
  EXPECT_TRUE(fits(incoming, infos[1], all).ok());
  EXPECT_FALSE(fits(incoming, infos[0], all).ok());
  // Nodes the pod's nodeSelector excludes do not count as domains (nodeAffinityPolicy Honor):
  // with only zones a and b eligible, min is 1 and a (2+1-1=2) fits maxSkew 2.
  incoming.spec.affinity.node_required = std::vector<NodeSelectorTerm>{
      NodeSelectorTerm{{{kLabelZone, "In", {"a", "b"}}}, {}}};
  EXPECT_TRUE(fits(incoming, infos[0], all).ok());
  // ScheduleAnyway constraints never filter.
  incoming.spec.affinity.node_required.reset();
  incoming.spec.topology_spread_constraints[0].max_skew = 1;
  incoming.spec.topology_spread_constraints[0].when_unsatisfiable = "ScheduleAnyway";
  EXPECT_TRUE(fits(incoming, infos[0], all).ok());
}

TEST(SchedulingFilters, PodAntiAffinityAndAffinityHostnameAndZone) {
  std::vector<NodeInfo> infos = {make_node_info(make_node("a1", 8000, 8 * kGi, 110, "a")),
                                 make_node_info(make_node("a2", 8000, 8 * kGi, 110, "a")),
                                 make_node_info(make_node("b1", 8000, 8 * kGi, 110, "b"))};
  Pod db = make_pod("db-0", 100, 0);
  db.meta.labels = {{"app", "db"}};
  add_pod(infos[0], db);
  auto all = view_of(infos);

  Pod db1 = make_pod("db-1", 100, 0);
  db1.meta.labels = {{"app", "db"}};
  PodAffinityTerm host_term = app_term("db", kLabelHostname);
  db1.spec.affinity.pod_anti_affinity_required = {host_term};
  EXPECT_EQ(fits(db1, infos[0], all).reasons, std::vector<std::string>{"node(s) didn't match pod anti-affinity rules"});
  EXPECT_TRUE(fits(db1, infos[1], all).ok());
  PodAffinityTerm zone_term = app_term("db", kLabelZone);
  db1.spec.affinity.pod_anti_affinity_required = {zone_term};
  EXPECT_FALSE(fits(db1, infos[1], all).ok());
  EXPECT_TRUE(fits(db1, infos[2], all).ok());
  // Another namespace is not selected by a term without namespaces.
  db1.meta.ns = "other";
  EXPECT_TRUE(fits(db1, infos[1], all).ok());

  // Symmetry: an existing pod's required anti-affinity repels a matching newcomer.
  Pod loner = make_pod("loner", 100, 0);
  loner.spec.affinity.pod_anti_affinity_required = {app_term("web", kLabelZone)};
  add_pod(infos[2], loner);
  all = view_of(infos);
  Pod web = make_pod("web", 100, 0);
  web.meta.labels = {{"app", "web"}};
  EXPECT_EQ(fits(web, infos[2], all).reasons,
            std::vector<std::string>{"node(s) didn't satisfy existing pods anti-affinity rules"});
  EXPECT_TRUE(fits(web, infos[1], all).ok());

  // Required affinity to db in the same zone: zone a only.
  Pod app = make_pod("app", 100, 0);
  app.spec.affinity.pod_affinity_required = {zone_term};
  EXPECT_TRUE(fits(app, infos[1], all).ok());
  auto r = fits(app, infos[2], all);
  EXPECT_EQ(r.reasons, std::vector<std::string>{"node(s) didn't match pod affinity rules"});
  EXPECT_EQ(r.code, FilterCode::UnschedulableAndUnresolvable);
  // The first pod of a self-selecting group may go anywhere.
  Pod first = make_pod("cache-0", 100, 0);
  first.meta.labels = {{"app", "cache"}};
  first.spec.affinity.pod_affinity_required = {app_term("cache", kLabelZone)};
  EXPECT_TRUE(fits(first, infos[2], all).ok());
}

TEST(SchedulingScores, LeastAllocatedBalancedAndNormalize) {
  Node n = make_node("n", 4000, 8 * kGi);
  NodeInfo info = make_node_info(n);
  Pod p = make_pod("p", 1000, 2 * kGi);
  auto s = pod_scheduling_info(p);
  EXPECT_EQ(least_allocated_score(s, info), 75);  // (75 + 75) / 2
  EXPECT_EQ(balanced_allocation_score(s, info), 100);
  Pod q = make_pod("q", 2000, 0);
  auto sq = pod_scheduling_info(q);
  // cpu (4000-2000)*100/4000 = 50; memory uses the 200Mi default: (8Gi-200Mi)*100/8Gi = 97.
  EXPECT_EQ(least_allocated_score(sq, info), (50 + 97) / 2);
  EXPECT_EQ(balanced_allocation_score(sq, info), 75);  // fractions .5 and 0

  std::vector<std::int64_t> v = {0, 2, 4};
  default_normalize_score(v, false);
  EXPECT_EQ(v, (std::vector<std::int64_t>{0, 50, 100}));
  v = {0, 1, 2};
  default_normalize_score(v, true);
  EXPECT_EQ(v, (std::vector<std::int64_t>{100, 50, 0}));
  v = {0, 0};
  default_normalize_score(v, true);
  EXPECT_EQ(v, (std::vector<std::int64_t>{100, 100}));
}

TEST(SchedulingScores, PreferencesTaintsAffinity) {
  Node plain = make_node("plain", 4000, 8 * kGi);
  Node soft = make_node("soft", 4000, 8 * kGi);
  soft.taints = {{"spot", "", "PreferNoSchedule"}};
  Node gpu = make_node("gpu", 4000, 8 * kGi);
  gpu.meta.labels["accel"] = "a10g";
  std::vector<NodeInfo> infos = {make_node_info(plain), make_node_info(soft), make_node_info(gpu)};
  auto all = view_of(infos);
  Pod p = make_pod("p", 1000, kGi);
  p.spec.affinity.node_preferred = {{10, NodeSelectorTerm{{{"accel", "Exists", {}}}, {}}}};
  auto s = pod_scheduling_info(p);
  auto scores = score_nodes(p, s, all, all);
  // Same resources everywhere; taint score 3*100 except soft (0), affinity 2*100 on gpu only.
  EXPECT_EQ(scores[2] - scores[0], 200);
  EXPECT_EQ(scores[0] - scores[1], 300);
}

}  // namespace
}  // namespace eksim::k8s
