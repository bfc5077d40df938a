// The Cluster Autoscaler priority expander's rules against node group ids of growing length
// (issue 42 item 2): RE2 matches in time linear in the id, where std::regex backtracked
// exponentially on `(.*)*x$`. Read the reported complexity (expected: O(N)).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "models/autoscaling/cas/expander/expander.hpp"

namespace {

void BM_PriorityRulesOnLongIds(benchmark::State& state) {
  const std::string id(static_cast<std::size_t>(state.range(0)), 'a');
  const std::vector<std::string> rules = {"(.*)*x$", "(a|aa)*b", "(a*)*b"};
  for (auto _ : state) benchmark::DoNotOptimize(eksim::autoscaling::cas::priority_group_matches(id, rules));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_PriorityRulesOnLongIds)->RangeMultiplier(4)->Range(1 << 10, 1 << 18)->Complexity(benchmark::oN);

}  // namespace
