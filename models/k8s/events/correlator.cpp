#include "models/k8s/events/correlator.hpp"

#include <algorithm>

namespace eksim::k8s {

// finishSeries: the ticks since the last event can only have dropped what was already idle
// then, so the latest tick stands for all of them.
void EventLog::Correlator::finish_idle_series(EventLog& log, engine::SimTime time) {
  const engine::Duration finish = log.options_.finish_series_after;
  const engine::SimTime tick{finish.us > 0 ? time.us / finish.us * finish.us : 0};
  if (tick <= finished_at) return;
  finished_at = tick;
  series.drop_least_recent_while([&](const Series& s) { return s.last < tick - finish; },
                                 [&log](const Series& s) { log.release(s.index); });
}

// tools/record's EventAggregator: the distinct messages of the aggregate key within the
// interval; at the limit the occurrence joins the key's combined Event.
void EventLog::Correlator::aggregate(EventLog& log, Occurrence& o) {
  Similar* found = similar.get(
      o.key, [&](const Similar& s) { return same_aggregate(log.at(s.example), o.type, o.reason, o.object); });
  if (!found)
    found = &similar.put_new(o.key, Similar{{}, o.time, kNoEvent}, [&log](const Similar& s) { log.release(s.example); });
  else if (o.time - found->last > log.options_.max_interval) found->messages.clear();
  o.similar = found;
  auto& messages = found->messages;
  auto pos = std::lower_bound(messages.begin(), messages.end(), o.message);
  found->last = o.time;
  if (pos != messages.end() && *pos == o.message) return;
  if (static_cast<int>(messages.size()) + 1 < log.options_.max_similar_events) {
    messages.emplace(pos, o.message);
    return;
  }
  // At the limit: the new message joins and the first one leaves, keeping the set below it
  // (upstream pops an arbitrary one; the first is deterministic). The leaving string's
  // buffer takes the new text, so a recorder combining a million messages allocates none.
  if (pos != messages.begin()) {
    std::rotate(messages.begin(), messages.begin() + 1, pos);
    std::prev(pos)->assign(o.message);
  }
  o.combined = true;
}

// eventObserve: the occurrence's series, opened if new; the recorder's count goes up whether or
// not the occurrence is written.
void EventLog::Correlator::observe(EventLog& log, Occurrence& o) {
  const bool keyed_by_message = !o.combined && !events_api;
  const std::uint64_t series_key =
      o.combined ? mix(o.key, kCombinedPrefix) : keyed_by_message ? mix(o.key, o.message) : o.key;
  auto same_series = [&](const Series& s) {
    const Event& ev = log.at(s.index);
    return s.combined == o.combined && same_aggregate(ev, o.type, o.reason, o.object) &&
           (!keyed_by_message || ev.message == o.message);
  };
  o.series = series.get(series_key, same_series);
  o.new_series = !o.series;
  if (o.new_series) {
    const std::size_t index = log.series_count();
    o.series = &series.put_new(series_key, Series{index, o.combined, o.time, 0},
                               [&log](const Series& s) { log.release(s.index); });
    Event e = o.event(0);  // not in the API server until an occurrence is written
    if (o.combined) e.message.insert(0, kCombinedPrefix);
    log.series_.push_back(std::move(e));
  }
  ++o.series->count;
  o.series->last = o.time;
  // The aggregate key's example is its latest series.
  if (o.similar && o.similar->example != o.series->index) {
    log.retain(o.series->index);
    log.release(o.similar->example);
    o.similar->example = o.series->index;
  }
}

// The spam filter decides whether the occurrence is written; the broadcaster's queue holds it
// either way. A written one updates its series' Event.
void EventLog::Correlator::write_event(EventLog& log, const Occurrence& o) {
  const bool written = !spam || spam->accepts(o.time, o.type, o.reason, o.object, o.combined, o.message);
  if (sink) sink->enqueue(o.time, written);
  if (!written) return;
  Event& ev = log.at(o.series->index);
  ev.count = o.series->count;
  ev.last_time = o.time;
  // A combined Event shows the latest message. (The events API patches only the series, count
  // and lastObservedTime: its note stays the first.)
  if (o.combined && !o.new_series) ev.message.assign(kCombinedPrefix).append(o.message);
}

}  // namespace eksim::k8s
