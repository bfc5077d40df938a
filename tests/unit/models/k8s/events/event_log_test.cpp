#include "models/k8s/events/event_log.hpp"

#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <fmt/format.h>

namespace eksim::k8s {
namespace {

using engine::Duration;
using engine::SimTime;

TEST(EventLog, CountsRepeatsPerObjectReasonAndMessage) {
  EventLog log;
  ObjectRef pod{"Pod", "default", "gpu-pod"};
  log.record(SimTime{0}, EventType::Warning, "BackOff", pod, "Back-off restarting failed container", "kubelet");
  log.record(SimTime{10}, EventType::Normal, "Pulled", pod, "Container image already present", "kubelet");
  log.record(SimTime{20}, EventType::Warning, "BackOff", pod, "Back-off restarting failed container", "kubelet");
  log.record(SimTime{30}, EventType::Warning, "BackOff", {"Pod", "default", "other"},
             "Back-off restarting failed container", "kubelet");
  ASSERT_EQ(log.events().size(), 4u);
  EXPECT_EQ(log.events()[0].count, 1);
  EXPECT_EQ(log.events()[1].count, 1);
  EXPECT_EQ(log.events()[2].count, 2);
  EXPECT_EQ(log.events()[3].count, 1);
}

TEST(ObjectRef, PrintsKindNamespaceName) {
  EXPECT_EQ((ObjectRef{"Pod", "default", "gpu-pod"}).str(), "Pod/default/gpu-pod");
  EXPECT_EQ((ObjectRef{"Node", "", "ip-10-0-1-2.ec2.internal"}).str(), "Node/ip-10-0-1-2.ec2.internal");
}

}  // namespace
}  // namespace eksim::k8s

namespace eksim::k8s {
namespace {

TEST(EventCorrelator, IdenticalEventsUpdateOneEventWithCountAndTimestamps) {
  EventLog log;
  ObjectRef pod{"Pod", "default", "gpu-pod"};
  for (int i = 0; i < 5; ++i)
    log.record(SimTime{} + Duration::seconds(60 * i), EventType::Warning, "BackOff", pod, "Back-off", "kubelet");
  ASSERT_EQ(log.series_count(), 1u);
  EXPECT_EQ(log.copy_series()[0].count, 5);
  EXPECT_EQ(log.copy_series()[0].time, SimTime{});
  EXPECT_EQ(log.copy_series()[0].last_time, SimTime{} + Duration::seconds(240));
  EXPECT_EQ(log.events().size(), 5u);
  EXPECT_EQ(log.occurrences(), 5u);
}

// The aggregator's message set at its limit: a new message joins, the first (in order) leaves, and
// the occurrence is combined; a message still in the set keeps its own Event. Checked against a
// plain sorted-set model over messages that come back in a scrambled order.
TEST(EventCorrelator, MessageSetAtItsLimitDropsTheFirstAndCombinesTheNew) {
  EventLog log;
  // The aggregator alone: a spam filter that lets all 200 through.
  SpamFilterOptions all_through;  // not a designated initializer: GCC 12 warns (-Wmissing-field-initializers)
  all_through.burst = 1000;        // about the std::optional member left out
  log.filter_spam("replicaset-controller", all_through);
  ObjectRef rs{"ReplicaSet", "default", "web-5d8f"};
  std::set<std::string> model;
  std::map<std::string, int> own;  // message -> occurrences in its own Event
  int combined = 0;
  for (int i = 0; i < 200; ++i) {
    const std::string message = fmt::format("Created pod: web-{:02}", (i * 7) % 23);
    log.record(SimTime{} + Duration::seconds(i), EventType::Normal, "SuccessfulCreate", rs, message,
               "replicaset-controller");
    const bool folded = !model.contains(message) && model.size() + 1 >= 10;
    if (folded) {
      if (*model.begin() < message) {
        model.erase(model.begin());
        model.insert(message);
      }
      ++combined;
    } else {
      model.insert(message);
      ++own[message];
    }
    ASSERT_EQ(log.events().back().count, folded ? combined : own[message]) << "occurrence " << i;
  }
  const std::string last = fmt::format("Created pod: web-{:02}", (199 * 7) % 23);
  ASSERT_EQ(log.series_count(), own.size() + 1);
  int combined_series = 0;
  for (const Event& e : log.copy_series()) {
    if (e.message.starts_with("(combined")) {
      ++combined_series;
      EXPECT_EQ(e.count, combined);
      EXPECT_EQ(e.message, "(combined from similar events): " + last);
    } else {
      EXPECT_EQ(e.count, own[e.message]) << e.message;
    }
  }
  EXPECT_EQ(combined_series, 1);
}

// client-go v0.32 keys the spam filter by source, object and type (kubernetes#124747): after a
// Warning burst has used the object's 25 tokens, its next Normal event is still written; before,
// it waited for the bucket to refill (one per 5 minutes).
TEST(EventSpamFilter, FromClientGo032NormalAndWarningEventsOfAnObjectHaveTheirOwnBuckets) {
  auto created_after_a_backoff_burst = [](bool key_includes_type) {
    EventLog log;
    SpamFilterOptions options;
    options.key_includes_type = key_includes_type;
    log.filter_spam_by_default(options);
    ObjectRef pod{"Pod", "default", "gpu-pod"};
    for (int i = 0; i < 25; ++i)
      log.record(SimTime{} + Duration::seconds(i), EventType::Warning, "BackOff",
                 pod, fmt::format("Back-off restarting failed container {}", i % 2), "kubelet");
    log.record(SimTime{} + Duration::seconds(30), EventType::Normal, "Created", pod, "Created container: c", "kubelet");
    int listed = 0;
    for (const Event& e : log.copy_series())
      if (e.reason == "Created") listed += e.count;
    return listed;
  };
  EXPECT_EQ(created_after_a_backoff_burst(true), 1);
  EXPECT_EQ(created_after_a_backoff_burst(false), 0);  // client-go up to v0.31: one bucket per object
}

TEST(EventCorrelator, TenSimilarMessagesWithinTenMinutesAreCombined) {
  EventLog log;
  ObjectRef node{"Node", "", "n1"};
  for (int i = 0; i < 12; ++i)
    log.record(SimTime{} + Duration::seconds(10 * i), EventType::Warning, "FailedMount", node,
               "message " + std::to_string(i), "kubelet");
  // Nine distinct Events, then the tenth and later similar ones fold into one combined Event.
  ASSERT_EQ(log.series_count(), 10u);
  EXPECT_EQ(log.copy_series()[8].message, "message 8");
  EXPECT_EQ(log.copy_series()[9].message, "(combined from similar events): message 11");
  EXPECT_EQ(log.copy_series()[9].count, 3);
  // Occurrences keep what the component said.
  EXPECT_EQ(log.events().back().message, "message 11");
}

TEST(EventCorrelator, SimilarMessagesMoreThanTenMinutesApartStartOver) {
  EventLog log;
  ObjectRef node{"Node", "", "n1"};
  for (int i = 0; i < 12; ++i)
    log.record(SimTime{} + Duration::seconds(601 * i), EventType::Warning, "FailedMount", node,
               "message " + std::to_string(i), "kubelet");
  EXPECT_EQ(log.series_count(), 12u);
}

TEST(EventCorrelator, TheSchedulersSeriesKeepsItsFirstNoteAndCounts) {
  // events.k8s.io: the series key has no message and the patch carries only the series.
  EventLog log;
  log.report_through_events_api("default-scheduler");
  ObjectRef pod{"Pod", "default", "p"};
  for (int i = 0; i < 12; ++i)
    log.record(SimTime{} + Duration::seconds(i), EventType::Warning, "FailedScheduling", pod,
               "0/" + std::to_string(i) + " nodes are available", "default-scheduler");
  ASSERT_EQ(log.series_count(), 1u);
  const Event e = log.copy_series()[0];
  EXPECT_EQ(e.message, "0/0 nodes are available");
  EXPECT_EQ(e.count, 12);
  EXPECT_EQ(e.last_time, SimTime{} + Duration::seconds(11));
  EXPECT_EQ(log.occurrences(), 12u);
  EXPECT_EQ(log.events().back().message, "0/11 nodes are available");  // occurrences keep theirs
}

TEST(EventCorrelator, TheSchedulersSeriesFinishesAfterSixIdleMinutesAtTheNextTick) {
  EventLog log;
  log.report_through_events_api("default-scheduler");
  ObjectRef pod{"Pod", "default", "p"};
  auto at = [&](Duration t) { log.record(SimTime{} + t, EventType::Warning, "FailedScheduling", pod, "m", "default-scheduler"); };
  at(Duration::minutes(1));
  at(Duration::seconds(450));  // 7m30s: the 6m tick drops only series idle since before 0m
  EXPECT_EQ(log.series_count(), 1u);
  at(Duration::seconds(450 + 330));  // 13m: idle 5m30s at the 12m tick (cutoff 6m): kept
  EXPECT_EQ(log.series_count(), 1u);
  at(Duration::minutes(25));  // idle since 13m: the 24m tick (cutoff 18m) finished it
  ASSERT_EQ(log.series_count(), 2u);
  EXPECT_EQ(log.copy_series()[0].count, 3);
  EXPECT_EQ(log.copy_series()[1].count, 1);
}

TEST(EventCorrelator, TheSchedulersCacheHasNoLimit) {
  EventLog log(CorrelatorOptions{10, Duration::seconds(600), 2});
  log.report_through_events_api("default-scheduler");
  for (int round = 0; round < 2; ++round)
    for (int i = 0; i < 5000; ++i)
      log.record(SimTime{} + Duration::seconds(round), EventType::Warning, "FailedScheduling",
                 ObjectRef{"Pod", "default", fmt::format("p{}", i)}, "m", "default-scheduler");
  EXPECT_EQ(log.series_count(), 5000u);
  EXPECT_EQ(log.copy_series()[4999].count, 2);
}

TEST(EventCorrelator, TheEventsApiIsPerRecorderNotPerName) {
  // A scheduler under another schedulerName reports through events.k8s.io too; a component that
  // did not register keeps tools/record's message-keyed series, whatever it calls itself.
  EventLog log;
  log.report_through_events_api("gpu-scheduler");
  ObjectRef pod{"Pod", "default", "p"};
  for (int i = 0; i < 3; ++i) {
    log.record(SimTime{} + Duration::seconds(i), EventType::Warning, "FailedScheduling", pod,
               "0/" + std::to_string(i) + " nodes are available", "gpu-scheduler");
    log.record(SimTime{} + Duration::seconds(i), EventType::Warning, "FailedScheduling", pod,
               "0/" + std::to_string(i) + " nodes are available", "default-scheduler");
  }
  const std::vector<Event> series = log.copy_series();
  ASSERT_EQ(series.size(), 4u);
  EXPECT_EQ(series[0].source, "gpu-scheduler");
  EXPECT_EQ(series[0].count, 3);
  for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(series[i].count, 1) << series[i].message;
}

TEST(EventSink, AFullBroadcasterQueueDropsEventsBeforeCorrelation) {
  // rest.DefaultQPS 5 and DefaultBurst 10 behind a queue of 1000: at one instant the burst is
  // written at once and 1000 more wait their turn, 200 ms apart; the rest are dropped.
  EventLog log;
  log.limit_sink("cluster-autoscaler", SinkLimits{});
  auto emit = [&](SimTime t, int pod) {
    log.record(t, EventType::Normal, "NotTriggerScaleUp", ObjectRef{"Pod", "default", fmt::format("p{}", pod)},
               "pod didn't trigger scale-up: 1 max node group size reached", "cluster-autoscaler");
  };
  for (int i = 0; i < 2000; ++i) emit(SimTime{}, i);
  EXPECT_EQ(log.occurrences(), 1010u);
  EXPECT_EQ(log.dropped(), 990u);
  EXPECT_EQ(log.series_count(), 1010u);
  EXPECT_EQ(log.events().back().object.name, "p1009");
  // Ten seconds later 50 writes (one per 200 ms) have left the queue: room for 50.
  EXPECT_TRUE(log.accepts("cluster-autoscaler", SimTime{} + Duration::seconds(10)));
  for (int i = 0; i < 100; ++i) emit(SimTime{} + Duration::seconds(10), i);
  EXPECT_EQ(log.occurrences(), 1060u);
  EXPECT_FALSE(log.accepts("cluster-autoscaler", SimTime{} + Duration::seconds(10)));
  // Other components are not limited.
  for (int i = 0; i < 2000; ++i)
    log.record(SimTime{}, EventType::Normal, "Pulled", ObjectRef{"Pod", "default", fmt::format("p{}", i)}, "m", "kubelet");
  EXPECT_EQ(log.occurrences(), 3060u);
}

TEST(EventSink, AComponentWithinItsRateLosesNothing) {
  // One event a second against 5 QPS: the queue never holds more than the one being written.
  EventLog log;
  log.limit_sink("cluster-autoscaler", SinkLimits{});
  for (int i = 0; i < 5000; ++i)
    log.record(SimTime{} + Duration::seconds(i), EventType::Normal, "ScaleDown", ObjectRef{"Node", "", "n"}, "m",
               "cluster-autoscaler");
  EXPECT_EQ(log.dropped(), 0u);
  EXPECT_EQ(log.occurrences(), 5000u);
}

TEST(EventCorrelator, AnEventEvictedFromTheCacheStartsANewEvent) {
  EventLog log(CorrelatorOptions{10, Duration::seconds(600), 2});
  ObjectRef a{"Pod", "default", "a"}, b{"Pod", "default", "b"}, c{"Pod", "default", "c"};
  log.record(SimTime{}, EventType::Normal, "Pulled", a, "m", "kubelet");
  log.record(SimTime{}, EventType::Normal, "Pulled", b, "m", "kubelet");
  log.record(SimTime{}, EventType::Normal, "Pulled", c, "m", "kubelet");  // evicts a
  log.record(SimTime{}, EventType::Normal, "Pulled", a, "m", "kubelet");
  EXPECT_EQ(log.series_count(), 4u);
  log.record(SimTime{}, EventType::Normal, "Pulled", a, "m", "kubelet");
  EXPECT_EQ(log.series_count(), 4u);
  EXPECT_EQ(log.copy_series()[3].count, 2);
}

TEST(EventSpamFilter, TwentyFiveThenOneEveryFiveMinutesWithTheCountJumping) {
  // A crash-looping pod's BackOff every 10 s for an hour: the kubelet's recorder writes the first
  // 25 (0s..4m0s), then one when a token has refilled (5m, 10m, ... 55m), each carrying the count
  // of all occurrences so far.
  EventLog log;
  ObjectRef pod{"Pod", "default", "crash"};
  for (int i = 0; i < 360; ++i)
    log.record(SimTime{} + Duration::seconds(10 * i), EventType::Warning, "BackOff", pod,
               "Back-off restarting failed container", "kubelet");
  const std::vector<Event> series = log.copy_series();
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].time, SimTime{});
  EXPECT_EQ(series[0].last_time, SimTime{} + Duration::minutes(55));
  EXPECT_EQ(series[0].count, 331);
  // Every occurrence is still counted before the filter: expectations read those.
  EXPECT_EQ(log.occurrences(), 360u);
  EXPECT_EQ(log.events().back().count, 360);
}

TEST(EventSpamFilter, TheDefaultKeyIsTheObjectSoAFilteredSeriesAppearsWhenWritten) {
  // 25 events of one pod use its bucket whatever their reasons; a new reason's first occurrence
  // is then skipped: no Event until one is written, which creates it with the first timestamp.
  EventLog log;
  ObjectRef pod{"Pod", "default", "p"};
  for (int i = 0; i < 25; ++i)
    log.record(SimTime{}, EventType::Normal, fmt::format("Reason{}", i), pod, "m", "kubelet");
  log.record(SimTime{} + Duration::seconds(1), EventType::Normal, "Killing", pod, "Stopping container", "kubelet");
  EXPECT_EQ(log.copy_series().size(), 25u);
  EXPECT_EQ(log.series_count(), 26u);
  // Another object has its own bucket.
  log.record(SimTime{} + Duration::seconds(2), EventType::Normal, "Killing", ObjectRef{"Pod", "default", "q"},
             "Stopping container", "kubelet");
  EXPECT_EQ(log.copy_series().size(), 26u);
  log.record(SimTime{} + Duration::seconds(301), EventType::Normal, "Killing", pod, "Stopping container", "kubelet");
  const std::vector<Event> series = log.copy_series();
  ASSERT_EQ(series.size(), 27u);
  EXPECT_EQ(series[25].reason, "Killing");
  EXPECT_EQ(series[25].object.name, "p");
  EXPECT_EQ(series[25].count, 2);
  EXPECT_EQ(series[25].time, SimTime{} + Duration::seconds(1));
  EXPECT_EQ(series[25].last_time, SimTime{} + Duration::seconds(301));
}

TEST(EventSpamFilter, ClusterAutoscalerOnePerReasonAndObjectEveryFiveMinutes) {
  // --record-duplicated-events=false: burst 1 per reason, source and object; the status
  // ConfigMap's events keyed by their message.
  EventLog log;
  const ObjectRef status{"ConfigMap", "kube-system", "cluster-autoscaler-status"};
  log.filter_spam("cluster-autoscaler", SpamFilterOptions{.burst = 1,
                                                          .qps = 1.0 / 300,
                                                          .key_includes_reason = true,
                                                          .keyed_by_message = status,
                                                          .lru_entries = 8192});
  log.limit_sink("cluster-autoscaler", SinkLimits{});
  ObjectRef pod{"Pod", "default", "p"};
  for (int i = 0; i < 72; ++i) {  // a pending pod's NotTriggerScaleUp on every 10 s scan for 12 minutes
    log.record(SimTime{} + Duration::seconds(10 * i), EventType::Normal, "NotTriggerScaleUp", pod,
               "pod didn't trigger scale-up: 1 max node group size reached", "cluster-autoscaler");
  }
  log.record(SimTime{} + Duration::seconds(5), EventType::Normal, "TriggeredScaleUp", pod,
             "pod triggered scale-up: [{gpu 1->2 (max: 2)}]", "cluster-autoscaler");
  log.record(SimTime{} + Duration::seconds(5), EventType::Normal, "ScaledUpGroup", status,
             "Scale-up: setting group gpu size to 2 instead of 1 (max: 2)", "cluster-autoscaler");
  log.record(SimTime{} + Duration::seconds(6), EventType::Normal, "ScaledUpGroup", status,
             "Scale-up: group gpu size set to 2 instead of 1 (max: 2)", "cluster-autoscaler");
  log.record(SimTime{} + Duration::seconds(7), EventType::Normal, "ScaledUpGroup", status,
             "Scale-up: group gpu size set to 2 instead of 1 (max: 2)", "cluster-autoscaler");
  const std::vector<Event> series = log.copy_series();
  ASSERT_EQ(series.size(), 4u);
  EXPECT_EQ(series[0].reason, "NotTriggerScaleUp");
  EXPECT_EQ(series[0].count, 61);  // written at 0s, 5m and 10m
  EXPECT_EQ(series[0].last_time, SimTime{} + Duration::minutes(10));
  EXPECT_EQ(series[1].reason, "TriggeredScaleUp");
  EXPECT_EQ(series[2].message, "Scale-up: setting group gpu size to 2 instead of 1 (max: 2)");
  EXPECT_EQ(series[3].count, 1);  // the same message a second later: skipped
  // Skipped events cost no write, so nothing waited in the broadcaster's queue.
  EXPECT_EQ(log.dropped(), 0u);
}

TEST(EventSpamFilter, SkippedEventsLeaveTheQueueWithoutAWrite) {
  // 2,000 events about one object at one instant: the first is written, the rest are skipped and
  // pass through the queue as soon as the writer reaches them. Without the filter, 990 were dropped.
  EventLog log;
  SpamFilterOptions per_reason;  // as above, no designated initializer
  per_reason.burst = 1;
  per_reason.key_includes_reason = true;
  log.filter_spam("cluster-autoscaler", per_reason);
  log.limit_sink("cluster-autoscaler", SinkLimits{});
  for (int i = 0; i < 2000; ++i)
    log.record(SimTime{}, EventType::Normal, "ScaleDownEmpty", ObjectRef{"Node", "", "n"}, "m", "cluster-autoscaler");
  EXPECT_EQ(log.dropped(), 0u);
  EXPECT_EQ(log.occurrences(), 2000u);
  EXPECT_EQ(log.copy_series().at(0).count, 1);
}

TEST(EventSpamFilter, TheEventsApiHasNone) {
  EventLog log;
  log.report_through_events_api("default-scheduler");
  ObjectRef pod{"Pod", "default", "p"};
  for (int i = 0; i < 100; ++i)
    log.record(SimTime{} + Duration::seconds(i), EventType::Warning, "FailedScheduling", pod, "m", "default-scheduler");
  EXPECT_EQ(log.copy_series().at(0).count, 100);
}

TEST(HumanDuration, AsKubectlPrintsSpans) {
  EXPECT_EQ(human_duration(Duration::seconds(45)), "45s");
  EXPECT_EQ(human_duration(Duration::seconds(201)), "3m21s");
  EXPECT_EQ(human_duration(Duration::minutes(20)), "20m");
  EXPECT_EQ(human_duration(Duration::minutes(330)), "5h30m");
  EXPECT_EQ(human_duration(Duration::hours(52)), "2d4h");
}

}  // namespace
}  // namespace eksim::k8s
