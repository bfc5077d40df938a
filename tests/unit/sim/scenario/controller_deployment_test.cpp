// Karpenter recognised in a Deployment by its image, its settings decoded from the env at load,
// and the located errors for values it cannot use.
#include "sim/scenario/controller_deployment.hpp"

#include <gtest/gtest.h>

#include "sim/scenario/k8s_manifest.hpp"

namespace eksim::scenario {
namespace {

std::vector<Manifest> parse_deployment_yaml(const std::string& yaml) {
  return parse_manifest_object(Value(YAML::Load(yaml), std::make_shared<const std::string>("karpenter.yaml")));
}

// The controller Deployment as `helm template karpenter ... --version 1.8.3` renders it, cut to
// what matters here (lab 002's install).
std::string karpenter_deployment(const std::string& env) {
  return R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: karpenter, namespace: karpenter}
spec:
  replicas: 2
  selector: {matchLabels: {app.kubernetes.io/name: karpenter}}
  template:
    metadata: {labels: {app.kubernetes.io/name: karpenter}}
    spec:
      containers:
      - name: controller
        image: public.ecr.aws/karpenter/controller:1.8.3@sha256:0a1b2c
        env:
        - name: SYSTEM_NAMESPACE
          valueFrom: {fieldRef: {fieldPath: metadata.namespace}}
)" + env;
}

TEST(ControllerDeployment, ImageRepositoryAndTag) {
  EXPECT_EQ(image_repository("public.ecr.aws/karpenter/controller:1.8.3@sha256:ab"), "public.ecr.aws/karpenter/controller");
  EXPECT_EQ(image_tag("public.ecr.aws/karpenter/controller:1.8.3@sha256:ab"), "1.8.3");
  EXPECT_EQ(image_repository("localhost:5000/karpenter/controller"), "localhost:5000/karpenter/controller");
  EXPECT_EQ(image_tag("localhost:5000/karpenter/controller"), "");
}

TEST(ControllerDeployment, SettingsFromTheControllerEnv) {
  auto ms = parse_deployment_yaml(karpenter_deployment(R"(        - {name: CLUSTER_NAME, value: training-on-eks}
        - {name: INTERRUPTION_QUEUE, value: training-on-eks}
        - {name: BATCH_MAX_DURATION, value: 30s}
        - {name: BATCH_IDLE_DURATION, value: 2s}
        - {name: FEATURE_GATES, value: "ReservedCapacity=true,SpotToSpotConsolidation=true,NodeRepair=false"}
        - {name: LOG_LEVEL, value: debug}
        - {name: AWS_REGION, value: ap-northeast-2}
)"));
  ASSERT_EQ(ms.size(), 1u);
  ASSERT_TRUE(ms[0].karpenter.has_value());
  const auto& s = *ms[0].karpenter;
  EXPECT_EQ(s.version, "1.8.3");
  EXPECT_EQ(s.cluster_name, "training-on-eks");
  EXPECT_EQ(s.interruption_queue, "training-on-eks");
  EXPECT_EQ(s.batch_max, engine::Duration::seconds(30));
  EXPECT_EQ(s.batch_idle, engine::Duration::seconds(2));
  EXPECT_TRUE(s.spot_to_spot_consolidation);
  EXPECT_EQ(s.log_level, "debug");
  EXPECT_TRUE(s.leader_elect);
}

TEST(ControllerDeployment, OtherImagesAreNotKarpenter) {
  auto ms = parse_deployment_yaml(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "example.com/karpenter/controller-proxy:1.0"}]
)");
  EXPECT_FALSE(ms[0].karpenter.has_value());
}

struct EnvFailure {
  std::string message;
  int line = 0;
};
EnvFailure env_failure_of(const std::string& env) {
  try {
    parse_deployment_yaml(karpenter_deployment(env));
  } catch (const InputError& e) {
    return {e.message(), e.where().line};
  }
  return {"<no error>", 0};
}

TEST(ControllerDeployment, ValuesKarpenterCannotUseAreLocatedErrors) {
  // Line 16 is the first env entry after SYSTEM_NAMESPACE's two lines.
  EnvFailure f = env_failure_of("        - {name: BATCH_MAX_DURATION, value: ten}\n");
  EXPECT_EQ(f.line, 16);
  EXPECT_NE(f.message.find("BATCH_MAX_DURATION: expected a positive Go duration such as \"10s\", got \"ten\""), std::string::npos)
      << f.message;
  f = env_failure_of("        - {name: CLUSTER_NAME, value: \"\"}\n");
  EXPECT_NE(f.message.find("missing field, cluster-name"), std::string::npos) << f.message;
  f = env_failure_of("        - {name: FEATURE_GATES, value: \"SpotToSpotConsolidaton=true\"}\n");
  EXPECT_NE(f.message.find("did you mean \"SpotToSpotConsolidation\"?"), std::string::npos) << f.message;
  f = env_failure_of("        - {name: FEATURE_GATES, value: \"NodeRepair\"}\n");
  EXPECT_NE(f.message.find("FEATURE_GATES: missing bool value for NodeRepair"), std::string::npos) << f.message;
  f = env_failure_of("        - {name: LOG_LEVEL, value: verbose}\n");
  EXPECT_NE(f.message.find("LOG_LEVEL: expected one of debug, info, error"), std::string::npos) << f.message;
  f = env_failure_of("        - {name: BATCH_MAX_DURATON, value: 10s}\n");
  EXPECT_NE(f.message.find("did you mean \"BATCH_MAX_DURATION\"?"), std::string::npos) << f.message;
}

// The autodiscover manifest's command: CA's flags through the same table as the shorthand.
std::string cas_deployment(const std::string& extra) {
  return R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: cluster-autoscaler, namespace: kube-system}
spec:
  selector: {matchLabels: {app: cluster-autoscaler}}
  template:
    metadata: {labels: {app: cluster-autoscaler}}
    spec:
      containers:
      - name: cluster-autoscaler
        image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.35.0
        command:
        - ./cluster-autoscaler
        - --v=4
        - --cloud-provider=aws
        - --expander=least-waste
        - --node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/myeks
)" + extra;
}

TEST(ControllerDeployment, ClusterAutoscalerFlagsFromTheCommand) {
  auto ms = parse_deployment_yaml(cas_deployment("        - --scale-down-unneeded-time=5m\n"));
  ASSERT_TRUE(ms[0].cluster_autoscaler.has_value());
  const autoscaling::CasOptions& o = *ms[0].cluster_autoscaler;
  EXPECT_EQ(o.expander, (std::vector<autoscaling::cas::Expander>{autoscaling::cas::Expander::LeastWaste}));
  EXPECT_EQ(o.scale_down_unneeded_time, engine::Duration::minutes(5));
  ASSERT_EQ(o.node_group_auto_discovery.size(), 1u);  // --v (logging): accepted, not modelled
  ASSERT_EQ(o.node_group_auto_discovery[0].tags.size(), 2u);
  EXPECT_EQ(o.node_group_auto_discovery[0].tags[1].first, "k8s.io/cluster-autoscaler/myeks");
  try {
    parse_deployment_yaml(cas_deployment("        - --scan-intervall=10s\n"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 18);
    EXPECT_NE(e.message().find("unknown flag: --scan-intervall"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("did you mean \"--scan-interval\"?"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace eksim::scenario
