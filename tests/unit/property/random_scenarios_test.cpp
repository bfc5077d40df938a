// Issue 17, item 4: a few hundred seeded random clusters and workloads (random_scenario.cpp) run
// for one to three simulated hours each with every invariant checked after every event. A
// violation fails with the seed and the scenario text, also written to random-<seed>.yaml in the
// working directory: `eksim run random-<seed>.yaml --check-invariants` replays it.
//
// EKSIM_PROPERTY_CASES sets the number of seeds per shard (default 50, 5 under ASan); the six
// shards run seeds 1..6*cases.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "models/invariants/invariant_checker.hpp"
#include "sim/ops/runner.hpp"
#include "tests/unit/property/random_scenario.hpp"

namespace eksim::property {
namespace {

// GCC says ASan with __SANITIZE_ADDRESS__, clang 14 only through __has_feature.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EKSIM_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(EKSIM_UNDER_ASAN)
constexpr std::uint64_t kDefaultCases = 5;
#else
constexpr std::uint64_t kDefaultCases = 50;
#endif

std::uint64_t cases_per_shard() {
  if (const char* env = std::getenv("EKSIM_PROPERTY_CASES")) return std::strtoull(env, nullptr, 10);
  return kDefaultCases;
}

// Runs one seed; the empty string when every invariant held, else what broke.
std::string run_seed(std::uint64_t seed, std::string& text) {
  text = random_scenario(seed);
  const std::string file = "random-" + std::to_string(seed) + ".yaml";
  try {
    scenario::Scenario s = scenario::load_scenario(YAML::Load(text), file);
    ops::RunOptions options;
    options.check_invariants = true;
    options.keep_all_occurrences = false;
    ops::RunResult run = ops::run_scenario(s, options);
    return {};
  } catch (const invariants::Violation& v) {
    return v.what();
  } catch (const std::exception& e) {
    return std::string("the generated scenario did not load or run: ") + e.what();
  }
}

class RandomScenarios : public ::testing::TestWithParam<int> {};

TEST_P(RandomScenarios, InvariantsHold) {
  const std::uint64_t n = cases_per_shard();
  for (std::uint64_t seed = 1 + GetParam() * n; seed <= (GetParam() + 1) * n; ++seed) {
    std::string text;
    std::string problem = run_seed(seed, text);
    if (problem.empty()) continue;
    std::ofstream("random-" + std::to_string(seed) + ".yaml") << text;
    ADD_FAILURE() << "seed " << seed << ": " << problem << "\n--- random-" << seed << ".yaml ---\n" << text;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomScenarios, ::testing::Range(0, 6));

// The generator is deterministic (a failure must replay) and its files differ between seeds.
TEST(RandomScenarioGenerator, SameSeedSameTextAndSeedsDiffer) {
  EXPECT_EQ(random_scenario(7), random_scenario(7));
  EXPECT_NE(random_scenario(7), random_scenario(8));
  EXPECT_NE(random_scenario(7).find("seed: 7\n"), std::string::npos);
}

}  // namespace
}  // namespace eksim::property
