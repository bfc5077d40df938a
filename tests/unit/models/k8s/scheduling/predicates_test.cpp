#include "models/k8s/scheduling/predicates.hpp"

#include <gtest/gtest.h>

namespace eksim::k8s {
namespace {

struct TolerationCase {
  const char* what;
  Toleration toleration;
  Taint taint;
  bool tolerates;
};

TEST(SchedulingTolerations, TableOfFactsRules) {
  const TolerationCase cases[] = {
      {"equal key, value and effect", {"k", "Equal", "v", "NoSchedule", {}}, {"k", "v", "NoSchedule"}, true},
      {"empty operator means Equal", {"k", "", "v", "NoSchedule", {}}, {"k", "v", "NoSchedule"}, true},
      {"Equal compares values", {"k", "Equal", "v", "NoSchedule", {}}, {"k", "w", "NoSchedule"}, false},
      {"empty operator compares values", {"k", "", "v", "", {}}, {"k", "w", "NoSchedule"}, false},
      {"Equal with empty value matches empty value", {"CriticalAddonsOnly", "Equal", "", "", {}}, {"CriticalAddonsOnly", "", "NoSchedule"}, true},
      {"Exists ignores value", {"k", "Exists", "", "NoSchedule", {}}, {"k", "anything", "NoSchedule"}, true},
      {"key must equal", {"k", "Exists", "", "", {}}, {"other", "", "NoSchedule"}, false},
      {"empty effect matches NoSchedule", {"k", "Exists", "", "", {}}, {"k", "", "NoSchedule"}, true},
      {"empty effect matches NoExecute", {"k", "Exists", "", "", {}}, {"k", "", "NoExecute"}, true},
      {"empty effect matches PreferNoSchedule", {"k", "Exists", "", "", {}}, {"k", "", "PreferNoSchedule"}, true},
      {"effect must equal", {"k", "Exists", "", "NoSchedule", {}}, {"k", "", "NoExecute"}, false},
      {"NoExecute toleration vs NoSchedule taint", {"k", "Equal", "v", "NoExecute", {300}}, {"k", "v", "NoSchedule"}, false},
      {"empty key + Exists matches every taint", {"", "Exists", "", "", {}}, {"nvidia.com/gpu", "true", "NoSchedule"}, true},
      {"empty key + Exists + effect limits effect", {"", "Exists", "", "NoExecute", {}}, {"x", "", "NoSchedule"}, false},
      {"empty key needs Exists (Equal invalid)", {"", "Equal", "", "", {}}, {"x", "", "NoSchedule"}, false},
      {"empty key needs Exists (empty operator invalid)", {"", "", "", "", {}}, {"x", "", "NoSchedule"}, false},
      {"unknown operator matches nothing", {"k", "Gt", "1", "", {}}, {"k", "2", "NoSchedule"}, false},
  };
  for (const auto& c : cases) EXPECT_EQ(tolerates_taint(c.toleration, c.taint), c.tolerates) << c.what;
}

TEST(SchedulingTolerations, OnlyNoScheduleAndNoExecuteFilter) {
  std::vector<Taint> taints = {{"soft", "", "PreferNoSchedule"}, {"b", "1", "NoExecute"}, {"a", "", "NoSchedule"}};
  auto t = find_untolerated_taint(taints, {});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->key, "b");  // first in node order, PreferNoSchedule skipped
  std::vector<Toleration> tol = {{"b", "Exists", "", "", {}}};
  EXPECT_EQ(find_untolerated_taint(taints, tol)->key, "a");
  tol.push_back({"a", "Exists", "", "NoSchedule", {}});
  EXPECT_FALSE(find_untolerated_taint(taints, tol));
  EXPECT_EQ(count_untolerated_prefer_no_schedule(taints, tol), 1);
  tol.push_back({"soft", "Exists", "", "", {}});
  EXPECT_EQ(count_untolerated_prefer_no_schedule(taints, tol), 0);
}

struct ReqCase {
  const char* what;
  NodeSelectorRequirement req;
  bool matches;
};

TEST(SchedulingNodeAffinity, OperatorTable) {
  Labels labels = {{"zone", "a"}, {"gen", "5"}, {"neg", "-3"}, {"big", "+12"}, {"txt", "g5"}, {"dec", "1.5"}};
  const ReqCase cases[] = {
      {"In hit", {"zone", "In", {"b", "a"}}, true},
      {"In miss", {"zone", "In", {"b"}}, false},
      {"In absent key", {"nope", "In", {"a"}}, false},
      {"NotIn hit", {"zone", "NotIn", {"b"}}, true},
      {"NotIn miss", {"zone", "NotIn", {"a"}}, false},
      {"NotIn absent key matches", {"nope", "NotIn", {"a"}}, true},
      {"Exists", {"zone", "Exists", {}}, true},
      {"Exists absent", {"nope", "Exists", {}}, false},
      {"DoesNotExist absent", {"nope", "DoesNotExist", {}}, true},
      {"DoesNotExist present", {"zone", "DoesNotExist", {}}, false},
      {"Gt true", {"gen", "Gt", {"4"}}, true},
      {"Gt equal is false", {"gen", "Gt", {"5"}}, false},
      {"Lt true", {"gen", "Lt", {"6"}}, true},
      {"Lt false", {"gen", "Lt", {"5"}}, false},
      {"Gt negative label", {"neg", "Gt", {"-4"}}, true},
      {"Gt plus sign label", {"big", "Gt", {"11"}}, true},
      {"Gt non-integer label", {"txt", "Gt", {"1"}}, false},
      {"Lt decimal label is not an integer", {"dec", "Lt", {"2"}}, false},
      {"Gt non-integer value", {"gen", "Gt", {"4.5"}}, false},
      {"Gt hex value", {"gen", "Gt", {"0x1"}}, false},
      {"Gt two values", {"gen", "Gt", {"1", "2"}}, false},
      {"Gt no value", {"gen", "Gt", {}}, false},
      {"Gt absent label", {"nope", "Gt", {"1"}}, false},
      {"Lt absent label", {"nope", "Lt", {"1"}}, false},
      {"unknown operator", {"zone", "Equals", {"a"}}, false},
  };
  for (const auto& c : cases) EXPECT_EQ(node_requirement_matches(c.req, labels), c.matches) << c.what;
}

TEST(SchedulingNodeAffinity, ParseGoInt64) {
  EXPECT_EQ(parse_go_int64("0"), 0);
  EXPECT_EQ(parse_go_int64("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(parse_go_int64("9223372036854775807"), INT64_MAX);
  EXPECT_FALSE(parse_go_int64("9223372036854775808"));
  EXPECT_FALSE(parse_go_int64(""));
  EXPECT_FALSE(parse_go_int64("-"));
  EXPECT_FALSE(parse_go_int64(" 1"));
  EXPECT_FALSE(parse_go_int64("1e3"));
  EXPECT_EQ(parse_go_int64("007"), 7);
}

TEST(SchedulingNodeAffinity, TermsAndSelector) {
  Node n;
  n.meta.name = "node-1";
  n.meta.labels = {{"zone", "a"}, {"type", "g5"}};
  NodeSelectorTerm empty;
  EXPECT_FALSE(node_selector_term_matches(empty, n));  // empty term matches nothing
  NodeSelectorTerm by_name;
  by_name.match_fields = {{"metadata.name", "In", {"node-1"}}};
  EXPECT_TRUE(node_selector_term_matches(by_name, n));
  NodeSelectorTerm both;  // ANDed
  both.match_expressions = {{"zone", "In", {"a"}}, {"type", "In", {"p4d"}}};
  EXPECT_FALSE(node_selector_term_matches(both, n));
  std::vector<NodeSelectorTerm> ored = {both, by_name};
  EXPECT_TRUE(node_selector_terms_match(ored, n));
  EXPECT_FALSE(node_selector_terms_match(std::vector<NodeSelectorTerm>{}, n));

  PodSpec spec;
  spec.node_selector = {{"zone", "a"}};
  EXPECT_TRUE(pod_matches_node_selector_and_affinity(spec, n));
  spec.affinity.node_required = std::vector<NodeSelectorTerm>{};  // present but empty: nothing
  EXPECT_FALSE(pod_matches_node_selector_and_affinity(spec, n));
  spec.affinity.node_required = ored;
  EXPECT_TRUE(pod_matches_node_selector_and_affinity(spec, n));
  spec.node_selector["type"] = "p5";
  EXPECT_FALSE(pod_matches_node_selector_and_affinity(spec, n));
}

TEST(SchedulingLabelSelector, Matches) {
  LabelSelector s;
  EXPECT_TRUE(label_selector_matches(s, {}));
  s.match_labels = {{"app", "web"}};
  EXPECT_TRUE(label_selector_matches(s, {{"app", "web"}, {"x", "y"}}));
  EXPECT_FALSE(label_selector_matches(s, {{"app", "db"}}));
  s.match_expressions = {{"tier", "NotIn", {"cache"}}};
  EXPECT_TRUE(label_selector_matches(s, {{"app", "web"}}));
  EXPECT_FALSE(label_selector_matches(s, {{"app", "web"}, {"tier", "cache"}}));
}

}  // namespace
}  // namespace eksim::k8s
