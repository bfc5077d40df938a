// libFuzzer target: a scenario file's text through the whole loader (YAML pre-pass, scenario,
// manifests, Karpenter objects), then a short run of what loads. Bad input must end in an
// InputError; anything else (a crash, a sanitizer report, an escaped exception, a hang or a
// blow-up caught by -timeout / -rss_limit_mb) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/runner.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/yaml_documents.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace eksim;
  const std::string text(reinterpret_cast<const char*>(data), size);
  // Relative `file:` includes resolve against this (absent) directory and fail as missing files.
  const std::string file = "/nonexistent-fuzz-dir/scenario.yaml";
  try {
    auto docs = scenario::parse_yaml_documents(text, file);
    if (docs.empty() || !docs[0] || docs[0].IsNull()) return 0;
    scenario::Scenario s = scenario::load_scenario(docs[0], file);
    scenario::RunOptions options;
    options.until = engine::Duration::minutes(30);  // enough to exercise the controllers, quick
    options.keep_all_occurrences = false;
    scenario::run_scenario(s, options);
  } catch (const scenario::InputError&) {
    // the expected way to refuse input
  }
  return 0;
}
