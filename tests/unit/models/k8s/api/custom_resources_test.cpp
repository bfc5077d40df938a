#include "models/k8s/api/custom_resources.hpp"

#include <gtest/gtest.h>

namespace eksim::k8s {
namespace {

CustomResourceDefinition widgets() {
  CustomResourceDefinition d;
  d.group = "example.com";
  d.kind = "Widget";
  d.plural = "widgets";
  d.singular = "widget";
  d.namespaced = true;
  d.versions = {{"v1beta1", false, false}, {"v1", true, true}};
  return d;
}

TEST(CustomResources, AKindIsServedInTheVersionsItsCrdServes) {
  CustomResources r;
  EXPECT_FALSE(r.serves("example.com/v1", "Widget"));
  r.put_crd(widgets());
  EXPECT_TRUE(r.serves("example.com/v1", "Widget"));
  EXPECT_FALSE(r.serves("example.com/v1beta1", "Widget"));  // defined, not served
  EXPECT_FALSE(r.serves("example.com/v1", "Gadget"));
  ASSERT_NE(r.find_crd("widgets.example.com"), nullptr);
}

TEST(CustomResources, DeletingACrdDeletesItsObjectsOnly) {
  CustomResources r;
  r.put_crd(widgets());
  r.put_object({"example.com", "v1", "Widget", "default", "a", "{}", engine::SimTime{}, 1});
  r.put_object({"", "v1", "ServiceAccount", "default", "a", "{}", engine::SimTime{}, 1});
  EXPECT_TRUE(r.delete_crd("widgets.example.com"));
  EXPECT_EQ(r.find_object("example.com", "Widget", "default", "a"), nullptr);
  EXPECT_NE(r.find_object("", "ServiceAccount", "default", "a"), nullptr);
  EXPECT_FALSE(r.delete_crd("widgets.example.com"));
}

TEST(CustomResources, AReplacedObjectKeepsItsCreationAndCountsGenerations) {
  CustomResources r;
  r.put_object({"", "v1", "Secret", "ns", "s", R"({"a":1})", engine::SimTime{5}, 1});
  r.put_object({"", "v1", "Secret", "ns", "s", R"({"a":1})", engine::SimTime{9}, 1});
  EXPECT_EQ(r.find_object("", "Secret", "ns", "s")->generation, 1);
  r.put_object({"", "v1", "Secret", "ns", "s", R"({"a":2})", engine::SimTime{9}, 1});
  const RawObject* o = r.find_object("", "Secret", "ns", "s");
  EXPECT_EQ(o->generation, 2);
  EXPECT_EQ(o->created, engine::SimTime{5});
  r.delete_namespace("ns");
  EXPECT_TRUE(r.objects().empty());
}

}  // namespace
}  // namespace eksim::k8s
