#include "sim/engine/simulator.hpp"

#include <cassert>

namespace eksim::engine {

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
