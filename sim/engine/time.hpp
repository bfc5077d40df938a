#pragma once
// Simulated time: integer microseconds, never floating point, so that runs are exact and
// reproducible. Durations read and print like Go's time.Duration ("500ms", "1h30m0s"), which is
// what Kubernetes, Karpenter and Cluster Autoscaler flags and messages use.
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/engine/saturating.hpp"

namespace eksim::engine {

// Both types saturate: arithmetic past the int64 range of microseconds (about 292,000 years)
// stays at max() or min() instead of wrapping, so a user's "sleep 1e300" or a grace period of
// 2^63-1 seconds lasts forever (past the end of any run) rather than ending at once.
struct Duration {
  std::int64_t us = 0;

  static constexpr Duration max() { return {kInt64Max}; }
  static constexpr Duration micros(std::int64_t v) { return {v}; }
  static constexpr Duration millis(std::int64_t v) { return {sat_mul(v, 1000)}; }
  static constexpr Duration seconds(std::int64_t v) { return {sat_mul(v, 1000000)}; }
  static constexpr Duration minutes(std::int64_t v) { return {sat_mul(v, 60000000)}; }
  static constexpr Duration hours(std::int64_t v) { return {sat_mul(v, 3600000000LL)}; }
  // Rounds to the nearest microsecond; for values computed by models (transfer times, draws)
  // and read from commands (sleep 1e300). Saturates past the range (infinities included); NaN,
  // which no model means, is zero.
  static Duration from_seconds(double s);

  constexpr double to_seconds() const { return static_cast<double>(us) / 1e6; }
  constexpr auto operator<=>(const Duration&) const = default;
  constexpr Duration operator+(Duration o) const { return {sat_add(us, o.us)}; }
  constexpr Duration operator-(Duration o) const { return {sat_sub(us, o.us)}; }
  constexpr Duration operator*(std::int64_t k) const { return {sat_mul(us, k)}; }
  constexpr Duration& operator+=(Duration o) { us = sat_add(us, o.us); return *this; }
};

struct SimTime {
  std::int64_t us = 0;  // since the start of the simulation

  static constexpr SimTime zero() { return {0}; }
  static constexpr SimTime max() { return {kInt64Max}; }
  constexpr double to_seconds() const { return static_cast<double>(us) / 1e6; }
  constexpr auto operator<=>(const SimTime&) const = default;
  constexpr SimTime operator+(Duration d) const { return {sat_add(us, d.us)}; }
  constexpr SimTime operator-(Duration d) const { return {sat_sub(us, d.us)}; }
  constexpr Duration operator-(SimTime o) const { return {sat_sub(us, o.us)}; }
  constexpr SimTime& operator+=(Duration d) { us = sat_add(us, d.us); return *this; }
};

// Parses a Go duration: a sequence of decimal numbers with units ns, us (µs), ms, s, m, h, e.g.
// "300ms", "-1.5h", "2h45m". "0" alone is accepted. Sub-microsecond parts are truncated.
// Returns nullopt for anything Go's time.ParseDuration would reject.
std::optional<Duration> parse_duration(std::string_view text);

// A time as RFC 3339 writes it and Go's time.Parse(time.RFC3339, ...) reads it
// ("2026-01-01T00:00:00Z", "2026-01-01T09:00:00.5+09:00") -> Unix microseconds. nullopt for
// anything else: free text ("yesterday"), dates that do not exist (2026-02-30), a missing zone,
// and instants before the Unix epoch (or past year 9999, which four digits cannot write).
std::optional<std::int64_t> parse_rfc3339(std::string_view text);

// Formats as Go's Duration.String(): "1h30m0s", "15m0s", "1.5s", "500ms", "0s".
std::string format_duration(Duration d);
// As kubectl prints ages and spans (k8s.io/apimachinery/pkg/util/duration.HumanDuration):
// "45s", "3m21s", "20m", "5h30m", "2d4h".
std::string human_duration(Duration d);

// Timeline form used by the human report: "+1h02m03.500s" style is hard to scan, so this is
// fixed-width "HH:MM:SS.mmm" (hours may exceed 24).
std::string format_clock(SimTime t);

}  // namespace eksim::engine
