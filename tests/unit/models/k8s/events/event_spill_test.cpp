#include "models/k8s/events/event_spill.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>

#include "models/k8s/events/event_log.hpp"

namespace eksim::k8s {
namespace {

using engine::Duration;
using engine::SimTime;

void expect_same_event(const Event& a, const Event& b, std::size_t index) {
  EXPECT_EQ(a.time, b.time) << index;
  EXPECT_EQ(a.last_time, b.last_time) << index;
  EXPECT_EQ(a.count, b.count) << index;
  EXPECT_EQ(a.type, b.type) << index;
  EXPECT_EQ(a.reason, b.reason) << index;
  EXPECT_EQ(a.object, b.object) << index;
  EXPECT_EQ(a.message, b.message) << index;
  EXPECT_EQ(a.source, b.source) << index;
}

TEST(EventSpill, ReadsBackInIndexOrderWithLateOnesMergedIn) {
  EventSpill spill;
  ASSERT_TRUE(spill.ok());
  auto ev = [](int i) {
    return Event{SimTime{i}, EventType::Warning, fmt::format("R{}", i), {"Pod", "ns", fmt::format("p{}", i)},
                 std::string(i * 7, 'x'), "kubelet", i + 1, 0, SimTime{i + 100}};
  };
  spill.write_in_order(0, ev(0));
  spill.write_in_order(2, ev(2));
  spill.write_in_order(5, ev(5));
  spill.write_late(4, ev(4));
  spill.write_late(1, ev(1));
  spill.write_in_order(6, ev(6));  // writing goes on after a read, too
  std::vector<std::size_t> order;
  spill.for_each([&](std::size_t index, const Event& e) {
    order.push_back(index);
    expect_same_event(e, ev(static_cast<int>(index)), index);
  });
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 4, 5, 6}));
  spill.write_in_order(7, ev(7));
  order.clear();
  spill.for_each([&](std::size_t index, const Event&) { order.push_back(index); });
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 4, 5, 6, 7}));
}

// A log that spills every few Events gives exactly the series of one that keeps them all: counts,
// lastTimestamps and combined messages of Events updated long after they left memory included.
TEST(EventSpill, SpillingLogReadsTheSameSeriesAsAnInMemoryOne) {
  CorrelatorOptions options{10, Duration::seconds(600), 24};  // a small LRU: evictions all the time
  EventLog kept(options), spilled(options);
  spilled.spill_series(7);
  std::mt19937 rng(42);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const char* sources[] = {"kubelet", "default-scheduler", "karpenter"};
  const char* reasons[] = {"FailedScheduling", "BackOff", "Pulled", "Nominated"};
  SimTime t{};
  for (int i = 0; i < 20000; ++i) {
    t += Duration::seconds(pick(40));
    // A few long-lived objects repeat all run long with many messages (held back from the spill,
    // then combined); most events are about new objects.
    Event e;
    if (pick(3) == 0) {
      std::string message = fmt::format("Back-off {}", pick(14));
      e = Event{t, EventType::Warning, "BackOff", {"Pod", "default", fmt::format("steady-{}", pick(2))}, message,
                "kubelet", 1, 0, t};
    } else {
      std::string object = fmt::format("pod-{}", i / 5 + pick(3));
      std::string message = fmt::format("message {}", pick(3));
      e = Event{t, pick(2) ? EventType::Normal : EventType::Warning, reasons[pick(4)], {"Pod", "default", object},
                message, sources[pick(3)], 1, 0, t};
    }
    kept.record(e);
    spilled.record(e);
  }
  ASSERT_EQ(spilled.series_count(), kept.series_count());
  // Series the spam filter kept out of the API are skipped by both, at the same indexes.
  std::vector<std::pair<std::size_t, Event>> listed;
  kept.for_each_series([&](const Event& e, std::size_t index) { listed.emplace_back(index, e); });
  std::size_t n = 0;
  spilled.for_each_series([&](const Event& e, std::size_t index) {
    ASSERT_LT(n, listed.size());
    ASSERT_EQ(index, listed[n].first);
    expect_same_event(e, listed[n].second, index);
    ++n;
  });
  EXPECT_EQ(n, listed.size());
  // The run exercised what matters: Events updated after 14 newer ones had been made (so after the
  // spill line, at most 2 x 7 behind the end, had passed them), combined messages, and series the
  // spam filter held back.
  bool updated_past_the_line = false, combined = false, held_back = false;
  for (std::size_t i = 0; i + 14 < listed.size(); ++i) {
    updated_past_the_line |= listed[i].second.last_time > listed[i + 14].second.time;
    combined |= listed[i].second.message.rfind("(combined from similar events)", 0) == 0;
    held_back |= listed[i + 1].first != listed[i].first + 1;
  }
  EXPECT_TRUE(updated_past_the_line);
  EXPECT_TRUE(combined);
  EXPECT_TRUE(held_back);
}

}  // namespace
}  // namespace eksim::k8s
