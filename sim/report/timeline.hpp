#pragma once
// The human timeline printed by `eksim run`: Kubernetes events and AWS activities in time order,
// laid out like `kubectl get events` (time, type, reason, object, message).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/report/expectations.hpp"
#include "sim/ops/runner.hpp"

namespace eksim::report {

// The timeline, row by row, to `out` (a long run's timeline is written as it is formatted, never
// held whole in memory); format_timeline collects it.
void write_timeline(const ops::RunResult& run, const std::function<void(std::string_view)>& out);
std::string format_timeline(const ops::RunResult& run);
// eksim's own remarks (k8s::Hint), after the timeline: "\nHINTS ...\n", a header row and one
// row per hint (time, kind, object, message); nothing when there are none.
void write_hints(const ops::RunResult& run, const std::function<void(std::string_view)>& out);
std::string format_hints(const ops::RunResult& run);
// "PASS pod default/gpu-pod Running by 15m0s: became Running at 2m3s" lines and a summary.
std::string format_expectations(const std::vector<ExpectationResult>& results);

}  // namespace eksim::report
