#pragma once
// Simulated time as the Kubernetes API shows it. kubectl computes some ages itself (describe's
// event ages, `logs --since`) from RFC 3339 timestamps against the client's wall clock, so the
// served timestamps are anchored at the wall clock of the answer: simulated "now" is printed as
// the real now, and a pod created 5 simulated minutes ago reads as created 5 minutes ago. The
// store keeps objects with a fixed anchor (the scenario's start time) so that an unchanged
// object renders to the same JSON; answers are rebased on the way out.
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "sim/engine/time.hpp"

namespace eksim::serve {

struct TimeBase {
  std::int64_t sim0_unix_us = 0;  // wall-clock microseconds of simulated time 0
  // "2026-01-01T00:05:12Z" (seconds, as metav1.Time marshals).
  std::string at(engine::SimTime t) const;
  // "2026-01-01T00:05:12.123456Z" (metav1.MicroTime: events.k8s.io eventTime, lease renewTime).
  std::string micro_at(engine::SimTime t) const;
};

std::string rfc3339(std::int64_t unix_us, bool micro = false);
// Unix microseconds of an RFC 3339 UTC timestamp ("...Z", optional fraction); false if not one.
bool parse_rfc3339(const std::string& text, std::int64_t& unix_us);
// Shifts every RFC 3339 timestamp string in v by delta_us (see the header comment).
void rebase_timestamps(nlohmann::json& v, std::int64_t delta_us);

}  // namespace eksim::serve
