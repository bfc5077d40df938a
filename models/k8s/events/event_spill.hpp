#pragma once
// Event objects a long run will not change again, in the engine's record spill (an anonymous
// temporary file), so that a simulated week's memory follows the live cluster and not the 600,000
// Events of its history. Reading them back yields them in series order with whatever the caller
// still holds in memory merged in by the caller (EventLog::for_each_series).
#include <cstddef>
#include <functional>
#include <string>

#include "models/k8s/events/event.hpp"
#include "sim/engine/record_spill.hpp"

namespace eksim::k8s {

class EventSpill {
 public:
  bool ok() const { return records_.ok(); }

  // An Event at `index` of the series. write_in_order takes increasing indexes (the old end of the
  // series as it is let go); write_late any index below those already written in order (an Event
  // the correlator held on to and has now let go).
  void write_in_order(std::size_t index, const Event& e);
  void write_late(std::size_t index, const Event& e);

  // Every spilled Event in order of index. Reading leaves the files ready for further writes.
  void for_each(const std::function<void(std::size_t index, const Event&)>& fn) const;

 private:
  const std::string& encode(const Event& e);

  engine::RecordSpill records_;
  std::string buffer_;
};

}  // namespace eksim::k8s
