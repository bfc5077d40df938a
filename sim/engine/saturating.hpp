#pragma once
// Saturating int64 arithmetic for amounts that come from user input (simulated times and
// durations, resource quantities): a sum or product past the int64 range sticks at its rail
// instead of wrapping (signed overflow is undefined behaviour, and in practice turns "forever"
// into "at once" and "too much cpu" into "fits anywhere"). The builtins are well defined on
// overflow, constexpr, and compile to an add plus a branch the predictor never misses.
#include <cstdint>
#include <limits>

namespace eksim::engine {

inline constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

constexpr std::int64_t sat_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? kInt64Max : kInt64Min;
  return r;
}

constexpr std::int64_t sat_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return b < 0 ? kInt64Max : kInt64Min;
  return r;
}

constexpr std::int64_t sat_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return (a < 0) != (b < 0) ? kInt64Min : kInt64Max;
  return r;
}

}  // namespace eksim::engine
