#include "models/k8s/scheduling/queueing_hints.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "models/k8s/scheduling/scheduler_controller.hpp"
#include "tests/unit/models/k8s/k8s_test_util.hpp"

namespace eksim::k8s {
namespace {

using engine::Duration;
using engine::SimTime;
using testing::K8sWorld;

Pod requesting(const std::string& name, std::int64_t cpu_milli) {
  Pod p = testing::make_pod(name, "busybox");
  p.spec.containers.mut()[0].requests.set(kCpu, cpu_milli);
  return p;
}

struct QueueingWorld : K8sWorld {
  SchedulerController scheduler{api};
  std::size_t failed(const std::string& pod) { return events("FailedScheduling", "Pod/default/" + pod).size(); }
};

// activeQ order: the highest priority first, then the order the pods were queued.
TEST(SchedulingQueue, HighestPriorityFirstThenFirstQueued) {
  QueueingWorld w;
  w.add_ready_node("n1", ResourceList{{"cpu", 2000}, {"pods", 10}});
  auto with_priority = [](const std::string& name, std::int32_t priority) {
    Pod p = requesting(name, 1000);
    p.spec.priority = priority;
    return p;
  };
  PodId low_first = w.api.create_pod(with_priority("low-first", 0));
  PodId low_second = w.api.create_pod(with_priority("low-second", 0));
  PodId high = w.api.create_pod(with_priority("high", 1000));
  w.run_until_s(1);
  EXPECT_EQ(w.api.pod(high).pod.spec.node_name, "n1");
  EXPECT_EQ(w.api.pod(low_first).pod.spec.node_name, "n1");
  EXPECT_TRUE(w.api.pod(low_second).pod.spec.node_name.empty());
  EXPECT_EQ(w.failed("low-second"), 1u);
}

TEST(QueueingHints, NodeEventsMoveOnlyPodsThePluginThatRejectedThemWouldNowPass) {
  QueueingWorld w;
  w.add_ready_node("small", ResourceList{{"cpu", 1000}, {"pods", 10}});
  PodId big = w.api.create_pod(requesting("big", 4000));
  w.run_until_s(1);
  ASSERT_EQ(w.failed("big"), 1u);
  // A second small node: NodeResourcesFit still fails there -> QueueSkip, no new attempt.
  w.add_ready_node("small-2", ResourceList{{"cpu", 1000}, {"pods", 10}});
  w.run_until_s(20);
  EXPECT_EQ(w.failed("big"), 1u);
  EXPECT_TRUE(w.scheduler.is_unschedulable(big));
  // A node it fits on -> Queue, scheduled after its back-off.
  w.add_ready_node("large", ResourceList{{"cpu", 8000}, {"pods", 10}});
  w.run_until_s(40);
  EXPECT_EQ(w.failed("big"), 1u);
  ASSERT_EQ(w.events("Scheduled", "Pod/default/big").size(), 1u);
  EXPECT_EQ(w.api.pod(big).pod.spec.node_name, "large");
}

TEST(QueueingHints, TaintRemovalMovesATaintRejectedPodButNotAnUnrelatedUpdate) {
  QueueingWorld w;
  NodeId n = w.add_ready_node("n1", ResourceList{{"cpu", 4000}, {"pods", 10}}, {},
                              {Taint{"dedicated", "gpu", kNoSchedule}});
  PodId p = w.api.create_pod(requesting("web", 100));
  w.run_until_s(1);
  ASSERT_EQ(w.failed("web"), 1u);
  // A label change keeps the taint: TaintToleration still fails -> no attempt.
  w.api.node(n).node.meta.labels["team"] = "a";
  w.api.node_changed(n, NodeChange::Updated);
  w.run_until_s(30);
  EXPECT_EQ(w.failed("web"), 1u);
  // Removing the taint -> Queue.
  w.api.node(n).node.taints.clear();
  w.api.node_changed(n, NodeChange::Updated);
  w.run_until_s(60);
  EXPECT_EQ(w.failed("web"), 1u);
  EXPECT_EQ(w.api.pod(p).pod.spec.node_name, "n1");
}

TEST(QueueingHints, AnAssignedPodLeavingMovesResourceRejectedPods) {
  QueueingWorld w;
  w.add_ready_node("n1", ResourceList{{"cpu", 1000}, {"pods", 10}});
  PodId first = w.api.create_pod(requesting("first", 800));
  w.run_until_s(1);
  ASSERT_EQ(w.api.pod(first).pod.spec.node_name, "n1");
  PodId second = w.api.create_pod(requesting("second", 800));
  w.run_until_s(2);
  ASSERT_EQ(w.failed("second"), 1u);
  w.run_until_s(100);
  EXPECT_EQ(w.failed("second"), 1u);  // nothing changed: parked, no retries
  w.api.set_pod_phase(first, PodPhase::Succeeded);
  w.run_until_s(120);
  EXPECT_EQ(w.api.pod(second).pod.spec.node_name, "n1");
}

TEST(QueueingHints, ParkedPodsAreStillFlushedAfterFiveMinutes) {
  QueueingWorld w;
  w.add_ready_node("small", ResourceList{{"cpu", 1000}, {"pods", 10}});
  w.api.create_pod(requesting("big", 4000));
  w.run_until_s(1);
  ASSERT_EQ(w.failed("big"), 1u);
  w.run_until_s(299);
  EXPECT_EQ(w.failed("big"), 1u);
  // podMaxInUnschedulablePodsDuration 5 min, checked every 30 s: the next attempt is at 330 s.
  w.run_until_s(331);
  EXPECT_EQ(w.failed("big"), 2u);
  auto ev = w.events("FailedScheduling", "Pod/default/big");
  EXPECT_EQ(ev.back().count, 2);  // the identical message is one Event with count 2
  ASSERT_EQ(w.log.series_count(), 1u);
  EXPECT_EQ(w.log.copy_series()[0].count, 2);
}

TEST(QueueingHints, ThousandsOfFailuresAtOnceOverflowTheSchedulersEventQueue) {
  // 3,000 pods fail in the same instant: the client writes a burst of 100, the broadcaster queues
  // 1,000 more (tools/events, DropIfChannelFull), and the rest are dropped unseen.
  QueueingWorld w;
  w.add_ready_node("small", ResourceList{{"cpu", 1000}, {"pods", 110}});
  for (int i = 0; i < 3000; ++i) w.api.create_pod(requesting(fmt::format("r-{:04}", i), 2000));
  w.run_until_s(1);
  EXPECT_EQ(w.events("FailedScheduling").size(), 1100u);
  EXPECT_EQ(w.log.dropped(), 1900u);
  EXPECT_EQ(w.scheduler.unschedulable_pods().size(), 3000u);  // every pod was still attempted
  // The queue drains at 50 writes a second; the flush at 330 s sends 1,100 again.
  w.run_until_s(331);
  EXPECT_EQ(w.events("FailedScheduling").size(), 2200u);
}

TEST(QueueingHints, ThousandsOfParkedReplicasRetryTogetherAndKeepOneEventEach) {
  // A Deployment's worth of identical pods that never fit: every one fails at once, parks, and is
  // flushed back after 5 min (at the 30 s tick past it, 330 s), then again 330 s later. Each pod
  // keeps one FailedScheduling Event (events.k8s.io series) whose count is its attempts. (1,000
  // at once: the most the scheduler's event queue and client burst take, 1,000 + 100.)
  QueueingWorld w;
  w.add_ready_node("small", ResourceList{{"cpu", 1000}, {"pods", 110}});
  constexpr int kPods = 1000;
  for (int i = 0; i < kPods; ++i) w.api.create_pod(requesting(fmt::format("r-{:04}", i), 2000));
  w.run_until_s(1);
  EXPECT_EQ(w.events("FailedScheduling").size(), std::size_t{kPods});
  EXPECT_EQ(w.scheduler.unschedulable_pods().size(), std::size_t{kPods});
  w.run_until_s(329);
  EXPECT_EQ(w.events("FailedScheduling").size(), std::size_t{kPods});
  w.run_until_s(331);
  EXPECT_EQ(w.events("FailedScheduling").size(), std::size_t{2 * kPods});
  w.run_until_s(661);
  EXPECT_EQ(w.events("FailedScheduling").size(), std::size_t{3 * kPods});
  ASSERT_EQ(w.log.series_count(), std::size_t{kPods});
  const auto series = w.log.copy_series();
  EXPECT_EQ(series.front().count, 3);
  EXPECT_EQ(series.back().count, 3);
  EXPECT_EQ(series.back().object.name, "r-0999");
  EXPECT_EQ(series.back().last_time, SimTime{} + Duration::seconds(660));
  // A node they fit on: the whole group moves at once and the first 110 bind to it.
  w.add_ready_node("large", ResourceList{{"cpu", 400000}, {"pods", 110}});
  w.run_until_s(700);
  EXPECT_EQ(w.events("Scheduled").size(), 110u);
  EXPECT_EQ(w.scheduler.unschedulable_pods().size(), std::size_t{kPods - 110});
  EXPECT_EQ(w.api.pod(PodId{0}).pod.spec.node_name, "large");
}

}  // namespace
}  // namespace eksim::k8s
