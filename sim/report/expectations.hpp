#pragma once
// Checks a run against its scenario's `expect:` entries.
#include <string>
#include <vector>

#include "sim/ops/runner.hpp"

namespace eksim::report {

struct ExpectationResult {
  std::string description;
  bool passed = false;
  std::string detail;  // what was observed, in the user's terms
  scenario::Location where;
};

std::vector<ExpectationResult> check_expectations(const ops::RunResult& run);

}  // namespace eksim::report
