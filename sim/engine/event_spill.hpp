#pragma once
// Event objects a long run will not change again, moved out of memory into an anonymous temporary
// file while the run goes, so that a simulated week's memory follows the live cluster and not the
// 600,000 Events of its history. Reading them back yields them in series order with whatever the
// caller still holds in memory merged in by the caller (EventLog::for_each_series).
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "sim/engine/event_log.hpp"

namespace eksim::engine {

class EventSpill {
 public:
  EventSpill();  // opens the temporary files; ok() says whether it could
  ~EventSpill();
  EventSpill(const EventSpill&) = delete;
  EventSpill& operator=(const EventSpill&) = delete;
  bool ok() const { return in_order_ && late_; }

  // An Event at `index` of the series. write_in_order takes increasing indexes (the old end of the
  // series as it is let go); write_late any index below those already written in order (an Event
  // the correlator held on to and has now let go).
  void write_in_order(std::size_t index, const Event& e);
  void write_late(std::size_t index, const Event& e);

  // Every spilled Event in order of index. Reading leaves the files ready for further writes.
  void for_each(const std::function<void(std::size_t index, const Event&)>& fn) const;

 private:
  void append(std::FILE* f, std::size_t index, const Event& e);

  std::FILE* in_order_ = nullptr;
  std::FILE* late_ = nullptr;
  std::size_t late_count_ = 0;
  std::string buffer_;
};

}  // namespace eksim::engine
