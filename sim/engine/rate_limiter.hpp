#pragma once
// client-go's token-bucket rate limiter (flowcontrol.NewTokenBucketRateLimiter, golang.org/x/time
// /rate) as a caller that waits for its token sees it: `burst` requests go at once, then one
// every 1/qps. Kept as GCRA, one theoretical arrival time, in integer microseconds, so that a
// bucket costs one number and the same requests give the same times on every machine.
#include <algorithm>
#include <cmath>

#include "sim/engine/time.hpp"

namespace eksim::engine {

class RateLimiter {
 public:
  RateLimiter() = default;
  RateLimiter(double qps, int burst)
      : interval_{std::llround(1e6 / qps)}, tolerance_{interval_.us * (std::max(burst, 1) - 1)} {}

  // Reserves the next token for a request made at `now` (Wait): the time the request goes out,
  // never before `now`. A bucket starts full.
  SimTime reserve(SimTime now) {
    const SimTime go = std::max(now, tat_ - tolerance_);
    tat_ = std::max(tat_, go) + interval_;
    return go;
  }
  Duration interval() const { return interval_; }

 private:
  Duration interval_{};
  Duration tolerance_{};
  SimTime tat_{};
};

}  // namespace eksim::engine
