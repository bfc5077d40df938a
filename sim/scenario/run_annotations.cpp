#include "sim/scenario/run_annotations.hpp"

#include "sim/engine/numbers.hpp"
#include "sim/scenario/input_limits.hpp"
#include "sim/scenario/manifest_decoding.hpp"

namespace eksim::scenario {

namespace {

using manifest::fe_invalid;
using manifest::keyed;
using manifest::quote;

// The largest image eksim pulls: 1Ti, so that bytes over a bandwidth stay a sane time.
constexpr std::int64_t kMaxImageBytes = 1LL << 40;

std::optional<engine::Duration> bounded_duration(const std::string& text) {
  auto d = engine::parse_duration(text);
  if (!d || d->us < 0 || *d > kMaxSimulatedTime) return std::nullopt;
  return d;
}

template <class T>
std::optional<T> integer_in(const std::string& text, std::int64_t lo, std::int64_t hi) {
  auto n = engine::parse_integer<std::int64_t>(text);
  if (!n.ok() || n.value < lo || n.value > hi) return std::nullopt;
  return static_cast<T>(n.value);
}

}  // namespace

std::optional<RunAnnotationError> decode_run_annotations(const k8s::Labels& annotations, const std::string& path,
                                                         k8s::RunAnnotations& out) {
  const std::string year = engine::format_duration(kMaxSimulatedTime);
  for (const auto& [key, text] : annotations) {
    std::string must;
    if (key == k8s::kAnnotationDuration) {
      if (!(out.duration = bounded_duration(text))) must = "must be a duration such as 90s, 15m or 1h30m, at most " + year;
    } else if (key == k8s::kAnnotationStopTime) {
      if (!(out.stop_time = bounded_duration(text))) must = "must be a duration such as 1s or 30s, at most " + year;
    } else if (key == k8s::kAnnotationExitCode) {
      if (!(out.exit_code = integer_in<std::int32_t>(text, 0, 255)))
        must = "must be an integer from 0 to 255 (the container's exit status)";
    } else if (key == k8s::kAnnotationImageSize) {
      if (!(out.image_size = integer_in<std::int64_t>(text, 1, kMaxImageBytes)))
        must = "must be a number of bytes from 1 to " + std::to_string(kMaxImageBytes);
    }
    if (!must.empty()) return RunAnnotationError{key, fe_invalid(keyed(path, key), quote(text), must)};
  }
  return std::nullopt;
}

}  // namespace eksim::scenario
