// A CustomResourceDefinition in any shape is decoded or refused in the API server's words, never
// by an exception from yaml-cpp or the standard library (fuzz_manifest found both).
#include "sim/scenario/crd_manifest.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/yaml_documents.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {
namespace {

std::string error_of(const std::string& text) {
  try {
    decode_crd(Value(parse_yaml_document(text, "crd.yaml"), std::make_shared<const std::string>("crd.yaml")));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

const char* kHead = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n";

TEST(CrdManifest, SpecOfTheWrongShapeIsTheApiServersError) {
  const std::string named = std::string(kHead) + "metadata: {name: gpus.example.com}\n";
  EXPECT_EQ(error_of(named + "spec: 5\n"),
            "crd.yaml:1:1: error: The CustomResourceDefinition \"gpus.example.com\" is invalid: spec.group: Required value");
  EXPECT_EQ(error_of(std::string(kHead) + "metadata: [a]\nspec: {}\n"),
            "crd.yaml:1:1: error: The CustomResourceDefinition \"\" is invalid: metadata.name: Required value: name or "
            "generateName is required");
  EXPECT_NE(error_of(named + "spec: {group: example.com, names: 7, scope: Cluster}\n"), "no error");
  EXPECT_NE(error_of(named + "spec: {group: example.com, names: {plural: gpus, kind: Gpu}, scope: Cluster, "
                             "versions: [1, [2]]}\n"),
            "no error");
}

TEST(CrdManifest, ScalarsPastTheirRangeStayStrings) {
  YAML::Node n = parse_yaml_document("a: 1e999\nb: " + std::string(200000, '7') + "\nc: 2.5\nd: -3\ne: .5e1\n", "f");
  const auto j = yaml_to_json(n);
  EXPECT_EQ(j["a"], "1e999");
  EXPECT_TRUE(j["b"].is_string());
  EXPECT_EQ(j["c"], 2.5);
  EXPECT_EQ(j["d"], -3);
  EXPECT_EQ(j["e"], 5.0);
}

}  // namespace
}  // namespace eksim::scenario
