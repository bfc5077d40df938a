#include "sim/engine/event_log.hpp"

#include <algorithm>
#include <functional>
#include <string_view>

#include <boost/container/small_vector.hpp>

namespace eksim::engine {

const char* to_string(EventType t) { return t == EventType::Warning ? "Warning" : "Normal"; }

std::string ObjectRef::str() const {
  if (ns.empty()) return kind + "/" + name;
  return kind + "/" + ns + "/" + name;
}

namespace {

// A least-recently-used cache of at most `capacity` entries, as k8s.io/utils/lru: a lookup or
// insert makes the entry the most recent; inserting past capacity drops the least recent.
// Entries are found by a 64-bit hash of their key and confirmed by the caller's `same` test
// against what the entry points at, so no key text is copied or stored. Entries live in one array
// with index links (the recency list and the hash chains), so a correlator that sees every event
// of a week, most with a new key, allocates nothing once it is full.
template <typename V>
class HashedLru {
 public:
  explicit HashedLru(std::size_t capacity) : capacity_(std::max<std::size_t>(capacity, 1)) {
    std::size_t buckets = 1;
    while (buckets < 2 * capacity_) buckets *= 2;
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
  // Insert for a key get() just missed.
  V& put_new(std::uint64_t hash, V value) {
    std::uint32_t i;
    if (nodes_.size() < capacity_) {
      i = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back(Node{hash, std::move(value)});
    } else {
      i = tail_;  // the least recent makes room
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

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  struct Node {
    std::uint64_t hash;
    V value;
    std::uint32_t prev = kNone, next = kNone;  // recency list, most recent first
    std::uint32_t chain = kNone;               // next in the same hash bucket
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

  std::size_t capacity_;
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> buckets_;
  std::uint32_t head_ = kNone, tail_ = kNone;
};

constexpr const char* kCombinedPrefix = "(combined from similar events): ";

// The scheduler's recorder (events.k8s.io) has no aggregator (see the header).
bool aggregates(const std::string& source) { return source != "default-scheduler"; }

std::uint64_t mix(std::uint64_t h, std::string_view s) {
  // boost::hash_combine's 64-bit mixing over std::hash of each part.
  h ^= std::hash<std::string_view>{}(s) + 0x9e3779b97f4a7c15ull + (h << 12) + (h >> 4);
  return h;
}

// The aggregator's key without the message (upstream getSpamKey-like: source is the recorder's).
bool same_aggregate(const Event& a, const Event& b) {
  return a.type == b.type && a.reason == b.reason && a.object == b.object;
}

}  // namespace

struct EventLog::Correlator {
  // One aggregate key (object, type, reason): the distinct messages seen (the aggregator's
  // localKeys, kept sorted so the one dropped at the limit is deterministic) and a series Event
  // of that key, which stands for the key itself.
  struct Similar {
    boost::container::small_vector<std::string, 1> messages;
    SimTime last;
    std::size_t example = 0;  // index in series_
  };
  // An Event in series_, found by its object, type, reason and message, or by its aggregate
  // key alone once the aggregator combines them.
  struct Series {
    std::size_t index;
    bool combined;
  };
  explicit Correlator(std::size_t entries) : similar(entries), series(entries) {}
  HashedLru<Similar> similar;
  HashedLru<Series> series;
};

EventLog::EventLog() : EventLog(CorrelatorOptions{}) {}
EventLog::EventLog(CorrelatorOptions options) : options_(options) {}
EventLog::~EventLog() = default;

EventLog::Correlator& EventLog::correlator_for(const std::string& source) {
  // Events come in runs from one component: the last one's recorder is most often the one.
  if (last_correlator_ && last_source_ == source) return *last_correlator_;
  auto& c = correlators_[source];
  if (!c) c = std::make_unique<Correlator>(options_.lru_entries);
  last_source_ = source;
  last_correlator_ = c.get();
  return *c;
}

void EventLog::record(Event e) {
  ++occurrences_;
  Correlator& c = correlator_for(e.source);
  std::uint64_t key = mix(mix(mix(mix(static_cast<std::uint64_t>(e.type), e.object.kind), e.object.ns), e.object.name),
                          e.reason);
  bool combined = false;
  Correlator::Similar* similar = nullptr;
  if (aggregates(e.source)) {
    similar = c.similar.get(key, [&](const Correlator::Similar& s) { return same_aggregate(series_[s.example], e); });
    if (!similar) similar = &c.similar.put_new(key, Correlator::Similar{{}, e.time, 0});
    else if (e.time - similar->last > options_.max_interval) similar->messages.clear();
    auto& messages = similar->messages;
    auto at = std::lower_bound(messages.begin(), messages.end(), e.message);
    if (at == messages.end() || *at != e.message) messages.insert(at, e.message);
    similar->last = e.time;
    if (static_cast<int>(messages.size()) >= options_.max_similar_events) {
      // Keep the set below the limit (upstream pops an arbitrary one; the first is deterministic).
      messages.erase(messages.begin());
      combined = true;
    }
  }
  const std::uint64_t series_key = combined ? mix(key, kCombinedPrefix) : mix(key, e.message);
  e.last_time = e.time;
  const bool kept = !keep_ || keep_(e);
  auto same_series = [&](const Correlator::Series& s) {
    const Event& ev = series_[s.index];
    return s.combined == combined && same_aggregate(ev, e) && (combined || ev.message == e.message);
  };
  if (Correlator::Series* s = c.series.get(series_key, same_series)) {
    Event& ev = series_[s->index];
    ++ev.count;
    ev.last_time = e.time;
    if (combined) ev.message = kCombinedPrefix + e.message;
    e.count = ev.count;
    if (similar) similar->example = s->index;
    if (kept) events_.push_back(std::move(e));
    return;
  }
  c.series.put_new(series_key, Correlator::Series{series_.size(), combined});
  if (similar) similar->example = series_.size();
  e.count = 1;
  if (kept) events_.push_back(e);
  if (combined) e.message = kCombinedPrefix + e.message;
  series_.push_back(std::move(e));
}

void EventLog::record(SimTime time, EventType type, std::string reason, ObjectRef object, std::string message,
                      std::string source) {
  record(Event{time, type, std::move(reason), std::move(object), std::move(message), std::move(source), 1, time});
}

}  // namespace eksim::engine
