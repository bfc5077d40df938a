#include "models/autoscaling/cas/utils/backoff/exponential_backoff.hpp"

namespace eksim::autoscaling::cas {

engine::SimTime ExponentialBackoff::backoff(const std::string& group, engine::SimTime now, std::string error_class,
                                            std::string error_code, std::string error_message) {
  engine::Duration d = o_.initial;
  if (auto it = entries_.find(group); it != entries_.end() && it->second.last_failed + o_.reset > now) {
    d = it->second.duration * 2;
    if (d > o_.max) d = o_.max;
  }
  BackoffEntry e{d, now + d, now, std::move(error_class), std::move(error_code), std::move(error_message)};
  entries_[group] = e;
  return e.until;
}

bool ExponentialBackoff::is_backed_off(const std::string& group, engine::SimTime now) const {
  auto it = entries_.find(group);
  return it != entries_.end() && now < it->second.until;
}

const BackoffEntry* ExponentialBackoff::entry(const std::string& group) const {
  auto it = entries_.find(group);
  return it == entries_.end() ? nullptr : &it->second;
}

void ExponentialBackoff::remove_stale(engine::SimTime now) {
  std::erase_if(entries_, [&](const auto& kv) { return kv.second.last_failed + o_.reset < now; });
}

}  // namespace eksim::autoscaling::cas
