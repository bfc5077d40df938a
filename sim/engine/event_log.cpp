#include "sim/engine/event_log.hpp"

namespace eksim::engine {

const char* to_string(EventType t) { return t == EventType::Warning ? "Warning" : "Normal"; }

std::string ObjectRef::str() const {
  if (ns.empty()) return kind + "/" + name;
  return kind + "/" + ns + "/" + name;
}

void EventLog::record(Event e) {
  // Repeats of the same event on the same object are counted, as the event recorder does.
  std::string key = e.object.str();
  key += '\x1f';
  key += e.reason;
  key += '\x1f';
  key += e.message;
  e.count = ++series_[std::move(key)];
  events_.push_back(std::move(e));
}

void EventLog::record(SimTime time, EventType type, std::string reason, ObjectRef object, std::string message,
                      std::string source) {
  record(Event{time, type, std::move(reason), std::move(object), std::move(message), std::move(source), 1});
}

}  // namespace eksim::engine
