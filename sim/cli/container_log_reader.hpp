#pragma once
// The container logs `eksim serve` answers `kubectl logs` with (sim/serve/container_logs.hpp), for
// the `{log: ...}` expectations of `eksim run`, `check` and `sweep`: the report layer does not
// use serve, so the program hands them over.
#include "sim/report/expectations.hpp"

namespace eksim::cli {

report::ContainerLogReader container_log_reader();

}  // namespace eksim::cli
