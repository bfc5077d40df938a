#include "sim/engine/event_log.hpp"

#include <list>
#include <set>

namespace eksim::engine {

const char* to_string(EventType t) { return t == EventType::Warning ? "Warning" : "Normal"; }

std::string ObjectRef::str() const {
  if (ns.empty()) return kind + "/" + name;
  return kind + "/" + ns + "/" + name;
}

namespace {

// A least-recently-used map of string keys, as k8s.io/utils/lru: a lookup or insert makes the
// entry the most recent; inserting past capacity drops the least recent.
template <typename V>
class Lru {
 public:
  explicit Lru(std::size_t capacity) : capacity_(capacity) {}
  V* get(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->second;
  }
  V& put(const std::string& key, V value) {
    if (V* v = get(key)) return *v = std::move(value);
    return put_new(key, std::move(value));
  }
  // put() of a key get() just missed.
  V& put_new(const std::string& key, V value) {
    order_.emplace_front(key, std::move(value));
    index_.emplace(key, order_.begin());
    if (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    return order_.front().second;
  }

 private:
  std::size_t capacity_;
  std::list<std::pair<std::string, V>> order_;
  std::unordered_map<std::string, typename std::list<std::pair<std::string, V>>::iterator> index_;
};

constexpr char kSep = '\x1f';
constexpr const char* kCombinedPrefix = "(combined from similar events): ";

// The scheduler's recorder (events.k8s.io) has no aggregator (see the header).
bool aggregates(const std::string& source) { return source != "default-scheduler"; }

}  // namespace

struct EventLog::Correlator {
  struct Similar {
    std::set<std::string> messages;  // the aggregator's localKeys
    SimTime last;
  };
  explicit Correlator(std::size_t entries) : similar(entries), series(entries) {}
  Lru<Similar> similar;            // aggregate key -> messages seen
  Lru<std::size_t> series;         // event key -> index in series_
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
  std::string key = e.object.kind;
  key += kSep;
  key += e.object.ns;
  key += kSep;
  key += e.object.name;
  key += kSep;
  key += to_string(e.type);
  key += kSep;
  key += e.reason;
  bool combined = false;
  if (aggregates(e.source)) {
    Correlator::Similar* s = c.similar.get(key);
    if (!s) s = &c.similar.put_new(key, Correlator::Similar{{}, e.time});
    else if (e.time - s->last > options_.max_interval) *s = Correlator::Similar{{}, e.time};
    s->messages.insert(e.message);
    s->last = e.time;
    if (static_cast<int>(s->messages.size()) >= options_.max_similar_events) {
      // Keep the set below the limit (upstream pops an arbitrary one; the first is deterministic).
      s->messages.erase(s->messages.begin());
      combined = true;
    }
  }
  if (!combined) {
    key += kSep;
    key += e.message;
  }
  e.last_time = e.time;
  const bool kept = !keep_ || keep_(e);
  if (std::size_t* idx = c.series.get(key)) {
    Event& ev = series_[*idx];
    ++ev.count;
    ev.last_time = e.time;
    ev.message = combined ? kCombinedPrefix + e.message : e.message;
    e.count = ev.count;
    if (kept) events_.push_back(std::move(e));
    return;
  }
  c.series.put_new(key, series_.size());
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
