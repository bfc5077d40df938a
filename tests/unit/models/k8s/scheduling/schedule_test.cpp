#include "models/k8s/scheduling/schedule.hpp"

#include <gtest/gtest.h>

#include "tests/unit/models/k8s/scheduling/scheduling_fixtures.hpp"

namespace eksim::k8s {
namespace {

using testing::kGi;
using testing::view_of;
using testing::make_node;
using testing::app_term;
using testing::make_pod;

SchedulerOptions version(int minor, int patch = -1) {
  SchedulerOptions o;
  o.version = {minor, patch};
  return o;
}

// Lab 001 on 1.33: a system node tainted CriticalAddonsOnly and a node Karpenter is disrupting.
std::vector<NodeInfo> lab001_nodes() {
  Node system = make_node("ip-10-0-1-10", 2000, 4 * kGi);
  system.taints = {{"CriticalAddonsOnly", "", "NoSchedule"}};
  Node disrupted = make_node("ip-10-0-2-20", 4000, 16 * kGi);
  disrupted.taints = {{"karpenter.sh/disrupted", "", "NoSchedule"}};
  return {make_node_info(system), make_node_info(disrupted)};
}

TEST(SchedulingMessages, FactsExample133Verbatim) {
  auto nodes = lab001_nodes();
  Pod p = make_pod("web", 500, kGi);
  auto r = schedule_one(p, view_of(nodes), version(33));
  EXPECT_FALSE(r.scheduled());
  EXPECT_EQ(r.message,
            "0/2 nodes are available: 1 node(s) had untolerated taint {CriticalAddonsOnly: }, 1 node(s) had "
            "untolerated taint {karpenter.sh/disrupted: }. preemption: 0/2 nodes are available: 2 Preemption is "
            "not helpful for scheduling.");
  EXPECT_EQ(r.unschedulable_plugins, std::set<std::string>{"TaintToleration"});
}

// 1.35: a tainted control-plane-like node and two workers without room.
std::vector<NodeInfo> example135_nodes(std::vector<Pod>& pods) {
  Node tainted = make_node("system", 4000, 16 * kGi);
  tainted.taints = {{"CriticalAddonsOnly", "", "NoSchedule"}};
  Node w1 = make_node("worker-1", 2000, 8 * kGi);
  Node w2 = make_node("worker-2", 2000, 8 * kGi);
  pods.reserve(2);
  pods.push_back(make_pod("busy-1", 1800, kGi));
  pods.push_back(make_pod("busy-2", 1800, kGi));
  std::vector<NodeInfo> infos = {make_node_info(tainted), make_node_info(w1), make_node_info(w2)};
  add_pod(infos[1], pods[0]);
  add_pod(infos[2], pods[1]);
  return infos;
}

TEST(SchedulingMessages, FactsExample135Verbatim) {
  std::vector<Pod> pods;
  auto nodes = example135_nodes(pods);
  Pod p = make_pod("php-apache", 1200, kGi);
  auto r = schedule_one(p, view_of(nodes), version(35));
  EXPECT_EQ(r.message,
            "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. no new claims to "
            "deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No "
            "preemption victims found for incoming pod.");
}

TEST(SchedulingMessages, Version134) {
  std::vector<Pod> pods;
  auto nodes = example135_nodes(pods);
  Pod p = make_pod("php-apache", 1200, kGi);
  const std::string tail =
      ", 2 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is "
      "not helpful for scheduling, 2 No preemption victims found for incoming pod.";
  // v1.34.0 and v1.34.1 still name the taint; v1.34.2 took the cherry-pick (#135023).
  EXPECT_EQ(schedule_one(p, view_of(nodes), version(34, 1)).message,
            "0/3 nodes are available: 1 node(s) had untolerated taint {CriticalAddonsOnly: }" + tail);
  EXPECT_EQ(schedule_one(p, view_of(nodes), version(34, 2)).message,
            "0/3 nodes are available: 1 node(s) had untolerated taint(s)" + tail);
  EXPECT_EQ(schedule_one(p, view_of(nodes), version(34)).message,
            "0/3 nodes are available: 1 node(s) had untolerated taint(s)" + tail);
  // 1.33 has no DRA PostFilter text.
  EXPECT_EQ(schedule_one(p, view_of(nodes), version(33)).message,
            "0/3 nodes are available: 1 node(s) had untolerated taint {CriticalAddonsOnly: }, 2 Insufficient cpu. "
            "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption "
            "victims found for incoming pod.");
}

TEST(SchedulingMessages, HistogramSortsAsStrings) {
  std::map<std::string, std::int64_t> h = {{"Insufficient cpu", 2}, {"node(s) had untolerated taint(s)", 10},
                                           {"Insufficient memory", 2}};
  EXPECT_EQ(format_reason_histogram(h),
            "10 node(s) had untolerated taint(s), 2 Insufficient cpu, 2 Insufficient memory");
  EXPECT_EQ(failed_scheduling_message(14, h, ""),
            "0/14 nodes are available: 10 node(s) had untolerated taint(s), 2 Insufficient cpu, 2 Insufficient "
            "memory.");
}

TEST(SchedulingMessages, DistinctTaintsAreSeparateEntriesUpTo133) {
  std::vector<NodeInfo> nodes;
  for (int i = 0; i < 3; ++i) {
    Node n = make_node("gpu-" + std::to_string(i), 4000, 16 * kGi);
    n.taints = {{"nvidia.com/gpu", i < 2 ? "true" : "present", "NoSchedule"}};
    nodes.push_back(make_node_info(n));
  }
  Pod p = make_pod("p", 100, 0);
  EXPECT_EQ(schedule_one(p, view_of(nodes), version(33)).message,
            "0/3 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: present}, 2 node(s) had "
            "untolerated taint {nvidia.com/gpu: true}. preemption: 0/3 nodes are available: 3 Preemption is not "
            "helpful for scheduling.");
  EXPECT_EQ(schedule_one(p, view_of(nodes), version(35)).message,
            "0/3 nodes are available: 3 node(s) had untolerated taint(s). no new claims to deallocate, preemption: "
            "0/3 nodes are available: 3 Preemption is not helpful for scheduling.");
}

TEST(SchedulingMessages, NoNodes) {
  Pod p = make_pod("p", 100, 0);
  auto r = schedule_one(p, NodeInfoView{}, version(35));
  EXPECT_FALSE(r.scheduled());
  EXPECT_EQ(r.message, "no nodes available to schedule pods");
  SchedulingSnapshot empty;
  EXPECT_EQ(schedule_one(p, empty, version(33)).message, "no nodes available to schedule pods");
}

TEST(SchedulingPreemption, HigherPriorityPodGetsVictimsAndNoPostFilterText) {
  std::vector<Pod> pods;
  pods.reserve(3);
  pods.push_back(make_pod("low-a", 1000, kGi));
  pods.push_back(make_pod("low-b", 800, kGi));
  pods.push_back(make_pod("high-existing", 1500, kGi));
  pods[2].spec.priority = 1000;
  std::vector<NodeInfo> nodes = {make_node_info(make_node("n1", 2000, 8 * kGi)),
                                 make_node_info(make_node("n2", 2000, 8 * kGi))};
  add_pod(nodes[0], pods[0]);
  add_pod(nodes[0], pods[1]);
  add_pod(nodes[1], pods[2]);
  Pod urgent = make_pod("urgent", 1100, kGi);
  urgent.spec.priority = 500;
  auto r = schedule_one(urgent, view_of(nodes), version(35));
  EXPECT_FALSE(r.scheduled());
  ASSERT_TRUE(r.preemption);
  EXPECT_EQ(r.preemption->node_name, "n1");
  // Both low pods are removed, then reprieved most important first (equal priority: by name):
  // low-a back would need 1000+1100 > 2000, so it is a victim; low-b (800) stays.
  ASSERT_EQ(r.preemption->victims.size(), 1u);
  EXPECT_EQ(r.preemption->victims[0]->meta.name, "low-a");
  EXPECT_EQ(r.message, "0/2 nodes are available: 2 Insufficient cpu.");

  // Same priority: nothing to preempt.
  urgent.spec.priority = 0;
  r = schedule_one(urgent, view_of(nodes), version(33));
  EXPECT_FALSE(r.preemption);
  EXPECT_EQ(r.message,
            "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption "
            "victims found for incoming pod.");
  // Lower-priority pods exist but removing them is not enough: the filter reason is reported.
  urgent.spec.priority = 1;
  urgent.spec.containers.mut()[0].requests.set("cpu", 3000);
  r = schedule_one(urgent, view_of(nodes), version(33));
  EXPECT_EQ(r.message,
            "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 1 Insufficient cpu, "
            "1 No preemption victims found for incoming pod.");
  SchedulerOptions off = version(33);
  off.preemption = false;
  EXPECT_EQ(schedule_one(urgent, view_of(nodes), off).message, "0/2 nodes are available: 2 Insufficient cpu.");
}

TEST(SchedulingSelect, TieBreakIsNodeNameAscendingAndDeterministic) {
  std::vector<NodeInfo> nodes;
  for (const char* name : {"node-c", "node-a", "node-b"}) nodes.push_back(make_node_info(make_node(name, 4000, 8 * kGi)));
  Pod p = make_pod("p", 500, kGi);
  auto v = view_of(nodes);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(schedule_one(p, v, {}).node_name, "node-a");
  std::reverse(v.begin(), v.end());
  EXPECT_EQ(schedule_one(p, v, {}).node_name, "node-a");
  // A better score beats the name.
  Pod filler = make_pod("filler", 1000, 0);
  add_pod(nodes[1], filler);  // node-a now busier
  EXPECT_EQ(schedule_one(p, view_of(nodes), {}).node_name, "node-b");
}

TEST(SchedulingSnapshot, ClassesMatchPerNodeSchedulingAndFollowBinds) {
  SchedulingSnapshot snap;
  for (int i = 0; i < 6; ++i) snap.set_node(make_node("n" + std::to_string(i), 4000, 16 * kGi, 110, i % 2 ? "a" : "b"));
  Node gpu = make_node("gpu", 8000, 32 * kGi);
  gpu.taints = {{"nvidia.com/gpu", "true", "NoSchedule"}};
  snap.set_node(gpu);
  EXPECT_EQ(snap.class_count(), 3u);  // zone a, zone b, tainted gpu
  std::vector<Pod> pods;
  pods.reserve(40);
  for (int i = 0; i < 40; ++i) pods.push_back(make_pod("p" + std::to_string(i), 300 + 50 * (i % 3), kGi));
  std::map<std::string, std::string> where;
  for (auto& p : pods) {
    auto fast = schedule_one(p, snap, {});
    auto slow = schedule_one(p, snap.nodes(), {});
    ASSERT_EQ(fast.node_name, slow.node_name) << p.meta.name;
    ASSERT_EQ(fast.message, slow.message);
    if (!fast.scheduled()) continue;
    ASSERT_TRUE(snap.bind(p, fast.node_name));
    where[p.meta.name] = fast.node_name;
  }
  EXPECT_EQ(snap.find("gpu")->pod_count(), 0);
  std::int64_t total = 0;
  for (const NodeInfo* n : snap.nodes()) total += n->pod_count();
  EXPECT_EQ(total, 40);
  Pod huge = make_pod("huge", 3900, kGi);
  auto fast = schedule_one(huge, snap, version(35));
  EXPECT_EQ(fast.message, schedule_one(huge, snap.nodes(), version(35)).message);
  EXPECT_EQ(fast.message,
            "0/7 nodes are available: 1 node(s) had untolerated taint(s), 6 Insufficient cpu. no new claims to "
            "deallocate, preemption: 0/7 nodes are available: 1 Preemption is not helpful for scheduling, 6 No "
            "preemption victims found for incoming pod.");
  const std::string& n = where["p0"];
  auto before = snap.find(n)->pod_count();
  ASSERT_TRUE(snap.unbind(pods[0], n));
  EXPECT_EQ(snap.find(n)->pod_count(), before - 1);
  EXPECT_FALSE(snap.unbind(pods[0], n));
  snap.remove_node("gpu");
  EXPECT_EQ(snap.size(), 6u);
}

TEST(SchedulingSnapshot, AntiAffinityFallsBackToPerNode) {
  SchedulingSnapshot snap;
  for (int i = 0; i < 3; ++i) snap.set_node(make_node("n" + std::to_string(i), 4000, 16 * kGi));
  std::vector<Pod> pods;
  pods.reserve(4);
  for (int i = 0; i < 4; ++i) {
    Pod p = make_pod("db-" + std::to_string(i), 100, 0);
    p.meta.labels = {{"app", "db"}};
    p.spec.affinity.pod_anti_affinity_required = {app_term("db", kLabelHostname)};
    pods.push_back(p);
  }
  std::set<std::string> used;
  for (int i = 0; i < 3; ++i) {
    auto r = schedule_one(pods[i], snap, {});
    ASSERT_TRUE(r.scheduled());
    EXPECT_TRUE(used.insert(r.node_name).second);
    snap.bind(pods[i], r.node_name);
  }
  EXPECT_TRUE(snap.any_pod_affinity());
  auto r = schedule_one(pods[3], snap, version(33));
  EXPECT_EQ(r.message,
            "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: 0/3 nodes are "
            "available: 3 No preemption victims found for incoming pod.");
  // A plain pod must now avoid nothing but still uses the per-node path correctly.
  Pod plain = make_pod("plain", 100, 0);
  EXPECT_TRUE(schedule_one(plain, snap, {}).scheduled());
}

// A DaemonSet pod names its node (matchFields metadata.name): NodeAffinity's PreFilterResult
// limits the search to that node, and the other nodes get the FitError's absent-nodes status,
// whose text changed in 1.28 and 1.31.
TEST(SchedulingSnapshot, PodThatNamesItsNodeIsFilteredOnThatNodeOnly) {
  SchedulingSnapshot snap;
  for (int i = 0; i < 4; ++i) snap.set_node(make_node("n" + std::to_string(i), 4000, 16 * kGi));
  Pod busy = make_pod("busy", 2000, 0);
  ASSERT_TRUE(snap.bind(busy, "n1"));
  auto pinned = [](const std::string& node, std::int64_t cpu_m) {
    Pod p = make_pod("agent-" + node, cpu_m, 0);
    NodeSelectorTerm term;
    term.match_fields.push_back(NodeSelectorRequirement{"metadata.name", "In", {node}});
    p.spec.affinity.node_required = std::vector<NodeSelectorTerm>{term};
    return p;
  };
  // Fits on its own node although emptier nodes score higher.
  auto ok = schedule_one(pinned("n1", 1000), snap, version(33));
  EXPECT_EQ(ok.node_name, "n1");
  Pod big = pinned("n1", 3000);
  EXPECT_EQ(schedule_one(big, snap, version(33)).message,
            "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
            "preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption "
            "is not helpful for scheduling.");
  EXPECT_EQ(schedule_one(big, snap, version(29)).message,
            "0/4 nodes are available: 1 Insufficient cpu, 3 node is filtered out by the prefilter result. "
            "preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption "
            "is not helpful for scheduling.");
  // Before 1.28 the absent nodes are in no histogram of the filter part.
  EXPECT_EQ(schedule_one(big, snap, version(27)).message.rfind("0/4 nodes are available: 1 Insufficient cpu. preemption:", 0), 0u);
  // Its node is gone: every node is absent.
  EXPECT_EQ(schedule_one(pinned("gone", 100), snap, version(33)).message,
            "0/4 nodes are available: 4 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/4 nodes "
            "are available: 4 Preemption is not helpful for scheduling.");
}

}  // namespace
}  // namespace eksim::k8s
