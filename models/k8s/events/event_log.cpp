#include "models/k8s/events/event_log.hpp"

#include <algorithm>

#include "models/k8s/events/correlator.hpp"
#include "models/k8s/events/event_spill.hpp"

namespace eksim::k8s {

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
      spam = options != spam_options_.end() ? options->second : default_spam_options_;
    }
    const std::size_t entries = spam && spam->lru_entries ? spam->lru_entries : options_.lru_entries;
    auto c = std::make_unique<Correlator>(entries, events_api, std::move(spam));
    if (auto limits = sink_limits_.find(name); limits != sink_limits_.end()) c->sink = Correlator::Sink{limits->second, {}, engine::RateLimiter(limits->second.qps, limits->second.burst)};
    found = correlators_.emplace(std::move(name), std::move(c)).first;
  }
  last_source_ = source;
  last_correlator_ = found->second.get();
  return *last_correlator_;
}

bool EventLog::accepts(std::string_view source, engine::SimTime time) {
  Correlator& c = correlator_for(source);
  if (!c.sink || c.sink->has_room(time)) return true;
  ++dropped_;  // the emitter does not build it: dropped here
  return false;
}

void EventLog::record(const Event& e) { record(e.time, e.type, e.reason, e.object, e.message, e.source); }

void EventLog::record(engine::SimTime time, EventType type, std::string_view reason, const ObjectRef& object,
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
  if (kept) {
    events_.push_back(o.event(o.series->count));
    events_.back().stored_count = at(o.series->index).count;
  }
  if (spill_batch_ && series_.size() >= 2 * spill_batch_) spill_oldest(spill_batch_);
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

}  // namespace eksim::k8s
