#include "sim/engine/simulator.hpp"

#include <cassert>

namespace eksim::engine {

namespace {
constexpr std::size_t kArity = 4;
}

EventId Simulator::schedule_at(SimTime t, Callback fn) {
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

void Simulator::sift_up(std::size_t pos, Key k) {
  while (pos > 0) {
    std::size_t parent = (pos - 1) / kArity;
    if (!before(k, heap_[parent])) break;
    place(pos, heap_[parent]);
    pos = parent;
  }
  place(pos, k);
}

void Simulator::sift_down(std::size_t pos, Key k) {
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

void Simulator::remove_at(std::size_t pos) {
  Key last = heap_.back();
  heap_.pop_back();
  if (pos == heap_.size()) return;
  if (pos > 0 && before(last, heap_[(pos - 1) / kArity]))
    sift_up(pos, last);
  else
    sift_down(pos, last);
}

void Simulator::release(std::uint32_t slot) {
  Slot& s = slots_[slot];
  s.heap_pos = UINT32_MAX;
  ++s.generation;
  free_slots_.push_back(slot);
}

bool Simulator::is_pending(EventId id) const {
  return id.slot < slots_.size() && slots_[id.slot].generation == id.generation &&
         slots_[id.slot].heap_pos != UINT32_MAX;
}

SimTime Simulator::time_of(EventId id) const {
  if (!is_pending(id)) return SimTime::max();
  return SimTime{heap_[slots_[id.slot].heap_pos].time};
}

bool Simulator::cancel(EventId id) {
  if (!is_pending(id)) return false;
  Slot& s = slots_[id.slot];
  remove_at(s.heap_pos);
  s.fn = nullptr;  // drop captured state now, not when the slot is reused
  release(id.slot);
  return true;
}

bool Simulator::step() {
  if (heap_.empty()) return false;
  Key top = heap_[0];
  remove_at(0);
  now_ = SimTime{top.time};
  // Move the callback out before releasing the slot: the callback may schedule new events,
  // which can reuse this slot and grow the slot vector.
  Callback fn = std::move(slots_[top.slot].fn);
  release(top.slot);
  ++fired_;
  fn();
  return true;
}

std::uint64_t Simulator::run_until(SimTime end) {
  stopped_ = false;
  std::uint64_t before_count = fired_;
  while (!stopped_ && !heap_.empty() && heap_[0].time <= end.us) step();
  if (!stopped_ && now_ < end) now_ = end;
  return fired_ - before_count;
}

LoopId Simulator::every(Duration period, Callback fn) { return every(period, period, std::move(fn)); }

LoopId Simulator::every(Duration period, Duration first_delay, Callback fn) {
  assert(period.us > 0 && "a control loop needs a positive period");
  auto index = static_cast<std::uint32_t>(loops_.size());
  loops_.push_back(Loop{period, std::move(fn), {}, true});
  loops_[index].next = schedule(first_delay, [this, index] { fire_loop(index); });
  return LoopId{index};
}

void Simulator::fire_loop(std::uint32_t index) {
  // Schedule the next round first so that the loop body may stop its own loop.
  loops_[index].next = schedule(loops_[index].period, [this, index] { fire_loop(index); });
  Callback& fn = loops_[index].fn;
  fn();
}

void Simulator::stop_loop(LoopId id) {
  if (!id.valid() || id.index >= loops_.size() || !loops_[id.index].active) return;
  loops_[id.index].active = false;
  cancel(loops_[id.index].next);
}

}  // namespace eksim::engine
