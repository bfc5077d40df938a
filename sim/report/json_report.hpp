#pragma once
// The JSON report of CONTRACT.md (schema eksim.report/v1).
#include <string>
#include <vector>

#include "sim/report/expectations.hpp"
#include "sim/scenario/runner.hpp"

namespace eksim::report {

std::string json_report(const scenario::RunResult& run, const std::vector<ExpectationResult>& results);

}  // namespace eksim::report
