#include "sim/scenario/k8s_manifest.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace eksim::scenario {
namespace {

Value load(const std::string& yaml, const std::string& file = "test.yaml") {
  return Value(YAML::Load(yaml), std::make_shared<const std::string>(file));
}

std::vector<Manifest> parse(const std::string& yaml) { return parse_manifest_object(load(yaml)); }

struct Failure {
  std::string message;
  int line = 0;
};

Failure failure_of(const std::string& yaml) {
  try {
    parse(yaml);
  } catch (const InputError& e) {
    return {e.message(), e.where().line};
  }
  return {"<no error>", 0};
}

const char* kGpuPod = R"(
apiVersion: v1
kind: Pod
metadata:
  name: gpu-pod
  labels: {app: train}
  annotations: {eksim.io/duration: 5m, eksim.io/exit-code: "1"}
spec:
  restartPolicy: Never
  priorityClassName: high
  priority: 1000
  hostNetwork: true
  nodeSelector: {nvidia.com/gpu.present: "true"}
  containers:
  - name: cuda
    image: nvidia/cuda:12.4.1-base-ubuntu22.04
    command: [sh, -c, "nvidia-smi && sleep 300"]
    args: ["--x"]
    resources:
      requests: {cpu: 500m, memory: 1Gi}
      limits: {nvidia.com/gpu: 1, memory: 2Gi}
    ports: [{containerPort: 8080}]
  initContainers:
  - name: init
    image: busybox
    resources: {limits: {cpu: "2"}}
  tolerations:
  - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
  - {key: spot, value: "true", effect: NoExecute, tolerationSeconds: 30}
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge, g4dn.xlarge]}]
          matchFields: [{key: metadata.name, operator: In, values: [ip-10-0-0-1.ec2.internal]}]
      preferredDuringSchedulingIgnoredDuringExecution:
      - {weight: 50, preference: {matchExpressions: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]}}
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - {labelSelector: {matchLabels: {app: train}}, topologyKey: kubernetes.io/hostname}
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 10
        podAffinityTerm: {labelSelector: {matchExpressions: [{key: app, operator: Exists}]}, topologyKey: topology.kubernetes.io/zone, namespaces: [ml]}
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: train}}}
)";

TEST(K8sManifestTest, PodFieldsAreModelled) {
  auto ms = parse(kGpuPod);
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_EQ(ms[0].kind, "Pod");
  EXPECT_EQ(ms[0].api_version, "v1");
  EXPECT_EQ(ms[0].where.line, 2);
  const auto& pod = std::get<k8s::Pod>(ms[0].object);
  EXPECT_EQ(pod.meta.name, "gpu-pod");
  EXPECT_EQ(pod.meta.ns, "default");
  EXPECT_EQ(pod.meta.labels.at("app"), "train");
  EXPECT_EQ(pod.meta.annotations.at("eksim.io/duration"), "5m");
  EXPECT_EQ(pod.meta.annotations.at("eksim.io/exit-code"), "1");
  // eksim's annotations are decoded with the manifest: the kubelet reads numbers.
  EXPECT_EQ(pod.run.duration, engine::Duration::minutes(5));
  EXPECT_EQ(pod.run.exit_code, 1);
  const auto& s = pod.spec;
  EXPECT_EQ(s.restart_policy, "Never");
  EXPECT_EQ(s.priority_class_name, "high");
  EXPECT_EQ(s.priority, 1000);
  EXPECT_EQ(s.scheduler_name, "default-scheduler");
  EXPECT_EQ(s.termination_grace_period_seconds, 30);
  EXPECT_EQ(s.node_selector.at("nvidia.com/gpu.present"), "true");
  ASSERT_EQ(s.containers.size(), 1u);
  const auto& c = s.containers[0];
  EXPECT_EQ(c.command, (std::vector<std::string>{"sh", "-c", "nvidia-smi && sleep 300"}));
  EXPECT_EQ(c.args, (std::vector<std::string>{"--x"}));
  EXPECT_EQ(c.requests.get("cpu"), 500);
  EXPECT_EQ(c.requests.get("memory"), 1073741824);         // the request written wins over the limit
  EXPECT_EQ(c.requests.get("nvidia.com/gpu"), 1);          // defaulted from the limit
  EXPECT_EQ(c.limits.get("memory"), 2147483648);
  EXPECT_FALSE(c.limits.has("cpu"));
  ASSERT_EQ(c.ports.size(), 1u);
  EXPECT_EQ(c.ports[0].host_port, 8080);  // hostNetwork defaults hostPort to containerPort
  EXPECT_EQ(c.ports[0].protocol, "TCP");
  EXPECT_EQ(s.init_containers.at(0).requests.get("cpu"), 2000);
  EXPECT_EQ(k8s::pod_requests(s).get("cpu"), 2000);
  ASSERT_EQ(s.tolerations.size(), 2u);
  EXPECT_EQ(s.tolerations[0].op, "Exists");
  EXPECT_EQ(s.tolerations[1].op, "");
  EXPECT_EQ(s.tolerations[1].toleration_seconds, 30);
  ASSERT_TRUE(s.affinity.node_required.has_value());
  EXPECT_EQ(s.affinity.node_required->at(0).match_expressions.at(0).values.size(), 2u);
  EXPECT_EQ(s.affinity.node_required->at(0).match_fields.at(0).key, "metadata.name");
  EXPECT_EQ(s.affinity.node_preferred.at(0).weight, 50);
  EXPECT_EQ(s.affinity.pod_anti_affinity_required.at(0).topology_key, "kubernetes.io/hostname");
  EXPECT_EQ(s.affinity.pod_anti_affinity_preferred.at(0).term.namespaces, (std::vector<std::string>{"ml"}));
  EXPECT_EQ(s.topology_spread_constraints.at(0).when_unsatisfiable, "ScheduleAnyway");
}

TEST(K8sManifestTest, UnmodelledStandardFieldsAreAccepted) {
  auto ms = parse(R"(
apiVersion: v1
kind: Pod
metadata: {name: p, creationTimestamp: null, finalizers: [x]}
spec:
  serviceAccountName: sa
  securityContext: {runAsUser: 1000}
  volumes: [{name: v, emptyDir: {}}]
  dnsPolicy: ClusterFirst
  containers:
  - name: c
    image: busybox
    imagePullPolicy: IfNotPresent
    env: [{name: A, value: b}]
    volumeMounts: [{name: v, mountPath: /v}]
    livenessProbe: {exec: {command: ["true"]}}
    securityContext: {privileged: true}
status: {}
)");
  EXPECT_EQ(std::get<k8s::Pod>(ms.at(0).object).spec.restart_policy, "Always");
}

struct ErrorCase {
  const char* name;
  std::string yaml;
  std::string message;
  int line;
};

std::string pod_with(const std::string& spec_tail, const std::string& container_tail = "") {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: busybox\n" +
         container_tail + spec_tail;
}

class K8sManifestErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(K8sManifestErrorTest, MatchesTheApiServer) {
  Failure f = failure_of(GetParam().yaml);
  EXPECT_EQ(f.message, GetParam().message);
  EXPECT_EQ(f.line, GetParam().line);
}

const std::string kDeploy =
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n"
    "  template:\n    metadata: {labels: {app: api}}\n    spec:\n      containers: [{name: c, image: nginx}]\n";

INSTANTIATE_TEST_SUITE_P(
    Table, K8sManifestErrorTest,
    ::testing::Values(
        ErrorCase{"UnknownField", pod_with("", "    imagee: x\n"),
                  "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field "
                  "\"spec.containers[0].imagee\"; did you mean \"image\"?",
                  8},
        ErrorCase{"ExistsWithValue", pod_with("  tolerations: [{key: k, operator: Exists, value: \"true\"}]\n"),
                  "The Pod \"p\" is invalid: spec.tolerations[0].operator: Invalid value: \"true\": value must be "
                  "empty when `operator` is 'Exists'",
                  8},
        ErrorCase{"BadEffect", pod_with("  tolerations: [{key: k, operator: Exists, effect: NoSchedul}]\n"),
                  "The Pod \"p\" is invalid: spec.tolerations[0].effect: Unsupported value: \"NoSchedul\": supported "
                  "values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                  8},
        ErrorCase{"EmptyKeyEqual", pod_with("  tolerations: [{operator: Equal, value: x}]\n"),
                  "The Pod \"p\" is invalid: spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be "
                  "Exists when `key` is empty, which means \"match all values and all keys\"",
                  8},
        ErrorCase{"SecondsWithoutNoExecute", pod_with("  tolerations: [{key: k, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}]\n"),
                  "The Pod \"p\" is invalid: spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must "
                  "be 'NoExecute' when `tolerationSeconds` is set",
                  8},
        ErrorCase{"UppercaseName", "apiVersion: v1\nkind: Pod\nmetadata: {name: GPU_pod}\nspec: {containers: [{name: c, image: x}]}\n",
                  "The Pod \"GPU_pod\" is invalid: metadata.name: Invalid value: \"GPU_pod\": a lowercase RFC 1123 "
                  "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end "
                  "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
                  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                  3},
        ErrorCase{"ContainerName", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: my.c, image: x}]}\n",
                  "The Pod \"p\" is invalid: spec.containers[0].name: Invalid value: \"my.c\": a lowercase RFC 1123 "
                  "label must consist of lower case alphanumeric characters or '-', and must start and end with an "
                  "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
                  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                  4},
        ErrorCase{"WrongApiVersion", "apiVersion: apps/v1\nkind: Pod\nmetadata: {name: p}\n",
                  "no matches for kind \"Pod\" in version \"apps/v1\"", 2},
        ErrorCase{"UnknownKind", "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: p}\n",
                  "no matches for kind \"JobSet\" in version \"jobset.x-k8s.io/v1alpha2\"", 2},
        ErrorCase{"NoKind", "apiVersion: v1\nmetadata: {name: p}\n", "error validating data: kind not set", 1},
        ErrorCase{"SelectorMismatch", kDeploy,
                  "The Deployment \"web\" is invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"api\"}: "
                  "`selector` does not match template `labels`",
                  7},
        ErrorCase{"DeploymentNever",
                  "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n"
                  "  template:\n    metadata: {labels: {app: web}}\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: nginx}]\n",
                  "The Deployment \"web\" is invalid: spec.template.spec.restartPolicy: Unsupported value: \"Never\": "
                  "supported values: \"Always\"",
                  7},
        ErrorCase{"JobDefaultRestart",
                  "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: x}]\n",
                  "The Job \"j\" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "
                  "\"OnFailure\", \"Never\"",
                  6},
        ErrorCase{"QuantityRegex", pod_with("", "    resources: {limits: {memory: 2GB}}\n"),
                  "Pod in version \"v1\" cannot be handled as a Pod: quantities must match the regular expression "
                  "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
                  8},
        ErrorCase{"QuantitySuffix", pod_with("", "    resources: {limits: {memory: 512Gu}}\n"),
                  "Pod in version \"v1\" cannot be handled as a Pod: unable to parse quantity's suffix", 8},
        ErrorCase{"GpuRequestOnly", pod_with("", "    resources: {requests: {nvidia.com/gpu: 1}}\n"),
                  "The Pod \"p\" is invalid: spec.containers[0].resources.limits: Required value: Limit must be set "
                  "for non overcommitable resources",
                  8},
        ErrorCase{"GpuRequestNotLimit", pod_with("", "    resources: {requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 2}}\n"),
                  "The Pod \"p\" is invalid: spec.containers[0].resources.requests: Invalid value: \"1\": must be "
                  "equal to nvidia.com/gpu limit of 2",
                  8},
        ErrorCase{"HalfGpu", pod_with("", "    resources: {limits: {nvidia.com/gpu: 500m}}\n"),
                  "The Pod \"p\" is invalid: spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: "
                  "\"500m\": must be an integer",
                  8},
        ErrorCase{"CpuOverLimit", pod_with("", "    resources: {requests: {cpu: \"2\"}, limits: {cpu: \"1\"}}\n"),
                  "The Pod \"p\" is invalid: spec.containers[0].resources.requests: Invalid value: \"2\": must be less "
                  "than or equal to cpu limit of 1",
                  8},
        ErrorCase{"BareGpuName", pod_with("", "    resources: {limits: {gpu: 1}}\n"),
                  "The Pod \"p\" is invalid: spec.containers[0].resources.limits[gpu]: Invalid value: \"gpu\": must be "
                  "a standard resource for containers",
                  8},
        ErrorCase{"UnquotedBoolLabel", pod_with("  nodeSelector: {nvidia.com/gpu.present: true}\n"),
                  "Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal bool into Go struct field "
                  "PodSpec.spec.nodeSelector of type string",
                  8},
        ErrorCase{"NumberInCommand", pod_with("", "    command: [sleep, 300]\n"),
                  "Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal number into Go struct "
                  "field Container.spec.containers.command of type string",
                  8},
        ErrorCase{"StringReplicas",
                  "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: \"3\"\n",
                  "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal string into "
                  "Go struct field DeploymentSpec.spec.replicas of type int32",
                  5},
        ErrorCase{"BadRestartPolicy", pod_with("  restartPolicy: always\n"),
                  "The Pod \"p\" is invalid: spec.restartPolicy: Unsupported value: \"always\": supported values: "
                  "\"Always\", \"OnFailure\", \"Never\"",
                  8},
        ErrorCase{"DuplicateContainer", pod_with("  - {name: c, image: nginx}\n"),
                  "The Pod \"p\" is invalid: spec.containers[1].name: Duplicate value: \"c\"", 8},
        ErrorCase{"NoImage", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n",
                  "The Pod \"p\" is invalid: spec.containers[0].image: Required value", 4},
        ErrorCase{"NoContainers", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {}\n",
                  "The Pod \"p\" is invalid: spec.containers: Required value", 4},
        ErrorCase{"GenerateName", "apiVersion: v1\nkind: Pod\nmetadata: {generateName: p-}\nspec: {}\n",
                  "cannot use generate name with apply", 3},
        ErrorCase{"InOperatorNoValues",
                  pod_with("  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: a, operator: In}]}]}}}\n"),
                  "The Pod \"p\" is invalid: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                  "nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` "
                  "is 'In' or 'NotIn'",
                  8},
        ErrorCase{"BadWeight",
                  pod_with("  affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 0, preference: {}}]}}\n"),
                  "The Pod \"p\" is invalid: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
                  "[0].weight: Invalid value: 0: must be in the range 1-100",
                  8},
        ErrorCase{"BadNamespace", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ML}\nspec: {}\n",
                  "The Pod \"p\" is invalid: metadata.namespace: Invalid value: \"ML\": a lowercase RFC 1123 label must "
                  "consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric "
                  "character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                  3},
        // eksim's own annotations decode with the manifest: garbage is no longer a default.
        ErrorCase{"ExitCodeNotANumber",
                  "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations: {eksim.io/exit-code: boom}\n"
                  "spec: {containers: [{name: c, image: x}]}\n",
                  "The Pod \"p\" is invalid: metadata.annotations[eksim.io/exit-code]: Invalid value: \"boom\": must "
                  "be an integer from 0 to 255 (the container's exit status)",
                  5},
        ErrorCase{"TemplateDurationNegative",
                  "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n"
                  "  template:\n    metadata: {labels: {app: web}, annotations: {eksim.io/duration: -5m}}\n"
                  "    spec:\n      containers: [{name: c, image: nginx}]\n",
                  "The Deployment \"web\" is invalid: spec.template.metadata.annotations[eksim.io/duration]: Invalid "
                  "value: \"-5m\": must be a duration such as 90s, 15m or 1h30m, at most 8760h0m0s",
                  7},
        ErrorCase{"ImageSizeOverflow",
                  "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations: {eksim.io/image-size: \"99999999999999999999\"}\n"
                  "spec: {containers: [{name: c, image: x}]}\n",
                  "The Pod \"p\" is invalid: metadata.annotations[eksim.io/image-size]: Invalid value: "
                  "\"99999999999999999999\": must be a number of bytes from 1 to 1099511627776",
                  5}),
    [](const ::testing::TestParamInfo<ErrorCase>& info) { return std::string(info.param.name); });

TEST(K8sManifestTest, WorkloadsAreModelled) {
  auto ms = parse(R"(
apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: ml}
  spec:
    replicas: 3
    strategy: {type: RollingUpdate}
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web, tier: fe}, annotations: {eksim.io/duration: 1h}}
      spec: {containers: [{name: c, image: nginx}]}
- apiVersion: batch/v1
  kind: Job
  metadata: {name: allreduce}
  spec:
    parallelism: 4
    backoffLimit: 0
    completionMode: Indexed
    completions: 4
    template:
      spec:
        restartPolicy: Never
        containers: [{name: c, image: nccl, command: [all_reduce_perf]}]
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: nvidia-device-plugin, namespace: kube-system}
  spec:
    selector: {matchExpressions: [{key: name, operator: In, values: [dp]}]}
    template:
      metadata: {labels: {name: dp}}
      spec: {containers: [{name: c, image: nvcr.io/nvidia/k8s-device-plugin:v0.18.2}]}
- {apiVersion: v1, kind: Namespace, metadata: {name: ml}}
- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: gpu}
  spec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}}}
)");
  ASSERT_EQ(ms.size(), 5u);
  const auto& d = std::get<k8s::Deployment>(ms[0].object);
  EXPECT_EQ(d.meta.ns, "ml");
  EXPECT_EQ(d.replicas, 3);
  EXPECT_EQ(d.tmpl.meta.annotations.at("eksim.io/duration"), "1h");
  EXPECT_EQ(d.tmpl.run.duration, engine::Duration::hours(1));
  EXPECT_EQ(d.tmpl.meta.ns, "ml");
  const auto& j = std::get<k8s::Job>(ms[1].object);
  EXPECT_EQ(j.completions, 4);
  EXPECT_EQ(j.parallelism, 4);
  EXPECT_EQ(j.backoff_limit, 0);
  EXPECT_EQ(j.completion_mode, "Indexed");
  EXPECT_EQ(j.tmpl->meta.labels.at("job-name"), "allreduce");
  const auto& ds = std::get<k8s::DaemonSet>(ms[2].object);
  EXPECT_EQ(ds.selector.match_expressions.at(0).op, "In");
  EXPECT_EQ(std::get<NamespaceObject>(ms[3].object).meta.ns, "");
  EXPECT_EQ(ms[4].kind, "NodePool");
  // Decoded with the manifest, strictly: an unknown spec key is an error (karpenter_manifest_test).
  EXPECT_EQ(std::get<autoscaling::karpenter::NodePool>(ms[4].object).name, "gpu");
}

TEST(K8sManifestTest, JobDefaults) {
  auto ms = parse("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n"
                  "      restartPolicy: OnFailure\n      containers: [{name: c, image: x}]\n");
  const auto& j = std::get<k8s::Job>(ms.at(0).object);
  EXPECT_EQ(j.completions, 1);
  EXPECT_EQ(j.parallelism, 1);
  EXPECT_EQ(j.backoff_limit, 6);
  EXPECT_EQ(j.completion_mode, "NonIndexed");
}

class K8sManifestFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("eksim-manifest-test-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "manifests");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& rel, const std::string& text) { std::ofstream(dir_ / rel) << text; }
  std::string scenario() const { return (dir_ / "scenario.yaml").string(); }
  std::filesystem::path dir_;
};

TEST_F(K8sManifestFileTest, FilesHoldSeveralDocumentsAndLists) {
  write("manifests/a.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, image: x}]}\n---\n"
        "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: ml}}\n"
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {k: v}}\n");
  FileLoader loader;
  Value list = load("- file: manifests/a.yaml\n- {apiVersion: v1, kind: Namespace, metadata: {name: inline}}\n", scenario());
  auto ms = parse_manifests(list, loader);
  ASSERT_EQ(ms.size(), 4u);
  EXPECT_EQ(std::get<k8s::Pod>(ms[0].object).meta.name, "a");
  EXPECT_EQ(ms[0].where.file, (dir_ / "manifests/a.yaml").string());
  EXPECT_EQ(ms[1].kind, "Namespace");
  EXPECT_EQ(ms[1].where.line, 9);
  EXPECT_EQ(ms[2].kind, "ConfigMap");
  EXPECT_EQ(std::get<NamespaceObject>(ms[3].object).meta.name, "inline");
}

TEST_F(K8sManifestFileTest, TimelineFileValue) {
  write("manifests/a.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n");
  FileLoader loader;
  Value action = load("{at: 5m, action: kubectl.apply, file: manifests/a.yaml}", scenario());
  auto ms = load_manifest_file(Value(action.node()["file"], action.file_ptr()), loader);
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_EQ(ms[0].kind, "Namespace");
}

TEST_F(K8sManifestFileTest, ErrorsInIncludedFilesAreLocatedThere) {
  write("manifests/bad.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containerz: []\n");
  FileLoader loader;
  try {
    parse_manifests(load("- file: manifests/bad.yaml\n", scenario()), loader);
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, (dir_ / "manifests/bad.yaml").string());
    EXPECT_EQ(e.where().line, 5);
    EXPECT_EQ(e.message(),
              "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field "
              "\"spec.containerz\"; did you mean \"containers\"?");
  }
}

TEST_F(K8sManifestFileTest, MissingFileIsReportedAtTheEntry) {
  FileLoader loader;
  try {
    parse_manifests(load("- {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n- file: nope.yaml\n", scenario()), loader);
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, scenario());
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(e.message().find("nope.yaml"), std::string::npos) << e.message();
  }
}

TEST_F(K8sManifestFileTest, IncludeCycleIsAnError) {
  write("manifests/a.yaml", "file: b.yaml\n");
  write("manifests/b.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\nfile: a.yaml\n");
  FileLoader loader;
  try {
    parse_manifests(load("- file: manifests/a.yaml\n", scenario()), loader);
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, (dir_ / "manifests/b.yaml").string());
    EXPECT_EQ(e.where().line, 5);
    EXPECT_NE(e.message().find("include cycle"), std::string::npos) << e.message();
  }
  // The loader's stack is unwound after the error: loading again works the same way.
  write("manifests/a.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n");
  EXPECT_EQ(parse_manifests(load("- file: manifests/a.yaml\n", scenario()), loader).size(), 1u);
}

TEST(K8sManifestTest, FileEntryRejectsOtherKeys) {
  FileLoader loader;
  EXPECT_THROW(parse_manifests(load("- {file: a.yaml, fiel: b}\n"), loader), InputError);
}

TEST(K8sManifestTest, Yaml11BooleansAreNotStrings) {
  // kubectl reads YAML 1.1 (go-yaml v2): an unquoted y/yes/on is a bool, not a name.
  EXPECT_EQ(failure_of("apiVersion: v1\nkind: Namespace\nmetadata: {name: y}\n").message,
            "Namespace in version \"v1\" cannot be handled as a Namespace: json: cannot unmarshal bool into Go "
            "struct field ObjectMeta.metadata.name of type string");
}

TEST(K8sManifestTest, NameValidators) {
  EXPECT_TRUE(dns1123_subdomain_errors("ip-10-0-0-1.ec2.internal").empty());
  EXPECT_FALSE(dns1123_label_errors("a.b").empty());
  EXPECT_EQ(dns1123_label_errors(std::string(64, 'a')).at(0), "must be no more than 63 characters");
  EXPECT_TRUE(qualified_name_errors("nvidia.com/gpu.present").empty());
  EXPECT_EQ(qualified_name_errors("/x").at(0), "prefix part must be non-empty");
  EXPECT_TRUE(label_value_errors("").empty());
  EXPECT_FALSE(label_value_errors("a b").empty());
}

}  // namespace
}  // namespace eksim::scenario
