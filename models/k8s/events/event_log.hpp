#pragma once
// The event log is the product: what a student compares with `kubectl get events`. It takes every
// occurrence a component emits through that component's client-go event recorder (correlator,
// spam filter, broadcaster queue) and stores the Event objects the API server would hold, in the
// order they were first written, with eksim's hints beside them. AWS's own records (scaling
// activities) are kept by the cluster (models/aws/activity.hpp).
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "models/k8s/events/event.hpp"
#include "sim/engine/string_map.hpp"
#include "sim/engine/time.hpp"

namespace eksim::k8s {

class EventSpill;

// What the client-go event recorders do before an event reaches the API server, so that a week
// of a fleet holds one Event per series, not a million copies. Most components use tools/record
// (EventCorrelator):
//  - EventAggregator: events with the same source, object, type and reason but different messages
//    are "similar"; once 10 distinct messages were seen within 10 minutes of each other, the next
//    ones are folded into one Event whose message is "(combined from similar events): <latest>".
//  - eventLogger: an identical event (same source, object, type, reason, message) updates the
//    existing Event: count + 1, lastTimestamp = now, firstTimestamp kept.
// Both caches are LRUs of 4,096 entries (maxLruCacheEntries), per reporting component as each
// component has its own recorder.
// The scheduler reports through events.k8s.io (tools/events): no aggregator, and a series is keyed
// by object, type and reason without the message, so a pod's FailedScheduling Event keeps the
// note it was created with while its count grows (the series patch carries only count and
// lastObservedTime). Its cache is a map without a limit, emptied every 6 minutes (finishTime) of
// series not observed in the last 6 minutes; the next occurrence starts a new Event.
struct CorrelatorOptions {
  int max_similar_events = 10;                       // defaultAggregateMaxEvents
  engine::Duration max_interval = engine::Duration::seconds(600);    // defaultAggregateIntervalInSeconds
  std::size_t lru_entries = 4096;                    // maxLruCacheEntries
  engine::Duration finish_series_after = engine::Duration::minutes(6);  // tools/events finishTime
};

// client-go's EventSourceObjectSpamFilter, the last step of tools/record's EventCorrelate (after
// the aggregator and the count update): a token bucket per key lets `burst` occurrences through,
// then one per 1/qps. A skipped occurrence still raised the recorder's count, so the next one
// written carries it; a series whose first occurrence is skipped reaches the API server only when
// one is written (its patch finds no Event and creates it, with the first timestamp). The buckets
// live in an LRU: a key evicted and seen again starts with a full bucket.
// Defaults (tools/record): 25 per source and involved object, refilled one per 5 minutes, 4,096 keys.
// Cluster Autoscaler (utils/kubernetes/factory.go, unless --record-duplicated-events): 1 per
// reason, source and object, refilled one per 5 minutes, 8,192 entries in all its recorder's
// caches, and the events of its status ConfigMap keyed by their message.
struct SpamFilterOptions {
  int burst = 25;                     // defaultSpamBurst
  double qps = 1.0 / 300;             // defaultSpamQPS
  bool key_includes_reason = false;   // CA's getCustomSpamKeyFunc
  // client-go v0.32 (Kubernetes 1.32) added the event's type to getSpamKey (kubernetes#124747):
  // Normal and Warning events of one object draw on separate buckets.
  bool key_includes_type = false;
  std::optional<ObjectRef> keyed_by_message;  // CA: ConfigMap kube-system/cluster-autoscaler-status
  std::size_t lru_entries = 0;        // 0: CorrelatorOptions::lru_entries, for all of the recorder's caches
};

// client-go's event pipeline in front of a component's sink: the broadcaster queues at most
// `queue` events (maxQueuedEvents 1000, watch.DropIfChannelFull) for the one goroutine that
// correlates and writes them, each write waiting for the component's API client rate limiter
// (`qps`, `burst`). An event that finds the queue full is dropped before correlation: no Event,
// no count. Only a component emitting far faster than it can write (an autoscaler speaking
// about 100,000 pending pods every scan) ever fills it. An event the spam filter skips costs no
// write: it leaves the queue as soon as the writer reaches it.
struct SinkLimits {
  double qps = 5;       // rest.DefaultQPS
  int burst = 10;       // rest.DefaultBurst
  std::size_t queue = 1000;
};

class EventLog {
 public:
  EventLog();
  explicit EventLog(CorrelatorOptions options);
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  void record(const Event& e);
  // An occurrence as an emitter hands it over. Only what the log keeps is copied: the 100,000th
  // "Created pod" a ReplicaSet's recorder folds into its combined Event copies no string. The
  // views must not point into this log's own Events.
  void record(engine::SimTime time, EventType type, std::string_view reason, const ObjectRef& object, std::string_view message,
              std::string_view source);
  // `source` reports through events.k8s.io (client-go tools/events, as kube-scheduler does) rather
  // than tools/record: its recorder has no aggregator, keys a series without the message, keeps
  // every series in a map and finishes those not seen for 6 minutes. Call before its first event.
  void report_through_events_api(std::string source) { events_api_sources_.insert(std::move(source)); }
  // `source`'s recorder filters spam with these options instead of client-go's defaults. Call
  // before its first event. Sources reporting through the events API have no spam filter.
  void filter_spam(std::string source, SpamFilterOptions options) { spam_options_[std::move(source)] = std::move(options); }
  // The options of every recorder not given its own: the cluster's components are built with
  // the client-go of the cluster's Kubernetes version. Call before the first event.
  void filter_spam_by_default(SpamFilterOptions options) { default_spam_options_ = std::move(options); }
  // `source` writes through a queue and rate limiter (SinkLimits). Call before its first event.
  void limit_sink(std::string source, SinkLimits limits) { sink_limits_[std::move(source)] = limits; }
  // Whether an event from `source` at `time` would be queued rather than dropped, so that an
  // emitter can skip building one that would not be (a refused one counts as dropped).
  bool accepts(std::string_view source, engine::SimTime time);
  // `n` more events an emitter did not build after accepts() refused one at this instant: the
  // queue cannot drain before time moves, so they would all have been refused.
  void refused(std::uint64_t n) { dropped_ += n; }
  // Events the broadcaster queues dropped, in all.
  std::uint64_t dropped() const { return dropped_; }
  void record_hint(Hint h) { hints_.push_back(std::move(h)); }

  // The Event objects the API server holds after correlation, in order of first occurrence: what
  // `kubectl get events` lists, and what the timeline and the JSON report print. `index` is the
  // series' position in that order; a series the spam filter has kept out of the API so far is
  // skipped, leaving a gap.
  void for_each_series(const std::function<void(const Event&, std::size_t index)>& fn) const;
  // Series the recorders opened, written or not (the next index).
  std::size_t series_count() const { return base_ + series_.size(); }
  std::vector<Event> copy_series() const;  // for tests and small runs
  // A long run keeps at most about 2 x `batch` Event objects in memory: beyond that, the oldest
  // `batch` go to a temporary file (EventSpill) as the run goes, except those the correlator may
  // still update, which stay in memory until it lets them go. Reading is unchanged. Without a
  // usable temporary file everything stays in memory.
  void spill_series(std::size_t batch);
  // Every occurrence as a component emitted it, before correlation (what expectations count).
  // All are kept unless a filter says otherwise: a long run keeps only those an expectation reads.
  const std::vector<Event>& events() const { return events_; }
  void keep_occurrences_if(std::function<bool(std::string_view reason)> filter) { keep_ = std::move(filter); }
  // Occurrences recorded in all (kept or not).
  std::uint64_t occurrences() const { return occurrences_; }

  // eksim's remarks, in the order they were made.
  const std::vector<Hint>& hints() const { return hints_; }

 private:
  struct Correlator;
  Correlator& correlator_for(std::string_view source);
  // The series Event at `index`, in memory or held back from the spill because the correlator
  // refers to it.
  Event& at(std::size_t index) { return index >= base_ ? series_[index - base_] : held_.at(index).event; }
  // The correlator's references to Events already past the spill line are counted, so that such an
  // Event goes to the spill file once the last reference is gone.
  void retain(std::size_t index);
  void release(std::size_t index);
  void spill_oldest(std::size_t count);

  CorrelatorOptions options_;
  std::deque<Event> series_;  // from index base_; a deque: never moved as it grows
  std::size_t base_ = 0;      // Events before it are spilled or held
  struct Held {
    Event event;
    std::uint32_t references;
  };
  std::unordered_map<std::size_t, Held> held_;
  std::unique_ptr<EventSpill> spill_;
  std::size_t spill_batch_ = 0;
  std::vector<Event> events_;
  std::vector<Hint> hints_;
  std::function<bool(std::string_view reason)> keep_;
  std::uint64_t occurrences_ = 0;
  engine::StringMap<std::unique_ptr<Correlator>> correlators_;  // by source
  std::unordered_set<std::string> events_api_sources_;
  std::unordered_map<std::string, SinkLimits> sink_limits_;
  std::unordered_map<std::string, SpamFilterOptions> spam_options_;
  SpamFilterOptions default_spam_options_;
  std::uint64_t dropped_ = 0;
  std::string last_source_;
  Correlator* last_correlator_ = nullptr;
};

}  // namespace eksim::k8s
