// The priority expander's rules are RE2, as Go's regexp (issue 42 item 2): linear-time matching
// and Go's syntax and error texts.
#include "models/autoscaling/cas/expander/expander.hpp"

#include <gtest/gtest.h>

#include <string>

namespace eksim::autoscaling::cas {
namespace {

// std::regex backtracked through 2^n ways of splitting the id for `(.*)*x$` and never finished
// on a 40-character id; RE2 answers in one pass. The answers are asserted here (a backtracking
// engine would not return within ctest's timeout); the time per id length is measured in
// bench/expander_bench.cpp.
TEST(PriorityExpanderRegexp, NestedStarsMatchOnLongIds) {
  const std::string id(100000, 'a');
  EXPECT_FALSE(priority_group_matches(id, {"(.*)*x$", "(a|aa)*b", "(a*)*b"}));
  EXPECT_TRUE(priority_group_matches(id + "x", {"(.*)*x$"}));
}

TEST(PriorityExpanderRegexp, GoSyntaxAndErrors) {
  EXPECT_TRUE(priority_group_matches("eks-gpu-spot", {"(?i)SPOT"}));           // Go flags
  EXPECT_TRUE(priority_group_matches("eks-gpu-2024", {"\\pN"}));  // Unicode classes
  EXPECT_FALSE(priority_group_matches("eks-gpu", {"(?<=eks)-gpu"}));          // no lookbehind in Go
  auto err = check_priority_regexps(PriorityConfig{{10, {"a**"}}});
  ASSERT_TRUE(err);
  EXPECT_EQ(*err, "Can't compile regexp rule for priority 10 and rule a**: error parsing regexp: "
                  "invalid nested repetition operator: `**`");
  err = check_priority_regexps(PriorityConfig{{5, {"(?<=eks)-gpu"}}});
  ASSERT_TRUE(err);
  EXPECT_EQ(*err, "Can't compile regexp rule for priority 5 and rule (?<=eks)-gpu: error parsing regexp: "
                  "invalid or unsupported Perl syntax: `(?<`");
  EXPECT_FALSE(check_priority_regexps(PriorityConfig{{10, {"(.*)*x$", ".*spot.*"}}}));
}

}  // namespace
}  // namespace eksim::autoscaling::cas
