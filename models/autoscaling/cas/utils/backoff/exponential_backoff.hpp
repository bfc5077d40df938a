#pragma once
// Node group back-off after failed scale-ups (cluster-autoscaler/utils/backoff/
// exponential_backoff.go): the first failure backs the group off for the initial duration; a
// failure within the reset timeout of the previous one doubles the previous duration, up to the
// maximum; entries older than the reset timeout are forgotten.
#include <map>
#include <string>

#include "sim/engine/time.hpp"

namespace eksim::autoscaling::cas {

struct BackoffOptions {
  engine::Duration initial = engine::Duration::minutes(5);   // --initial-node-group-backoff-duration
  engine::Duration max = engine::Duration::minutes(30);      // --max-node-group-backoff-duration
  engine::Duration reset = engine::Duration::hours(3);       // --node-group-backoff-reset-timeout
};

struct BackoffEntry {
  engine::Duration duration;
  engine::SimTime until;
  engine::SimTime last_failed;
  std::string error_class;
  std::string error_code;
  std::string error_message;
};

class ExponentialBackoff {
 public:
  explicit ExponentialBackoff(BackoffOptions o = {}) : o_(o) {}
  // Records a failure at now; returns the time the group is backed off until.
  engine::SimTime backoff(const std::string& group, engine::SimTime now, std::string error_class = {},
                          std::string error_code = {}, std::string error_message = {});
  bool is_backed_off(const std::string& group, engine::SimTime now) const;
  const BackoffEntry* entry(const std::string& group) const;
  // A successful scale-up clears the group's back-off (clusterstate RemoveBackoff).
  void remove(const std::string& group) { entries_.erase(group); }
  // RemoveStaleBackoffData: forget entries whose last failure is older than the reset timeout.
  void remove_stale(engine::SimTime now);

 private:
  BackoffOptions o_;
  std::map<std::string, BackoffEntry> entries_;
};

}  // namespace eksim::autoscaling::cas
