#include "models/k8s/events/event_spill.hpp"

namespace eksim::k8s {

namespace {

// A record: time, last_time (8 bytes each), count (4), type (1), then reason, object kind,
// namespace, name, message and source, each as a 4-byte length and its bytes.
Event decode(std::string_view bytes) {
  engine::RecordReader in{bytes};
  Event e;
  e.time.us = in.get<decltype(e.time.us)>();
  e.last_time.us = in.get<decltype(e.last_time.us)>();
  e.count = in.get<std::int32_t>();
  e.type = static_cast<EventType>(in.get<std::uint8_t>());
  e.reason = in.get_string();
  e.object.kind = in.get_string();
  e.object.ns = in.get_string();
  e.object.name = in.get_string();
  e.message = in.get_string();
  e.source = in.get_string();
  return e;
}

}  // namespace

const std::string& EventSpill::encode(const Event& e) {
  buffer_.clear();
  engine::RecordWriter out{buffer_};
  out.put(e.time.us);
  out.put(e.last_time.us);
  out.put(static_cast<std::int32_t>(e.count));
  out.put(static_cast<std::uint8_t>(e.type));
  out.put_string(e.reason);
  out.put_string(e.object.kind);
  out.put_string(e.object.ns);
  out.put_string(e.object.name);
  out.put_string(e.message);
  out.put_string(e.source);
  return buffer_;
}

void EventSpill::write_in_order(std::size_t index, const Event& e) { records_.write_in_order(index, encode(e)); }

void EventSpill::write_late(std::size_t index, const Event& e) { records_.write_late(index, encode(e)); }

void EventSpill::for_each(const std::function<void(std::size_t, const Event&)>& fn) const {
  records_.for_each([&](std::size_t index, std::string_view bytes) { fn(index, decode(bytes)); });
}

}  // namespace eksim::k8s
