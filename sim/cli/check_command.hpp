#pragma once
#include <string>
#include <vector>

namespace eksim::cli {

struct CheckArgs {
  std::vector<std::string> paths;
  std::string junit_file;
  int jobs = 1;
  bool check_invariants = false;  // a violation fails that scenario (exit 3)
};

// `eksim check`: 0 all held, 1 some expectation failed, 2 some scenario was invalid, 3 (with
// --check-invariants) some run violated an invariant.
int check_command(const CheckArgs& args);

// Scenario files under the paths (directories searched recursively for .yaml/.yml/.json files
// whose document is `kind: Scenario`), sorted so runs and reports are in a stable order.
std::vector<std::string> collect_scenarios(const std::vector<std::string>& paths);

}  // namespace eksim::cli
