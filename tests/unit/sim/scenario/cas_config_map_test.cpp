// The priority expander ConfigMap's `priorities` value (expander/priority/priority.go).
#include "sim/scenario/cas_config_map.hpp"

#include <gtest/gtest.h>

namespace eksim::scenario {
namespace {

TEST(CasPriority, ConfigParsing) {
  std::string err;
  auto ok = parse_priority_config("10:\n  - .*spot.*\n1:\n  - .*\n", &err);
  ASSERT_TRUE(ok) << err;
  EXPECT_EQ(*ok, (autoscaling::cas::PriorityConfig{{10, {".*spot.*"}}, {1, {".*"}}}));

  struct Bad {
    std::string yaml, want;
  };
  const std::vector<Bad> bad = {
      {"", "priority configuration in cluster-autoscaler-priority-expander configmap is empty; please provide valid configuration"},
      {"high:\n  - .*spot.*\n",
       "Can't parse YAML with priorities in the configmap: yaml: unmarshal errors:\n  line 1: cannot unmarshal !!str `high` into int"},
      {"10: .*spot.*\n",
       "Can't parse YAML with priorities in the configmap: yaml: unmarshal errors:\n  line 1: cannot unmarshal !!str `.*spot.*` into []string"},
      {"10:\n  - \"[spot\"\n",
       "Can't compile regexp rule for priority 10 and rule [spot: error parsing regexp: missing closing ]: `[spot`"},
  };
  for (const auto& b : bad) {
    err.clear();
    EXPECT_FALSE(parse_priority_config(b.yaml, &err)) << b.yaml;
    EXPECT_EQ(err, b.want) << b.yaml;
  }
}

// std::regex recurses per nesting level and per character: rules that would overflow the stack
// are refused with Go's "nests too deeply" text (beyond 1000 levels) or eksim's length limit.
TEST(CasPriority, RulesThatWouldOverflowStdRegexAreRefused) {
  std::string err;
  const std::string nested = std::string(1001, '(') + "a" + std::string(1001, ')');
  EXPECT_FALSE(parse_priority_config("10:\n  - \"" + nested + "\"\n", &err));
  EXPECT_EQ(err, "Can't compile regexp rule for priority 10 and rule " + nested +
                     ": error parsing regexp: expression nests too deeply: `" + nested + "`");
  const std::string longest = std::string(10001, 'a');
  EXPECT_FALSE(parse_priority_config("10:\n  - " + longest + "\n", &err));
  EXPECT_EQ(err, "Can't compile regexp rule for priority 10 and rule " + longest +
                     ": rule longer than 10000 characters (eksim's limit)");
  EXPECT_TRUE(parse_priority_config("10:\n  - \"" + std::string(1000, '(') + "a" + std::string(1000, ')') + "\"\n", &err)) << err;
}

}  // namespace
}  // namespace eksim::scenario
