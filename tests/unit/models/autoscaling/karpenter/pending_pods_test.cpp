#include "models/autoscaling/karpenter/provisioning/pending_pods.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/unit/models/k8s/k8s_test_util.hpp"

namespace eksim::autoscaling::karpenter {
namespace {

k8s::Pod pending_pod(const std::string& name, std::int64_t cpu_m, std::int64_t mem) {
  k8s::Pod p;
  p.meta.name = name;
  k8s::Container c;
  c.name = "main";
  c.requests.set(k8s::kCpu, cpu_m);
  c.requests.set(k8s::kMemory, mem);
  p.spec.containers.push_back(c);
  return p;
}

std::vector<std::string> names(const OrderedPods& pods) {
  std::vector<std::string> out;
  for (const auto* p : pods.pods) out.push_back(p->meta.name);
  return out;
}

// The queue gives what solve() would sort the same pods into: CPU, then memory, descending,
// then the older pod, then the smaller uid; pods that stopped pending leave it for good.
TEST(PendingPods, KeepsSolveOrderAcrossArrivalsAndDrops) {
  k8s::testing::K8sWorld w;
  k8s::PodClasses classes;
  std::vector<k8s::PodId> ids;
  ids.push_back(w.api.create_pod(pending_pod("small", 100, 1 << 20)));
  ids.push_back(w.api.create_pod(pending_pod("big", 2000, 1 << 20)));
  ids.push_back(w.api.create_pod(pending_pod("mid-more-mem", 500, 4 << 20)));
  k8s::Pod other = pending_pod("other-scheduler", 4000, 1 << 20);
  other.spec.scheduler_name = "my-scheduler";
  ids.push_back(w.api.create_pod(other));  // never joins: not Karpenter's to provision for
  PendingPods queue;
  for (auto id : ids) queue.arrived(id);
  std::vector<k8s::PodId> gone;
  auto stays = [&](const k8s::PodRecord& r) {
    for (auto id : gone)
      if (&w.api.pod(id) == &r) return false;
    return true;
  };
  const PendingPods::Filter pending{
      [&](const k8s::PodRecord& r) { return stays(r) && r.pod.spec.scheduler_name == "default-scheduler"; }, stays};
  queue.refresh(w.api, classes, pending);
  std::vector<k8s::PodId> order;
  OrderedPods first = queue.ordered(w.api, classes, {}, {}, order);
  EXPECT_EQ(names(first), (std::vector<std::string>{"big", "mid-more-mem", "small"}));
  EXPECT_EQ(order, (std::vector<k8s::PodId>{ids[1], ids[2], ids[0]}));
  ASSERT_EQ(first.classes.size(), 3u);
  EXPECT_NE(first.classes[0], kNoPodClass);  // no topology terms: every pod has a class
  EXPECT_NE(first.classes[0], first.classes[2]);

  // A later pod like an earlier one goes after it (older first); a bound pod leaves.
  w.sim.run_until(engine::SimTime{1'000'000});
  const k8s::PodId late = w.api.create_pod(pending_pod("mid-later", 500, 4 << 20));
  queue.arrived(late);
  gone.push_back(ids[1]);
  queue.refresh(w.api, classes, pending);
  // Pods of a node being deleted join in order, without entering the queue.
  std::vector<k8s::Pod> extra{pending_pod("moving", 1000, 1 << 20)};
  extra[0].meta.uid = "moving-uid";
  OrderedPods second = queue.ordered(w.api, classes, extra, {k8s::PodId{99}}, order);
  EXPECT_EQ(names(second), (std::vector<std::string>{"moving", "mid-more-mem", "mid-later", "small"}));
  EXPECT_EQ(order, (std::vector<k8s::PodId>{k8s::PodId{99}, ids[2], late, ids[0]}));
  EXPECT_EQ(second.classes[1], second.classes[2]);  // same requests, same class

  // The same pods through solve()'s own sort give the same order.
  std::vector<const k8s::Pod*> all{&extra[0], &w.api.pod(ids[0]).pod, &w.api.pod(ids[2]).pod, &w.api.pod(late).pod};
  order_pods(all);
  EXPECT_EQ(all, second.pods);

  gone = {ids[0], ids[2], late};
  EXPECT_FALSE(queue.any(w.api, pending));
  queue.refresh(w.api, classes, pending);
  EXPECT_TRUE(queue.ordered(w.api, classes, {}, {}, order).pods.empty());
}

}  // namespace
}  // namespace eksim::autoscaling::karpenter
