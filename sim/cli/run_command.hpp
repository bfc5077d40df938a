#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace eksim::cli {

struct RunArgs {
  std::string scenario;
  std::optional<std::uint64_t> seed;
  std::string until;
  std::string json_file, trace_file, metrics_file;
  std::string record_file;  // --record: what `eksim serve --replay` needs to re-simulate the run
  std::string metrics_interval;  // default one simulated minute
  bool quiet = false;
  bool check_invariants = false;  // exit 3 with the violation on stderr
};

// `eksim run`: 0 every expectation held, 1 one failed; input errors throw InputError (exit 2);
// with --check-invariants, 3 when an invariant was violated (invariants::kInvariantExitCode).
int run_command(const RunArgs& args);

}  // namespace eksim::cli
