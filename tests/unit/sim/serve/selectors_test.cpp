#include "sim/serve/selectors.hpp"

#include <gtest/gtest.h>

namespace eksim::serve {
namespace {

using nlohmann::json;

json pod(json labels) { return {{"metadata", {{"name", "p"}, {"namespace", "default"}, {"labels", labels}}}, {"spec", {{"nodeName", "n1"}}}, {"status", {{"phase", "Running"}}}}; }

TEST(Selectors, LabelSelectorOperators) {
  json p = pod({{"app", "cuda"}, {"tier", "gpu"}});
  EXPECT_TRUE(matches_labels(parse_label_selector("app=cuda"), p));
  EXPECT_TRUE(matches_labels(parse_label_selector("app==cuda,tier"), p));
  EXPECT_FALSE(matches_labels(parse_label_selector("app!=cuda"), p));
  EXPECT_TRUE(matches_labels(parse_label_selector("tier in (gpu, cpu)"), p));
  EXPECT_FALSE(matches_labels(parse_label_selector("tier notin (gpu)"), p));
  EXPECT_TRUE(matches_labels(parse_label_selector("!missing"), p));
  EXPECT_FALSE(matches_labels(parse_label_selector("missing"), p));
  // != and notin select objects without the label, as upstream.
  EXPECT_TRUE(matches_labels(parse_label_selector("missing!=x,missing notin (a)"), p));
  EXPECT_TRUE(parse_label_selector("").empty());
  EXPECT_THROW(parse_label_selector("a=b,,c"), std::invalid_argument);
}

TEST(Selectors, LabelSelectorIsTheModelsLabelSelector) {
  // A query's selector becomes the LabelSelector the controllers match with: one matcher.
  k8s::LabelSelector s = as_label_selector(parse_label_selector("app=cuda,tier!=cpu,gpu,!spot,zone in (a, b)"));
  ASSERT_EQ(s.match_expressions.size(), 5u);
  EXPECT_EQ(s.match_expressions[0], (k8s::LabelSelectorRequirement{"app", "In", {"cuda"}}));
  EXPECT_EQ(s.match_expressions[1], (k8s::LabelSelectorRequirement{"tier", "NotIn", {"cpu"}}));
  EXPECT_EQ(s.match_expressions[2], (k8s::LabelSelectorRequirement{"gpu", "Exists", {}}));
  EXPECT_EQ(s.match_expressions[3], (k8s::LabelSelectorRequirement{"spot", "DoesNotExist", {}}));
  EXPECT_EQ(s.match_expressions[4], (k8s::LabelSelectorRequirement{"zone", "In", {"a", "b"}}));
}

TEST(Selectors, FieldSelectorsDescribeSends) {
  json ev = {{"metadata", {{"name", "e"}, {"namespace", "default"}}},
             {"involvedObject", {{"kind", "Node"}, {"name", "n1"}, {"uid", "n1"}}}};
  // describe node: involvedObject.namespace= matches an event whose involvedObject has none.
  Selector s = parse_field_selector("involvedObject.kind=Node,involvedObject.uid=n1,involvedObject.name=n1,involvedObject.namespace=");
  EXPECT_NO_THROW(check_field_selector(s, "Event"));
  EXPECT_TRUE(matches_fields(s, ev));
  json p = pod(json::object());
  Selector running = parse_field_selector("spec.nodeName=n1,status.phase!=Succeeded,status.phase!=Failed");
  EXPECT_TRUE(matches_fields(running, p));
  p["status"]["phase"] = "Succeeded";
  EXPECT_FALSE(matches_fields(running, p));
  EXPECT_TRUE(matches_fields(parse_field_selector("metadata.name=p"), p));
}

TEST(Selectors, UnsupportedFieldIsTheApiserversError) {
  try {
    check_field_selector(parse_field_selector("spec.containers=x"), "Pod");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "field label not supported: spec.containers");
  }
  EXPECT_THROW(parse_field_selector("nonsense"), std::invalid_argument);
}

}  // namespace
}  // namespace eksim::serve
