#include "sim/serve/merge_patch.hpp"

#include <gtest/gtest.h>

namespace eksim::serve {
namespace {

using nlohmann::json;

TEST(MergePatch, ClientSideApplyBodyMergesContainersAndEnvByName) {
  // The body kubectl apply sent for a changed Deployment (research/kubectl-api.md section 6).
  json live = json::parse(R"({"metadata":{"name":"triton","labels":{"app":"t"}},
    "spec":{"replicas":1,"template":{"spec":{"containers":[
      {"name":"triton","image":"tritonserver:24.09","env":[{"name":"MODEL","value":"resnet"},{"name":"LOG","value":"1"}]},
      {"name":"sidecar","image":"busybox"}]}}}})");
  json patch = json::parse(R"({"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},
    "spec":{"replicas":2,"template":{"spec":{"$setElementOrder/containers":[{"name":"sidecar"},{"name":"triton"}],
      "containers":[{"$setElementOrder/env":[{"name":"MODEL"},{"name":"LOG"}],"env":[{"name":"MODEL","value":"bert"}],"name":"triton"}]}}}})");
  json out = strategic_merge_patch(live, patch);
  EXPECT_EQ(out["spec"]["replicas"], 2);
  EXPECT_EQ(out["metadata"]["labels"]["app"], "t");
  EXPECT_EQ(out["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"], "{}");
  const json& containers = out["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0]["name"], "sidecar");  // $setElementOrder
  EXPECT_EQ(containers[1]["image"], "tritonserver:24.09");
  EXPECT_EQ(containers[1]["env"], json::parse(R"([{"name":"MODEL","value":"bert"},{"name":"LOG","value":"1"}])"));
  EXPECT_FALSE(containers[1].contains("$setElementOrder/env"));
}

TEST(MergePatch, ServicePortsMergeByPortContainerPortsByContainerPort) {
  // kubectl apply of a Service whose port changed 80 -> 81 (what kubectl 1.32 sent).
  json live = json::parse(R"({"spec":{"type":"NodePort","ports":[{"port":80,"targetPort":8080,"nodePort":30247,"protocol":"TCP"}]}})");
  json patch = json::parse(R"({"spec":{"$setElementOrder/ports":[{"port":81}],
    "ports":[{"port":81,"targetPort":8080},{"$patch":"delete","port":80}]}})");
  json out = strategic_merge_patch(live, patch);
  EXPECT_EQ(out["spec"]["ports"], json::parse(R"([{"port":81,"targetPort":8080}])"));
  // A container's ports still merge by containerPort.
  json pod = json::parse(R"({"spec":{"containers":[{"name":"c","ports":[{"containerPort":80,"protocol":"TCP"}]}]}})");
  json add = json::parse(R"({"spec":{"containers":[{"name":"c","ports":[{"containerPort":443}]}]}})");
  EXPECT_EQ(strategic_merge_patch(pod, add)["spec"]["containers"][0]["ports"].size(), 2u);
}

TEST(MergePatch, DirectivesDeleteReplaceAndNull) {
  json live = json::parse(R"({"spec":{"taints":[{"key":"a","effect":"NoSchedule"},{"key":"b","effect":"NoExecute"}],
    "unschedulable":true,"finalizers":["x","y"]}})");
  // kubectl taint node n a- ; kubectl uncordon
  json out = strategic_merge_patch(live, json::parse(R"({"spec":{"taints":[{"key":"a","$patch":"delete"}],"unschedulable":null}})"));
  EXPECT_EQ(out["spec"]["taints"], json::parse(R"([{"key":"b","effect":"NoExecute"}])"));
  EXPECT_FALSE(out["spec"].contains("unschedulable"));
  out = strategic_merge_patch(live, json::parse(R"({"spec":{"$patch":"replace","x":1}})"));
  EXPECT_EQ(out["spec"], json::parse(R"({"x":1})"));
  out = strategic_merge_patch(live, json::parse(R"({"spec":{"$deleteFromPrimitiveList/finalizers":["x"]}})"));
  EXPECT_EQ(out["spec"]["finalizers"], json::parse(R"(["y"])"));
  // A list without a merge key is replaced whole (tolerations are atomic).
  json pod = json::parse(R"({"spec":{"tolerations":[{"key":"a"},{"key":"b"}]}})");
  EXPECT_EQ(strategic_merge_patch(pod, json::parse(R"({"spec":{"tolerations":[{"key":"c"}]}})"))["spec"]["tolerations"].size(), 1u);
  EXPECT_THROW(strategic_merge_patch(live, json::parse(R"({"spec":{"$patch":"explode"}})")), std::invalid_argument);
}

TEST(MergePatch, JsonMergePatchIsRfc7386) {
  json live = json::parse(R"({"metadata":{"labels":{"a":"1","b":"2"}},"spec":{"replicas":1}})");
  json out = json_merge_patch(live, json::parse(R"({"metadata":{"labels":{"a":null,"c":"3"}},"spec":{"replicas":3}})"));
  EXPECT_EQ(out["metadata"]["labels"], json::parse(R"({"b":"2","c":"3"})"));
  EXPECT_EQ(out["spec"]["replicas"], 3);
}

}  // namespace
}  // namespace eksim::serve
