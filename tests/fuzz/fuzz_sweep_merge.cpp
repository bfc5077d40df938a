// libFuzzer target: a sweep results file (one JSON line per run) as `eksim sweep merge` and
// `--resume` read it, then the per-point summary table built from its lines. A malformed line
// must end in an InputError; anything else (an escaped nlohmann exception, a crash, deep nesting
// blowing the stack) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/cli/sweep_command.hpp"
#include "sim/scenario/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace eksim;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    cli::ResultFile results = cli::parse_result_lines(text, "results.jsonl");
    cli::sweep_summary_table(results.lines);
  } catch (const scenario::InputError&) {
  }
  return 0;
}
