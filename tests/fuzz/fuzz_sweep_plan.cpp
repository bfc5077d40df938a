// libFuzzer target: a sweep plan (apiVersion eksim/v1, kind SweepPlan) whose `scenario:` names a
// real base scenario, so the fuzzer reaches the grid, seeds, sharding and the path assignments
// into the base scenario's tree. The first points are loaded as scenarios (running them is the
// scenario target's job). Bad input must end in an InputError; anything else is a finding.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/sweep_plan.hpp"

namespace {

void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The directory holding base.yaml (the shipped planning base scenario, which seeds name as
// `scenario: base.yaml`) and the plan under test: relative to the working directory, which
// tests/fuzz/run.sh makes the target's own, so every path the loader reports has the same length
// on every run (a pid or an absolute path in it changed the coverage from run to run, issue 46).
std::filesystem::path work_dir() {
  static const std::filesystem::path dir = [] {
    std::filesystem::path d = "fuzz-sweep-plan-work";
    std::filesystem::create_directories(d);
    std::filesystem::copy_file(EKSIM_SOURCE_DIR "/scenarios/planning/gpu-cluster-base.yaml", d / "base.yaml",
                               std::filesystem::copy_options::overwrite_existing);
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace eksim::scenario;
  const auto plan_path = work_dir() / "plan.yaml";
  write_file(plan_path, std::string(reinterpret_cast<const char*>(data), size));
  try {
    SweepPlan plan = load_sweep_plan(plan_path.string());
    for (std::size_t p = 0; p < std::min<std::size_t>(plan.points.size(), 3); ++p) load_point_scenario(plan, p);
    if (plan.run_count() > 0) sweep_run(plan, plan.run_count() - 1);
    for (const char* shard : {"0/2", "1/2", "3/2", "1/0", "x"}) {
      if (auto s = parse_shard(shard)) shard_runs(plan.run_count(), s->first, s->second);
    }
  } catch (const InputError&) {
  }
  return 0;
}
