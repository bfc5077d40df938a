#pragma once
// The future-event list and the simulation clock (after ns-3's Simulator::Schedule).
//
// Events are kept in an indexed 4-ary heap keyed by (time, sequence): equal times fire in the
// order they were scheduled, and an event can be cancelled in O(log n) because every slot knows
// its position in the heap. Callbacks live out of line in slots that are reused, so the heap moves
// only 24-byte keys and a steady-state run allocates nothing per event.
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "sim/engine/time.hpp"

namespace eksim::engine {

using Callback = std::function<void()>;

// Names one scheduled event. Stale ids (fired or cancelled, slot reused) are detected by the
// generation counter, so cancelling twice is harmless.
struct EventId {
  std::uint32_t slot = UINT32_MAX;
  std::uint32_t generation = 0;
  bool valid() const { return slot != UINT32_MAX; }
};

struct LoopId {
  std::uint32_t index = UINT32_MAX;
  bool valid() const { return index != UINT32_MAX; }
};

class Simulator {
  static constexpr std::size_t kArity = 4;  // 4-ary heap: shallower than binary, children share a cache line

 public:
  SimTime now() const { return now_; }

  // Runs fn at now() + delay (delay < 0 is treated as 0).
  // A delay that would run past SimTime::max() (after run_until(SimTime::max())) saturates there.
  EventId schedule(Duration delay, Callback fn) {
    if (delay.us < 0) delay = Duration{};
    SimTime t = delay.us > SimTime::max().us - now_.us ? SimTime::max() : now_ + delay;
    return schedule_at(t, std::move(fn));
  }
  // Runs fn at t; a time in the past runs at now().
  EventId schedule_at(SimTime t, Callback fn);
  // Removes a pending event; returns false if it already ran or was cancelled.
  bool cancel(EventId id);
  bool is_pending(EventId id) const;
  // Time the event will fire at; SimTime::max() if it is not pending.
  SimTime time_of(EventId id) const;

  // Control loops (scan intervals, reconcile loops): fn runs at now()+first_delay and then every
  // period until stop_loop. first_delay defaults to the period.
  LoopId every(Duration period, Callback fn);
  LoopId every(Duration period, Duration first_delay, Callback fn);
  void stop_loop(LoopId id);

  // Fires events in order while their time is <= end (or until stop()); the clock ends at end
  // unless stopped early. Returns the number of events fired.
  std::uint64_t run_until(SimTime end);
  // Fires the next event if any; returns false when the list is empty.
  bool step();
  // Makes run_until return after the current event.
  void stop() { stopped_ = true; }

  // Runs after every event, once the event's callback has returned (eksim run
  // --check-invariants): a whole event's changes are visible, never half of one. It may throw to
  // end the run; the clock stays at the event's time. Empty = nothing runs.
  void set_after_event(Callback fn) { after_event_ = std::move(fn); }

  // The no-progress guard: a model whose events keep scheduling each other at the same instant
  // (a controller replacing, at zero delay, a pod another controller fails at zero delay) never
  // lets simulated time advance, and a run would hang. Once more than `max_events` events have
  // fired at one instant, on_stall runs after that event (like after_event, it may throw to end
  // the run with a report of what was firing); it runs again only after time has advanced.
  // max_events 0 turns the guard off (the default).
  void set_stall_guard(std::uint64_t max_events, Callback on_stall) {
    stall_limit_ = max_events;
    on_stall_ = std::move(on_stall);
  }
  // Events fired at the current instant so far (the guard's count).
  std::uint64_t fired_at_this_instant() const { return same_instant_; }

  std::size_t pending_count() const { return heap_.size(); }
  std::uint64_t fired_count() const { return fired_; }

 private:
  struct Key {
    std::int64_t time;
    std::uint64_t seq;
    std::uint32_t slot;
  };
  struct Slot {
    Callback fn;
    std::uint32_t heap_pos = UINT32_MAX;
    std::uint32_t generation = 0;
  };
  struct Loop {
    Duration period;
    Callback fn;
    EventId next;
    bool active = false;
  };

  static bool before(const Key& a, const Key& b) { return a.time < b.time || (a.time == b.time && a.seq < b.seq); }
  void place(std::size_t pos, const Key& k) {
    heap_[pos] = k;
    slots_[k.slot].heap_pos = static_cast<std::uint32_t>(pos);
  }
  void sift_up(std::size_t pos, Key k);
  void sift_down(std::size_t pos, Key k);
  void remove_at(std::size_t pos);
  void release(std::uint32_t slot);
  void fire_loop(std::uint32_t index);

  SimTime now_{};
  std::uint64_t next_seq_ = 0;
  std::uint64_t fired_ = 0;
  bool stopped_ = false;
  std::vector<Key> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  Callback after_event_;
  std::uint64_t same_instant_ = 0;  // events fired at now_, this one included
  std::uint64_t stall_limit_ = 0;
  Callback on_stall_;
  std::deque<Loop> loops_;  // deque: a loop body may add loops without moving this one
};

// --- the hot path, inline: every event passes through these ---------------------------------

inline EventId Simulator::schedule_at(SimTime t, Callback fn) {
  if (t < now_) t = now_;
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.fn = std::move(fn);
  heap_.emplace_back();
  sift_up(heap_.size() - 1, Key{t.us, next_seq_++, slot});
  return EventId{slot, s.generation};
}

inline void Simulator::sift_up(std::size_t pos, Key k) {
  while (pos > 0) {
    std::size_t parent = (pos - 1) / kArity;
    if (!before(k, heap_[parent])) break;
    place(pos, heap_[parent]);
    pos = parent;
  }
  place(pos, k);
}

inline void Simulator::sift_down(std::size_t pos, Key k) {
  const std::size_t n = heap_.size();
  for (;;) {
    std::size_t first = pos * kArity + 1;
    if (first >= n) break;
    std::size_t last = first + kArity < n ? first + kArity : n;
    std::size_t best = first;
    for (std::size_t c = first + 1; c < last; ++c)
      if (before(heap_[c], heap_[best])) best = c;
    if (!before(heap_[best], k)) break;
    place(pos, heap_[best]);
    pos = best;
  }
  place(pos, k);
}

inline void Simulator::remove_at(std::size_t pos) {
  Key last = heap_.back();
  heap_.pop_back();
  if (pos == heap_.size()) return;
  if (pos > 0 && before(last, heap_[(pos - 1) / kArity]))
    sift_up(pos, last);
  else
    sift_down(pos, last);
}

inline void Simulator::release(std::uint32_t slot) {
  Slot& s = slots_[slot];
  s.heap_pos = UINT32_MAX;
  ++s.generation;
  free_slots_.push_back(slot);
}

inline bool Simulator::step() {
  if (heap_.empty()) return false;
  Key top = heap_[0];
  remove_at(0);
  same_instant_ = top.time == now_.us ? same_instant_ + 1 : 1;
  now_ = SimTime{top.time};
  // Move the callback out before releasing the slot: the callback may schedule new events,
  // which can reuse this slot and grow the slot vector.
  Callback fn = std::move(slots_[top.slot].fn);
  release(top.slot);
  ++fired_;
  fn();
  if (after_event_) after_event_();
  if (same_instant_ == stall_limit_ + 1 && stall_limit_ > 0 && on_stall_) on_stall_();
  return true;
}

}  // namespace eksim::engine
