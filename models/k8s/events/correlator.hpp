#pragma once
// A component's client-go event recorder (EventLog's private part): the aggregator, the series
// cache, the spam filter and the broadcaster's queue, each as upstream keeps it. Included only by
// the event log's own sources.
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <boost/container/small_vector.hpp>

#include "models/k8s/events/event_log.hpp"
#include "models/k8s/events/hashed_lru.hpp"
#include "sim/engine/rate_limiter.hpp"

namespace eksim::k8s {

inline constexpr const char* kCombinedPrefix = "(combined from similar events): ";

inline std::uint64_t mix(std::uint64_t h, std::string_view s) {
  // boost::hash_combine's 64-bit mixing over std::hash of each part.
  h ^= std::hash<std::string_view>{}(s) + 0x9e3779b97f4a7c15ull + (h << 12) + (h >> 4);
  return h;
}

// The aggregator's key without the message (upstream getSpamKey-like: source is the recorder's).
inline bool same_aggregate(const Event& a, EventType type, std::string_view reason, const ObjectRef& object) {
  return a.type == type && a.reason == reason && a.object == object;
}


inline constexpr std::size_t kNoEvent = SIZE_MAX;

struct EventLog::Correlator {
  // One aggregate key (object, type, reason): the distinct messages seen (the aggregator's
  // localKeys, kept sorted so the one dropped at the limit is deterministic) and a series Event
  // of that key, which stands for the key itself.
  struct Similar {
    boost::container::small_vector<std::string, 1> messages;
    engine::SimTime last;
    std::size_t example = kNoEvent;  // index in the series
  };
  // An Event in series_, found by its object, type, reason and message, or by its aggregate
  // key alone once the aggregator combines them (or always, for the events API).
  struct Series {
    std::size_t index;  // in the series
    bool combined;
    engine::SimTime last;       // the series' last occurrence (LastObservedTime)
    int count;          // the recorder's count (eventLogger), ahead of the Event's while filtered
  };
  // The broadcaster's queue: when each queued event is written (ascending), and the rate
  // limiter's theoretical arrival time (GCRA, the token bucket's equivalent in integer time).
  struct Sink {
    SinkLimits limits;
    std::deque<engine::SimTime> writes;
    engine::RateLimiter client;  // the component's API client (qps, burst)
    // Written events leave the queue; is there room for one more?
    bool has_room(engine::SimTime now) {
      while (!writes.empty() && writes.front() <= now) writes.pop_front();
      return writes.size() < limits.queue;
    }
    // An event the spam filter skipped writes nothing: it leaves as soon as the writer reaches it.
    void enqueue(engine::SimTime now, bool writes_event) {
      const engine::SimTime ready = writes.empty() ? now : std::max(now, writes.back());  // one writer
      if (!writes_event) {
        writes.push_back(ready);
        return;
      }
      writes.push_back(client.reserve(ready));
    }
  };
  std::optional<Sink> sink;
  // The spam filter's token buckets (GCRA: a bucket is its theoretical arrival time; a fresh one
  // is full), by spam key. The key's text is kept to confirm a hash match.
  struct SpamRecord {
    std::string key;
    engine::SimTime tat;
  };
  struct SpamFilter {
    SpamFilterOptions options;
    HashedLru<SpamRecord> buckets;
    std::string key;  // the key being built, reused
    engine::Duration interval;
    engine::Duration tolerance;
    explicit SpamFilter(SpamFilterOptions o, std::size_t entries)
        : options(std::move(o)),
          buckets(entries),
          interval{std::llround(1e6 / options.qps)},
          tolerance{interval.us * (std::max(options.burst, 1) - 1)} {}
    // Filter: TryAccept on the bucket of the occurrence's spam key. The source is the recorder's
    // own (one filter per source), so it is left out of the key.
    bool accepts(engine::SimTime now, EventType type, std::string_view reason, const ObjectRef& object, bool combined,
                 std::string_view message) {
      key.clear();
      if (options.keyed_by_message && object == *options.keyed_by_message) {
        key.push_back('\x1e');
        if (combined) key.append(kCombinedPrefix);
        key.append(message);
      } else {
        if (options.key_includes_reason) key.append(reason).push_back('\x1f');
        key.append(object.kind).push_back('\x1f');
        key.append(object.ns).push_back('\x1f');
        key.append(object.name);
        if (options.key_includes_type) {
          key.push_back('\x1f');
          key.append(to_string(type));
        }
      }
      const std::uint64_t hash = std::hash<std::string_view>{}(key);
      SpamRecord* r = buckets.get(hash, [&](const SpamRecord& x) { return x.key == key; });
      if (!r) {
        r = &buckets.put_new(hash, SpamRecord{}, [](SpamRecord&) {});
        r->key.assign(key);
        r->tat = now;
      }
      if (now < r->tat - tolerance) return false;
      r->tat = std::max(r->tat, now) + interval;
      return true;
    }
  };
  std::optional<SpamFilter> spam;
  Correlator(std::size_t entries, bool events_api, std::optional<SpamFilterOptions> spam_options)
      : events_api(events_api),
        similar(events_api ? 1 : entries),  // tools/events has no aggregator
        series(events_api ? HashedLru<Series>::kUnbounded : entries) {
    if (spam_options) spam.emplace(std::move(*spam_options), entries);
  }
  // tools/events: no aggregator, no message in the series key, an unbounded cache that its
  // finishSeries ticker (every 6 minutes from the start) empties of series not seen for 6 minutes.
  bool events_api;
  engine::SimTime finished_at;  // the last finishSeries tick applied
  HashedLru<Similar> similar;
  HashedLru<Series> series;

  // EventLog::record's steps, in the recorder's order; the log holds the series' Events.
  struct Occurrence;
  void finish_idle_series(EventLog& log, engine::SimTime time);
  void aggregate(EventLog& log, Occurrence& o);
  void observe(EventLog& log, Occurrence& o);
  void write_event(EventLog& log, const Occurrence& o);
};

// One occurrence on its way through its source's recorder: what was recorded, and what the
// aggregator and the series lookup made of it.
struct EventLog::Correlator::Occurrence {
  engine::SimTime time;
  EventType type;
  std::string_view reason;
  const ObjectRef& object;
  std::string_view message;
  std::string_view source;
  std::uint64_t key;          // the aggregate key: type, object, reason
  bool combined = false;      // the aggregator folded it into the combined Event
  Similar* similar = nullptr;  // its aggregate record (tools/record only)
  Series* series = nullptr;
  bool new_series = false;

  Event event(int count) const {
    return Event{time, type, std::string(reason), object, std::string(message), std::string(source), count, 0, time};
  }
};

}  // namespace eksim::k8s
