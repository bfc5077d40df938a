#pragma once
// The JSON report of CONTRACT.md (schema eksim.report/v1).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/report/expectations.hpp"
#include "sim/ops/runner.hpp"

namespace eksim::report {

// The report of CONTRACT.md, written to `out` section by section and item by item, so that a
// week's pods and events are never one document in memory. Bytes are those of nlohmann's
// dump(2) of the whole object; json_report collects them.
void write_json_report(const ops::RunResult& run, const std::vector<ExpectationResult>& results,
                       const std::function<void(std::string_view)>& out);
std::string json_report(const ops::RunResult& run, const std::vector<ExpectationResult>& results);

}  // namespace eksim::report
