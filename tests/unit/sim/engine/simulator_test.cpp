// The future-event list: time order, FIFO among equal times, cancellation (stale ids, from inside
// callbacks), control loops, run_until clock semantics and slot reuse. A randomized run is checked
// against a plain sorted reference so that heap repairs after cancels at any depth are covered.
#include "sim/engine/rate_limiter.hpp"
#include "sim/engine/simulator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/rng.hpp"

namespace eksim::engine {
namespace {

SimTime at_s(std::int64_t s) { return SimTime::zero() + Duration::seconds(s); }

TEST(SimulatorEventList, FiresInTimeOrderAndSetsTheClock) {
  Simulator sim;
  std::vector<std::pair<int, std::int64_t>> fired;  // (tag, now in us)
  for (int s : {5, 1, 4, 2, 3})
    sim.schedule(Duration::seconds(s), [&, s] { fired.emplace_back(s, sim.now().us); });
  EXPECT_EQ(sim.pending_count(), 5u);
  EXPECT_EQ(sim.run_until(SimTime::max()), 5u);
  const std::vector<std::pair<int, std::int64_t>> want = {
      {1, 1000000}, {2, 2000000}, {3, 3000000}, {4, 4000000}, {5, 5000000}};
  EXPECT_EQ(fired, want);
  EXPECT_EQ(sim.pending_count(), 0u);
  EXPECT_EQ(sim.fired_count(), 5u);
}

TEST(SimulatorEventList, EqualTimesFireInSchedulingOrder) {
  Simulator sim;
  std::string order;
  sim.schedule_at(at_s(2), [&] { order += 'c'; });
  sim.schedule_at(at_s(1), [&] {
    order += 'a';
    // Scheduled later at the same instant: runs after everything already due at t=1.
    sim.schedule(Duration{}, [&] { order += 'x'; });
    sim.schedule_at(at_s(2), [&] { order += 'y'; });
  });
  sim.schedule_at(at_s(1), [&] { order += 'b'; });
  sim.schedule_at(at_s(2), [&] { order += 'd'; });
  sim.run_until(SimTime::max());
  EXPECT_EQ(order, "abxcdy");
}

TEST(SimulatorEventList, PastTimesAndNegativeDelaysRunNow) {
  Simulator sim;
  std::vector<std::int64_t> times;
  sim.schedule_at(at_s(10), [&] {
    sim.schedule(Duration::seconds(-3), [&] { times.push_back(sim.now().us); });
    sim.schedule_at(at_s(1), [&] { times.push_back(sim.now().us); });
  });
  sim.run_until(SimTime::max());
  EXPECT_EQ(times, (std::vector<std::int64_t>{10000000, 10000000}));
}

TEST(SimulatorEventList, TimeOfAndIsPending) {
  Simulator sim;
  EventId id = sim.schedule(Duration::millis(1500), [] {});
  EXPECT_TRUE(sim.is_pending(id));
  EXPECT_EQ(sim.time_of(id).us, 1500000);
  EXPECT_FALSE(sim.is_pending(EventId{}));
  EXPECT_EQ(sim.time_of(EventId{}), SimTime::max());
  ASSERT_TRUE(sim.step());
  EXPECT_FALSE(sim.is_pending(id));
  EXPECT_EQ(sim.time_of(id), SimTime::max());
  EXPECT_FALSE(sim.step());
}

TEST(SimulatorEventList, CancelRemovesOnceAndReleasesCapturedState) {
  Simulator sim;
  auto token = std::make_shared<int>(7);
  int ran = 0;
  EventId a = sim.schedule(Duration::seconds(1), [&ran, token] { ran += *token; });
  sim.schedule(Duration::seconds(2), [&ran] { ran += 100; });
  EXPECT_EQ(token.use_count(), 2);
  EXPECT_TRUE(sim.cancel(a));
  EXPECT_EQ(token.use_count(), 1);  // dropped at cancel, not when the slot is reused
  EXPECT_FALSE(sim.cancel(a));
  EXPECT_FALSE(sim.is_pending(a));
  EXPECT_EQ(sim.pending_count(), 1u);
  EXPECT_EQ(sim.run_until(SimTime::max()), 1u);
  EXPECT_EQ(ran, 100);
  EXPECT_FALSE(sim.cancel(EventId{}));
  EXPECT_FALSE(sim.cancel(EventId{12345, 0}));
}

TEST(SimulatorEventList, FiredCallbackStateIsReleased) {
  Simulator sim;
  auto token = std::make_shared<int>(1);
  sim.schedule(Duration::seconds(1), [token] {});
  EXPECT_EQ(token.use_count(), 2);
  sim.step();
  EXPECT_EQ(token.use_count(), 1);
}

TEST(SimulatorEventList, StaleIdDoesNotCancelTheEventReusingItsSlot) {
  Simulator sim;
  int fired = 0;
  EventId old_id = sim.schedule(Duration::seconds(1), [&] { ++fired; });
  sim.step();
  EventId new_id = sim.schedule(Duration::seconds(1), [&] { fired += 10; });
  EXPECT_EQ(new_id.slot, old_id.slot);  // one event pending at a time: its slot is reused
  EXPECT_NE(new_id.generation, old_id.generation);
  EXPECT_FALSE(sim.cancel(old_id));
  EXPECT_FALSE(sim.is_pending(old_id));
  EXPECT_TRUE(sim.is_pending(new_id));
  sim.run_until(SimTime::max());
  EXPECT_EQ(fired, 11);

  // Same after a cancel rather than a firing.
  EventId c1 = sim.schedule(Duration::seconds(1), [&] { fired += 100; });
  ASSERT_TRUE(sim.cancel(c1));
  EventId c2 = sim.schedule(Duration::seconds(1), [&] { fired += 1000; });
  EXPECT_FALSE(sim.cancel(c1));
  EXPECT_TRUE(sim.is_pending(c2));
  sim.run_until(SimTime::max());
  EXPECT_EQ(fired, 1011);
}

TEST(SimulatorEventList, CancelFromInsideACallback) {
  Simulator sim;
  std::string order;
  EventId later, same_time, self;
  self = sim.schedule_at(at_s(1), [&] {
    order += 'a';
    EXPECT_FALSE(sim.cancel(self));  // already fired: no longer pending
    EXPECT_TRUE(sim.cancel(later));
    EXPECT_TRUE(sim.cancel(same_time));
  });
  same_time = sim.schedule_at(at_s(1), [&] { order += 'b'; });
  later = sim.schedule_at(at_s(2), [&] { order += 'c'; });
  sim.schedule_at(at_s(3), [&] { order += 'd'; });
  EXPECT_EQ(sim.run_until(SimTime::max()), 2u);
  EXPECT_EQ(order, "ad");
}

TEST(SimulatorEventList, CallbackStateSurvivesSchedulingFromInside) {
  // The running callback must not live in storage that its own schedule() calls can move.
  Simulator sim;
  std::string seen;
  std::string payload(64, 'p');  // too big for any small buffer
  sim.schedule(Duration::seconds(1), [&sim, &seen, payload] {
    for (int i = 0; i < 1000; ++i) sim.schedule(Duration::seconds(1 + i), [] {});
    seen = payload;
  });
  sim.step();
  EXPECT_EQ(seen, payload);
  EXPECT_EQ(sim.pending_count(), 1000u);
}

TEST(SimulatorEventList, ControlLoopFiresEveryPeriodUntilStopped) {
  Simulator sim;
  std::vector<std::int64_t> ticks;
  LoopId loop = sim.every(Duration::seconds(10), [&] { ticks.push_back(sim.now().us / 1000000); });
  sim.run_until(at_s(35));
  EXPECT_EQ(ticks, (std::vector<std::int64_t>{10, 20, 30}));
  sim.stop_loop(loop);
  sim.stop_loop(loop);      // twice is harmless
  sim.stop_loop(LoopId{});  // so is an invalid id
  sim.run_until(at_s(100));
  EXPECT_EQ(ticks.size(), 3u);
  EXPECT_EQ(sim.pending_count(), 0u);
}

TEST(SimulatorEventList, ControlLoopFirstDelay) {
  Simulator sim;
  std::vector<std::int64_t> ticks;
  sim.every(Duration::seconds(10), Duration{}, [&] { ticks.push_back(sim.now().us / 1000000); });
  sim.every(Duration::seconds(10), Duration::seconds(3), [&] { ticks.push_back(100 + sim.now().us / 1000000); });
  sim.run_until(at_s(25));
  EXPECT_EQ(ticks, (std::vector<std::int64_t>{0, 103, 10, 113, 20, 123}));
}

TEST(SimulatorEventList, ControlLoopCanStopItselfAndStartOthers) {
  Simulator sim;
  int rounds = 0;
  std::vector<std::int64_t> child_ticks;
  LoopId self;
  self = sim.every(Duration::seconds(1), [&] {
    ++rounds;
    if (rounds == 1)
      sim.every(Duration::seconds(5), [&] { child_ticks.push_back(sim.now().us / 1000000); });
    if (rounds == 3) sim.stop_loop(self);
  });
  sim.run_until(at_s(12));
  EXPECT_EQ(rounds, 3);
  EXPECT_EQ(child_ticks, (std::vector<std::int64_t>{6, 11}));
}

TEST(SimulatorEventList, RunUntilIsInclusiveAndLeavesTheClockAtEnd) {
  Simulator sim;
  std::vector<int> fired;
  sim.schedule_at(at_s(1), [&] { fired.push_back(1); });
  sim.schedule_at(at_s(5), [&] { fired.push_back(5); });
  sim.schedule_at(at_s(6), [&] { fired.push_back(6); });
  EXPECT_EQ(sim.run_until(at_s(5)), 2u);  // t == end fires
  EXPECT_EQ(fired, (std::vector<int>{1, 5}));
  EXPECT_EQ(sim.now(), at_s(5));
  EXPECT_EQ(sim.run_until(at_s(5) + Duration::millis(500)), 0u);
  EXPECT_EQ(sim.now().us, 5500000);  // the clock moves to end even when nothing fires
  EXPECT_EQ(sim.pending_count(), 1u);
  EXPECT_EQ(sim.run_until(at_s(2)), 0u);  // an end in the past never moves the clock back
  EXPECT_EQ(sim.now().us, 5500000);
  EXPECT_EQ(sim.run_until(at_s(60)), 1u);
  EXPECT_EQ(sim.now(), at_s(60));
}

TEST(SimulatorEventList, StopEndsRunUntilAfterTheCurrentEvent) {
  Simulator sim;
  std::vector<int> fired;
  sim.schedule_at(at_s(1), [&] { fired.push_back(1); });
  sim.schedule_at(at_s(2), [&] {
    fired.push_back(2);
    sim.stop();
  });
  sim.schedule_at(at_s(2), [&] { fired.push_back(3); });
  sim.schedule_at(at_s(4), [&] { fired.push_back(4); });
  EXPECT_EQ(sim.run_until(at_s(10)), 2u);
  EXPECT_EQ(fired, (std::vector<int>{1, 2}));
  EXPECT_EQ(sim.now(), at_s(2));  // stopped early: the clock stays at the last event
  EXPECT_EQ(sim.run_until(at_s(10)), 2u);  // a new run clears the stop
  EXPECT_EQ(fired, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(sim.now(), at_s(10));
}

TEST(SimulatorEventList, StepFiresOneEvent) {
  Simulator sim;
  int count = 0;
  sim.schedule_at(at_s(3), [&] { ++count; });
  sim.schedule_at(at_s(7), [&] { ++count; });
  ASSERT_TRUE(sim.step());
  EXPECT_EQ(count, 1);
  EXPECT_EQ(sim.now(), at_s(3));
  ASSERT_TRUE(sim.step());
  EXPECT_EQ(sim.now(), at_s(7));
  EXPECT_FALSE(sim.step());
  EXPECT_EQ(sim.now(), at_s(7));
  EXPECT_EQ(sim.fired_count(), 2u);
}

TEST(SimulatorEventList, SteadyStateReusesSlots) {
  // A hold model keeps 8 events pending; slots are recycled, so ids stay within a small range.
  Simulator sim;
  Rng rng(3);
  std::uint32_t max_slot = 0;
  std::function<void()> hold = [&] {
    EventId id = sim.schedule(Duration::micros(1 + static_cast<std::int64_t>(rng.below(1000))), hold);
    max_slot = std::max(max_slot, id.slot);
  };
  for (int i = 0; i < 8; ++i) sim.schedule(Duration::micros(i), hold);
  for (int i = 0; i < 10000; ++i) ASSERT_TRUE(sim.step());
  EXPECT_EQ(sim.pending_count(), 8u);
  EXPECT_LT(max_slot, 9u);  // 8 pending plus the one being fired
}

// Random schedules and cancels (at any heap depth, from inside callbacks too) against a reference
// that is just a sorted map of (time, scheduling order).
TEST(SimulatorEventList, MatchesSortedReferenceUnderRandomCancels) {
  Simulator sim;
  Rng rng(20240611);
  std::map<std::pair<std::int64_t, std::uint64_t>, int> reference;  // (time, order) -> tag
  std::vector<std::pair<EventId, std::pair<std::int64_t, std::uint64_t>>> live;
  std::vector<int> fired;
  std::uint64_t order = 0;
  int next_tag = 0;

  std::function<void(std::int64_t)> add = [&](std::int64_t t) {
    int tag = next_tag++;
    // Coarse times so that many events tie.
    EventId id = sim.schedule_at(SimTime{t}, [&, tag] {
      fired.push_back(tag);
      if (rng.below(4) == 0) add(sim.now().us + static_cast<std::int64_t>(rng.below(5)) * 10);
    });
    auto key = std::make_pair(std::max(t, sim.now().us), order++);
    reference.emplace(key, tag);
    live.emplace_back(id, key);
  };
  for (int i = 0; i < 2000; ++i) add(static_cast<std::int64_t>(rng.below(200)) * 10);
  while (!reference.empty()) {
    // Cancel a few random events, some already fired (stale ids must be refused).
    for (int k = 0; k < 2 && !live.empty(); ++k) {
      std::size_t pick = rng.below(live.size());
      auto [id, key] = live[pick];
      bool pending = reference.count(key) > 0;
      EXPECT_EQ(sim.cancel(id), pending);
      reference.erase(key);
      live[pick] = live.back();
      live.pop_back();
    }
    if (reference.empty()) break;
    int want = reference.begin()->second;
    std::int64_t want_time = reference.begin()->first.first;
    reference.erase(reference.begin());
    std::size_t before = fired.size();
    ASSERT_TRUE(sim.step());
    ASSERT_EQ(fired.size(), before + 1);
    ASSERT_EQ(fired.back(), want);
    ASSERT_EQ(sim.now().us, want_time);
    ASSERT_EQ(sim.pending_count(), reference.size());
  }
  EXPECT_FALSE(sim.step());
}

// The no-progress guard: events that keep scheduling each other at one instant reach on_stall
// once the limit is passed, after the event that passed it; time that advances resets the count.
TEST(Simulator, StallGuardFiresWhenTimeStopsAdvancing) {
  Simulator sim;
  int stalls = 0;
  std::uint64_t count_at_stall = 0;
  sim.set_stall_guard(100, [&] {
    ++stalls;
    count_at_stall = sim.fired_at_this_instant();
    sim.stop();
  });
  // A ticker one second apart never trips it, however long it runs.
  sim.every(Duration::seconds(1), [] {});
  sim.run_until(SimTime{} + Duration::minutes(10));
  EXPECT_EQ(stalls, 0);
  // Two callbacks answering each other at zero delay (a controller replacing what another
  // fails at once) would never let time move.
  std::function<void()> ping = [&] { sim.schedule(Duration{}, ping); };
  sim.schedule(Duration::seconds(5), ping);
  sim.run_until(SimTime::max());
  EXPECT_EQ(stalls, 1);
  EXPECT_EQ(count_at_stall, 101u);
  EXPECT_EQ(sim.now(), SimTime{} + Duration::minutes(10) + Duration::seconds(5));
}

TEST(Simulator, StallGuardOffByDefaultAndAtZero) {
  Simulator sim;
  int n = 0;
  std::function<void()> ping = [&] {
    if (++n < 5000) sim.schedule(Duration{}, ping);
  };
  sim.schedule(Duration{}, ping);
  sim.run_until(SimTime{} + Duration::seconds(1));
  EXPECT_EQ(n, 5000);
  EXPECT_EQ(sim.fired_at_this_instant(), 5000u);
}

// client-go's token bucket as GCRA: burst at once, then one per 1/qps, requests in line.
TEST(RateLimiter, BurstThenOnePerInterval) {
  RateLimiter limiter(10, 20);  // the EKS AMIs' kubelet: kubeAPIQPS 10, kubeAPIBurst 20
  const SimTime t0 = SimTime{} + Duration::seconds(100);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(limiter.reserve(t0), t0) << i;
  EXPECT_EQ(limiter.reserve(t0), t0 + Duration::millis(100));
  EXPECT_EQ(limiter.reserve(t0), t0 + Duration::millis(200));
  // Idle long enough, the bucket is full again.
  const SimTime later = t0 + Duration::seconds(60);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(limiter.reserve(later), later) << i;
  EXPECT_EQ(limiter.reserve(later + Duration::millis(50)), later + Duration::millis(100));
}

}  // namespace
}  // namespace eksim::engine
