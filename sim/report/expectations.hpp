#pragma once
// Checks a run against its scenario's `expect:` entries.
#include <functional>
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

// A container's log as `kubectl logs [--previous]` prints it at the end of the run. The CLI passes
// the one `eksim serve` answers with (sim/serve/container_logs.hpp; report does not use serve);
// without one, log expectations fail saying so.
using ContainerLogReader =
    std::function<std::string(const Cluster&, const k8s::PodRecord&, const k8s::Container&, bool previous)>;

std::vector<ExpectationResult> check_expectations(const ops::RunResult& run, const ContainerLogReader& logs = {});

}  // namespace eksim::report
