#include "sim/engine/event_log.hpp"

#include "sim/engine/rate_limiter.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <optional>
#include <string_view>

#include <boost/container/small_vector.hpp>

#include "sim/engine/event_spill.hpp"

namespace eksim::engine {

const char* to_string(EventType t) { return t == EventType::Warning ? "Warning" : "Normal"; }

std::string ObjectRef::str() const {
  if (ns.empty()) return kind + "/" + name;
  return kind + "/" + ns + "/" + name;
}

namespace {

// A least-recently-used cache of at most `capacity` entries, as k8s.io/utils/lru: a lookup or
// insert makes the entry the most recent; inserting past capacity drops the least recent. A cache
// without a capacity grows, and drops entries only through drop_least_recent_while (the
// events.k8s.io recorder's map, which finishes series by age).
// Entries are found by a 64-bit hash of their key and confirmed by the caller's `same` test
// against what the entry points at, so no key text is copied or stored. Entries live in one array
// with index links (the recency list and the hash chains), so a correlator that sees every event
// of a week, most with a new key, allocates nothing once it is full.
template <typename V>
class HashedLru {
 public:
  static constexpr std::size_t kUnbounded = SIZE_MAX;
  explicit HashedLru(std::size_t capacity) : capacity_(std::max<std::size_t>(capacity, 1)) {
    std::size_t buckets = 1;
    while (buckets < 2 * std::min<std::size_t>(capacity_, 512)) buckets *= 2;
    buckets_.assign(buckets, kNone);
  }

  template <typename Same>
  V* get(std::uint64_t hash, Same same) {
    for (std::uint32_t i = buckets_[bucket(hash)]; i != kNone; i = nodes_[i].chain) {
      Node& n = nodes_[i];
      if (n.hash != hash || !same(n.value)) continue;
      unlink(i);
      push_front(i);
      return &n.value;
    }
    return nullptr;
  }
  // Insert for a key get() just missed; `evicted` sees the entry that makes room, if one does.
  template <typename Evicted>
  V& put_new(std::uint64_t hash, V value, Evicted evicted) {
    std::uint32_t i;
    if (!free_.empty()) {
      i = free_.back();
      free_.pop_back();
      nodes_[i].hash = hash;
      nodes_[i].value = std::move(value);
      nodes_[i].live = true;
    } else if (nodes_.size() < capacity_) {
      if (nodes_.size() + 1 > buckets_.size() / 2) rehash(buckets_.size() * 2);
      i = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back(Node{hash, std::move(value)});
    } else {
      i = tail_;  // the least recent makes room
      evicted(nodes_[i].value);
      unlink(i);
      unchain(i);
      nodes_[i].hash = hash;
      nodes_[i].value = std::move(value);
    }
    std::uint32_t& head = buckets_[bucket(hash)];
    nodes_[i].chain = head;
    head = i;
    push_front(i);
    return nodes_[i].value;
  }
  // Drops least recent entries while `expired` holds for the least recent one; `dropped` sees each.
  template <typename Expired, typename Dropped>
  void drop_least_recent_while(Expired expired, Dropped dropped) {
    while (tail_ != kNone && expired(nodes_[tail_].value)) {
      const std::uint32_t i = tail_;
      dropped(nodes_[i].value);
      unlink(i);
      unchain(i);
      nodes_[i].live = false;
      free_.push_back(i);
    }
  }
  template <typename Fn>
  void for_each_value(Fn fn) const {
    for (const Node& n : nodes_)
      if (n.live) fn(n.value);
  }

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  struct Node {
    std::uint64_t hash;
    V value;
    std::uint32_t prev = kNone, next = kNone;  // recency list, most recent first
    std::uint32_t chain = kNone;               // next in the same hash bucket
    bool live = true;                          // false while on the free list
  };
  std::size_t bucket(std::uint64_t hash) const { return (hash ^ (hash >> 29)) & (buckets_.size() - 1); }
  void unlink(std::uint32_t i) {
    Node& n = nodes_[i];
    (n.prev == kNone ? head_ : nodes_[n.prev].next) = n.next;
    (n.next == kNone ? tail_ : nodes_[n.next].prev) = n.prev;
  }
  void push_front(std::uint32_t i) {
    nodes_[i].prev = kNone;
    nodes_[i].next = head_;
    (head_ == kNone ? tail_ : nodes_[head_].prev) = i;
    head_ = i;
  }
  void unchain(std::uint32_t i) {
    std::uint32_t* link = &buckets_[bucket(nodes_[i].hash)];
    while (*link != i) link = &nodes_[*link].chain;
    *link = nodes_[i].chain;
  }
  // Chains are rebuilt in index order: which bucket holds what never changes what get() finds.
  void rehash(std::size_t buckets) {
    buckets_.assign(buckets, kNone);
    for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
      if (!nodes_[i].live) continue;
      std::uint32_t& head = buckets_[bucket(nodes_[i].hash)];
      nodes_[i].chain = head;
      head = i;
    }
  }

  std::size_t capacity_;
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> buckets_;
  std::vector<std::uint32_t> free_;
  std::uint32_t head_ = kNone, tail_ = kNone;
};

constexpr const char* kCombinedPrefix = "(combined from similar events): ";

std::uint64_t mix(std::uint64_t h, std::string_view s) {
  // boost::hash_combine's 64-bit mixing over std::hash of each part.
  h ^= std::hash<std::string_view>{}(s) + 0x9e3779b97f4a7c15ull + (h << 12) + (h >> 4);
  return h;
}

// The aggregator's key without the message (upstream getSpamKey-like: source is the recorder's).
bool same_aggregate(const Event& a, EventType type, std::string_view reason, const ObjectRef& object) {
  return a.type == type && a.reason == reason && a.object == object;
}

}  // namespace

constexpr std::size_t kNoEvent = SIZE_MAX;

struct EventLog::Correlator {
  // One aggregate key (object, type, reason): the distinct messages seen (the aggregator's
  // localKeys, kept sorted so the one dropped at the limit is deterministic) and a series Event
  // of that key, which stands for the key itself.
  struct Similar {
    boost::container::small_vector<std::string, 1> messages;
    SimTime last;
    std::size_t example = kNoEvent;  // index in the series
  };
  // An Event in series_, found by its object, type, reason and message, or by its aggregate
  // key alone once the aggregator combines them (or always, for the events API).
  struct Series {
    std::size_t index;  // in the series
    bool combined;
    SimTime last;       // the series' last occurrence (LastObservedTime)
    int count;          // the recorder's count (eventLogger), ahead of the Event's while filtered
  };
  // The broadcaster's queue: when each queued event is written (ascending), and the rate
  // limiter's theoretical arrival time (GCRA, the token bucket's equivalent in integer time).
  struct Sink {
    SinkLimits limits;
    std::deque<SimTime> writes;
    RateLimiter client;  // the component's API client (qps, burst)
    // Written events leave the queue; is there room for one more?
    bool has_room(SimTime now) {
      while (!writes.empty() && writes.front() <= now) writes.pop_front();
      return writes.size() < limits.queue;
    }
    // An event the spam filter skipped writes nothing: it leaves as soon as the writer reaches it.
    void enqueue(SimTime now, bool writes_event) {
      const SimTime ready = writes.empty() ? now : std::max(now, writes.back());  // one writer
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
    SimTime tat;
  };
  struct SpamFilter {
    SpamFilterOptions options;
    HashedLru<SpamRecord> buckets;
    std::string key;  // the key being built, reused
    Duration interval;
    Duration tolerance;
    explicit SpamFilter(SpamFilterOptions o, std::size_t entries)
        : options(std::move(o)),
          buckets(entries),
          interval{std::llround(1e6 / options.qps)},
          tolerance{interval.us * (std::max(options.burst, 1) - 1)} {}
    // Filter: TryAccept on the bucket of the occurrence's spam key. The source is the recorder's
    // own (one filter per source), so it is left out of the key.
    bool accepts(SimTime now, std::string_view reason, const ObjectRef& object, bool combined,
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
  SimTime finished_at;  // the last finishSeries tick applied
  HashedLru<Similar> similar;
  HashedLru<Series> series;

  // EventLog::record's steps, in the recorder's order; the log holds the series' Events.
  struct Occurrence;
  void finish_idle_series(EventLog& log, SimTime time);
  void aggregate(EventLog& log, Occurrence& o);
  void observe(EventLog& log, Occurrence& o);
  void write_event(EventLog& log, const Occurrence& o);
};

EventLog::EventLog() : EventLog(CorrelatorOptions{}) {}
EventLog::EventLog(CorrelatorOptions options) : options_(options) {}
EventLog::~EventLog() = default;

EventLog::Correlator& EventLog::correlator_for(std::string_view source) {
  // Events come in runs from one component: the last one's recorder is most often the one.
  if (last_correlator_ && last_source_ == source) return *last_correlator_;
  auto found = correlators_.find(source);
  if (found == correlators_.end()) {
    std::string name(source);
    const bool events_api = events_api_sources_.contains(name);
    std::optional<SpamFilterOptions> spam;
    if (!events_api) {  // tools/events has no spam filter
      auto options = spam_options_.find(name);
      spam = options != spam_options_.end() ? options->second : SpamFilterOptions{};
    }
    const std::size_t entries = spam && spam->lru_entries ? spam->lru_entries : options_.lru_entries;
    auto c = std::make_unique<Correlator>(entries, events_api, std::move(spam));
    if (auto limits = sink_limits_.find(name); limits != sink_limits_.end()) c->sink = Correlator::Sink{limits->second, {}, RateLimiter(limits->second.qps, limits->second.burst)};
    found = correlators_.emplace(std::move(name), std::move(c)).first;
  }
  last_source_ = source;
  last_correlator_ = found->second.get();
  return *last_correlator_;
}

bool EventLog::accepts(std::string_view source, SimTime time) {
  Correlator& c = correlator_for(source);
  if (!c.sink || c.sink->has_room(time)) return true;
  ++dropped_;  // the emitter does not build it: dropped here
  return false;
}

void EventLog::record(const Event& e) { record(e.time, e.type, e.reason, e.object, e.message, e.source); }

// One occurrence on its way through its source's recorder: what was recorded, and what the
// aggregator and the series lookup made of it.
struct EventLog::Correlator::Occurrence {
  SimTime time;
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
    return Event{time, type, std::string(reason), object, std::string(message), std::string(source), count, time};
  }
};

void EventLog::record(SimTime time, EventType type, std::string_view reason, const ObjectRef& object,
                      std::string_view message, std::string_view source) {
  Correlator& c = correlator_for(source);
  if (c.sink && !c.sink->has_room(time)) {
    ++dropped_;
    return;
  }
  ++occurrences_;
  Correlator::Occurrence o{time, type, reason, object, message, source,
                           mix(mix(mix(mix(static_cast<std::uint64_t>(type), object.kind), object.ns), object.name), reason)};
  if (c.events_api) c.finish_idle_series(*this, time);
  else c.aggregate(*this, o);
  const bool kept = !keep_ || keep_(reason);
  c.observe(*this, o);
  c.write_event(*this, o);
  if (kept) events_.push_back(o.event(o.series->count));
  if (spill_batch_ && series_.size() >= 2 * spill_batch_) spill_oldest(spill_batch_);
}

// finishSeries: the ticks since the last event can only have dropped what was already idle
// then, so the latest tick stands for all of them.
void EventLog::Correlator::finish_idle_series(EventLog& log, SimTime time) {
  const Duration finish = log.options_.finish_series_after;
  const SimTime tick{finish.us > 0 ? time.us / finish.us * finish.us : 0};
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
  const bool written = !spam || spam->accepts(o.time, o.reason, o.object, o.combined, o.message);
  if (sink) sink->enqueue(o.time, written);
  if (!written) return;
  Event& ev = log.at(o.series->index);
  ev.count = o.series->count;
  ev.last_time = o.time;
  // A combined Event shows the latest message. (The events API patches only the series, count
  // and lastObservedTime: its note stays the first.)
  if (o.combined && !o.new_series) ev.message.assign(kCombinedPrefix).append(o.message);
}

void EventLog::retain(std::size_t index) {
  if (index >= base_) return;  // in memory: not counted
  ++held_.at(index).references;
}

void EventLog::release(std::size_t index) {
  if (index >= base_) return;  // in memory (or kNoEvent)
  auto it = held_.find(index);
  if (--it->second.references > 0) return;
  spill_->write_late(index, it->second.event);
  held_.erase(it);
}

void EventLog::spill_series(std::size_t batch) {
  if (batch == 0) return;
  auto spill = std::make_unique<EventSpill>();
  if (!spill->ok()) return;
  spill_ = std::move(spill);
  spill_batch_ = batch;
}

void EventLog::spill_oldest(std::size_t count) {
  const std::size_t line = base_ + std::min(count, series_.size());
  // The Events below the line that some correlator still refers to stay in memory, counted.
  std::unordered_map<std::size_t, std::uint32_t> references;
  auto count_reference = [&](std::size_t index) {
    if (index >= base_ && index < line) ++references[index];
  };
  for (const auto& [source, c] : correlators_) {
    c->similar.for_each_value([&](const Correlator::Similar& s) { count_reference(s.example); });
    c->series.for_each_value([&](const Correlator::Series& s) { count_reference(s.index); });
  }
  for (std::size_t index = base_; index < line; ++index) {
    Event& e = series_.front();
    auto held = references.find(index);
    if (held != references.end()) held_.emplace(index, Held{std::move(e), held->second});
    else spill_->write_in_order(index, e);
    series_.pop_front();
  }
  base_ = line;
}

void EventLog::for_each_series(const std::function<void(const Event&, std::size_t)>& listed) const {
  // A series the spam filter kept out of the API server so far has no Event to list.
  auto fn = [&listed](const Event& e, std::size_t index) {
    if (e.count > 0) listed(e, index);
  };
  if (spill_) {
    // Spilled and held Events are disjoint and all below base_: merge them by index.
    std::vector<std::size_t> held;
    held.reserve(held_.size());
    for (const auto& [index, h] : held_) held.push_back(index);
    std::sort(held.begin(), held.end());
    auto next_held = held.begin();
    auto flush_held_below = [&](std::size_t limit) {
      for (; next_held != held.end() && *next_held < limit; ++next_held) fn(held_.at(*next_held).event, *next_held);
    };
    spill_->for_each([&](std::size_t index, const Event& e) {
      flush_held_below(index);
      fn(e, index);
    });
    flush_held_below(base_);
  }
  for (std::size_t i = 0; i < series_.size(); ++i) fn(series_[i], base_ + i);
}

std::vector<Event> EventLog::copy_series() const {
  std::vector<Event> out;
  out.reserve(series_count());
  for_each_series([&](const Event& e, std::size_t) { out.push_back(e); });
  return out;
}


}  // namespace eksim::engine
