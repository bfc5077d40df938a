#include "sim/scenario/karpenter_manifest.hpp"

#include <gtest/gtest.h>

#include "sim/scenario/input_error.hpp"

namespace eksim::scenario {
namespace {

std::string validate(const std::string& yaml) {
  try {
    parse_manifest_object(Value(YAML::Load(yaml), std::make_shared<const std::string>("test.yaml")));
  } catch (const InputError& e) {
    return e.message();
  }
  return "";
}

std::string pool(const std::string& requirement_extra, const std::string& budgets) {
  return R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  disruption:
    budgets: )" + budgets + R"(
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [c5, m5, r5])" + requirement_extra + R"(}
)";
}

TEST(KarpenterManifest, MinValuesAndScheduledBudgetsAccepted) {
  EXPECT_EQ(validate(pool(", minValues: 2", R"([{nodes: "0", schedule: "0 9 * * mon-fri", duration: 8h}, {nodes: "10%"}])")), "");
}

TEST(KarpenterManifest, InvalidMinValuesAndBudgets) {
  EXPECT_EQ(validate(pool(", minValues: 0", "[{nodes: \"10%\"}]")),
            "The NodePool \"default\" is invalid: spec.template.spec.requirements[0].minValues: Invalid value: \"0\": "
            "spec.template.spec.requirements[0].minValues in body should be greater than or equal to 1");
  EXPECT_EQ(validate(pool("", R"([{nodes: "10%"}, {nodes: "0", schedule: "@daily"}])")),
            "The NodePool \"default\" is invalid: spec.disruption.budgets[1]: Invalid value: \"object\": 'schedule' must be set "
            "with 'duration'");
  EXPECT_EQ(validate(pool("", R"([{nodes: "0", schedule: "0 25 * * *", duration: 1h}])")),
            "The NodePool \"default\" is invalid: spec.disruption.budgets.schedule: Invalid value: \"0 25 * * *\": invalid "
            "cron schedule: invalid hour field: 25");
}

TEST(KarpenterManifest, RequirementBoundsAreIntegers) {
  // The CRD's CEL rule: int(values[0]) >= 0. "abc" used to be kept and match nothing.
  const std::string msg =
      "The NodePool \"default\" is invalid: spec.template.spec.requirements: Invalid value: \"array\": requirements "
      "operator 'Gt' or 'Lt' must have a single positive integer value";
  EXPECT_EQ(validate(pool("}\n        - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: [abc]", "[]")), msg);
  EXPECT_EQ(validate(pool("}\n        - {key: karpenter.k8s.aws/instance-cpu, operator: Lt, values: [\"-1\"]", "[]")), msg);
  EXPECT_EQ(validate(pool("}\n        - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: [\"5\"]", "[]")), "");
}

TEST(KarpenterManifest, ErrorsInTheApiServersVoice) {
  // As for Pods: an undeclared field is a strict decoding error with its full path.
  EXPECT_EQ(validate(pool(", minValue: 2", "[]")),
            "NodePool in version \"v1\" cannot be handled as a NodePool: strict decoding error: unknown field "
            "\"spec.template.spec.requirements[0].minValue\"; did you mean \"minValues\"?");
  EXPECT_EQ(validate("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  weigth: 5\n  template: {}\n"),
            "NodePool in version \"v1\" cannot be handled as a NodePool: strict decoding error: unknown field \"spec.weigth\"; "
            "did you mean \"weight\"?");
  EXPECT_EQ(validate("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  template: {spec: {}}\n"),
            "The NodePool \"a\" is invalid: spec.template.spec.nodeClassRef: Required value");
  EXPECT_EQ(validate("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  template: [x]\n"),
            "The NodePool \"a\" is invalid: spec.template: Invalid value: \"array\": spec.template in body must be of type "
            "object: \"array\"");
}

std::string node_class(const std::string& kubelet) {
  return R"(apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  kubelet: )" + kubelet + "\n";
}

TEST(KarpenterManifest, Ec2NodeClassKubelet) {
  EXPECT_EQ(validate(node_class("{maxPods: 20, podsPerCore: 4, kubeReserved: {cpu: 200m, pid: \"100\"}, systemReserved: "
                                "{memory: 500Mi}, evictionHard: {memory.available: 200Mi, nodefs.available: \"15%\", "
                                "imagefs.available: \"10%\"}}")),
            "");
  EXPECT_NE(validate(node_class("{kubeReserved: {nvidia.com/gpu: \"1\"}}")).find("kubeReserved key"), std::string::npos);
  EXPECT_NE(validate(node_class("{evictionHard: {memory.availabel: 100Mi}}")).find("memory.available"), std::string::npos);
  EXPECT_NE(validate(node_class("{evictionHard: {nodefs.available: \"150%\"}}")).find("0% to 100%"), std::string::npos);
}

}  // namespace
}  // namespace eksim::scenario
