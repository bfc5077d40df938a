// The scenario loader against small files: what it reads, and the located errors it gives.
#include "sim/scenario/scenario.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "models/autoscaling/cas/config/autoscaling_options.hpp"

namespace eksim::scenario {
namespace {

class LoaderTest : public ::testing::Test {
 protected:
  std::filesystem::path dir_ = std::filesystem::temp_directory_path() / ("eksim-loader-" + std::to_string(::getpid()));
  void SetUp() override { std::filesystem::create_directories(dir_); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    auto p = dir_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  std::string error_of(const std::string& path) {
    try {
      load_scenario(path);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  }
};

constexpr const char* kHeader = "apiVersion: eksim/v1\nkind: Scenario\nmetadata: {name: t}\n";

TEST_F(LoaderTest, ReadsTheContractExample) {
  std::string p = write("s.yaml", std::string(kHeader) + R"(seed: 42
duration: 2h
cluster:
  name: myeks
  region: ap-northeast-2
  kubernetesVersion: "1.33"
  vpc:
    cidr: 192.168.0.0/16
    subnets:
      - {id: private-a, az: ap-northeast-2a, cidr: 192.168.12.0/22}
  quotas:
    onDemand: {Standard: 64, G: 8, P: 0}
    spot: {G: 8}
  securityGroups:
    - name: node-sg
      ingress: [{protocol: tcp, fromPort: 1025, toPort: 65535, source: {group: node-sg}}]
      egress:  [{protocol: "-1", cidr: 0.0.0.0/0}]
  nodeGroups:
    gpu:
      instance_types: [g5.xlarge]
      ami_type: AL2023_x86_64_NVIDIA
      capacity_type: ON_DEMAND
      desired_size: 0
      min_size: 0
      max_size: 2
      subnet_ids: [private-a]
      labels: {tier: gpu, nvidia.com/gpu: "true"}
      taints: {gpu: {key: nvidia.com/gpu, value: "true", effect: NO_SCHEDULE}}
      tags: {k8s.io/cluster-autoscaler/node-template/label/nvidia.com/gpu: "true"}
      vpc_security_group_ids: [node-sg]
  addons:
    nvidiaDevicePlugin: {version: 0.18.2, values: {gfd: {enabled: true}}}
  autoscaler:
    clusterAutoscaler: {scanInterval: 10s, expander: least-waste}
timeline:
  - {at: 5m, action: eks.update-nodegroup-config, nodegroup: gpu, scalingConfig: {desiredSize: 2}}
expect:
  - {pod: default/gpu-pod, phase: Running, by: 15m}
)");
  Scenario s = load_scenario(p);
  EXPECT_EQ(s.seed, 42u);
  EXPECT_EQ(s.duration.us, engine::Duration::hours(2).us);
  EXPECT_EQ(s.cluster.kubernetes_minor, 33);
  ASSERT_EQ(s.cluster.node_groups.size(), 1u);
  const auto& ng = s.cluster.node_groups[0];
  EXPECT_EQ(ng.name, "gpu");
  EXPECT_EQ(ng.max_size, 2);
  EXPECT_EQ(ng.desired_size, 0);
  ASSERT_EQ(ng.taints.size(), 1u);
  EXPECT_EQ(ng.taints[0].effect, "NO_SCHEDULE");
  EXPECT_EQ(s.cluster.quotas.on_demand.at("G"), 8);
  EXPECT_EQ(s.cluster.quotas.spot.at("G"), 8);
  EXPECT_EQ(s.cluster.addons[0].values.at("gfd.enabled"), "true");
  EXPECT_EQ(s.cluster.autoscaler.kind, "clusterAutoscaler");
  ASSERT_TRUE(s.cluster.autoscaler.cluster_autoscaler);
  EXPECT_EQ(s.cluster.autoscaler.cluster_autoscaler->scan_interval, engine::Duration::seconds(10));
  ASSERT_EQ(s.timeline.size(), 1u);
  EXPECT_EQ(s.timeline[0].at.us, engine::Duration::minutes(5).us);
  EXPECT_EQ(*s.timeline[0].desired_size, 2);
  ASSERT_EQ(s.expectations.size(), 1u);
  EXPECT_EQ(s.expectations[0].by->us, engine::Duration::minutes(15).us);
}

TEST_F(LoaderTest, JsonScenarioReadsTheSame) {
  std::string p = write("s.json", R"({"apiVersion": "eksim/v1", "kind": "Scenario", "metadata": {"name": "j"},
 "cluster": {"region": "us-east-1", "nodeGroups": {"system": {"instance_types": ["t3.medium"], "desired_size": 2, "min_size": 2}}}})");
  Scenario s = load_scenario(p);
  EXPECT_EQ(s.name, "j");
  ASSERT_EQ(s.cluster.node_groups.size(), 1u);
  EXPECT_EQ(s.cluster.node_groups[0].desired_size, 2);
  EXPECT_EQ(s.cluster.subnets.size(), 3u);  // the default VPC: one private subnet per AZ
}

TEST_F(LoaderTest, ModuleSemanticsIgnoreUnknownNodeGroupKeys) {
  std::string p = write("s.yaml", std::string(kHeader) + R"(cluster:
  region: ap-northeast-2
  nodeGroupKeys: terraform-module
  nodeGroups:
    gpu: {instance_types: [g5.xlarge], subnets: [private-a]}
)");
  Scenario s = load_scenario(p);
  ASSERT_EQ(s.cluster.node_groups[0].ignored_keys.size(), 1u);
  EXPECT_EQ(s.cluster.node_groups[0].ignored_keys[0], "subnets");
  EXPECT_TRUE(s.cluster.node_groups[0].subnet_ids.empty());  // falls back to every cluster subnet
}

TEST_F(LoaderTest, LocatedErrors) {
  struct Case {
    const char* body;
    const char* expected;  // after "<path>:"
  };
  const Case cases[] = {
      {"cluster: {region: ap-northeast-2, kubernetesVersion: \"2.0\"}\n",
       "4:54: error: kubernetesVersion must look like \"1.35\", got \"2.0\""},
      {"cluster: {region: ap-northeast-2, mode: automatic}\n", "4:41: error: unknown mode \"automatic\" (one of: standard, auto)"},
      {"cluster: {region: ap-northeast-2}\nexpect: [{pods: default/x, phase: Running}]\n",
       "5:11: error: unknown key \"pods\" in expectation; did you mean \"pod\"?"},
      {"cluster: {region: ap-northeast-2, quotas: {onDemand: {GPU: 8}}}\n",
       "4:55: error: unknown quota bucket \"GPU\"; did you mean \"G\"?"},
      {"cluster:\n  region: ap-northeast-2\n  vpc: {subnets: [{id: a, az: us-east-1a}]}\n",
       "6:31: error: availability zone \"us-east-1a\" is not in region ap-northeast-2"},
      {"cluster:\n  region: ap-northeast-2\n  nodeGroups: {g: {instance_types: [g5.xlarge], min_size: 3, max_size: 2, desired_size: 3}}\n",
       "6:19: error: InvalidParameterException: desiredSize can't be greater than maxSize"},
      // disk_size is an EBS volume's GiB: whatever fits an int64 is not a size, and its bytes would wrap.
      {"cluster:\n  region: ap-northeast-2\n  nodeGroups: {g: {instance_types: [m5.large], disk_size: 9223372036854775807}}\n",
       "6:59: error: expected an EBS volume size in GiB from 1 to 16384, got 9223372036854775807"},
      {"cluster:\n  region: ap-northeast-2\n  nodeGroups: {g: {instance_types: [m5.large], disk_size: 0}}\n",
       "6:59: error: expected an EBS volume size in GiB from 1 to 16384, got 0"},
      {"cluster: {region: ap-northeast-2, startTime: \"99999999999-01-01T00:00:00Z\"}\n",
       "4:46: error: startTime must be an RFC 3339 time from 1970 to 9999 such as 2026-01-01T00:00:00Z, got \"99999999999-01-01T00:00:00Z\""},
      {"cluster: {region: ap-northeast-2, autoscaler: {clusterAutoscaler: {scanIntervall: 10s}}}\n",
       "4:68: error: unknown cluster-autoscaler flag \"scanIntervall\"; did you mean \"scan-interval\"?"},
      {"seed: -4\ncluster: {region: ap-northeast-2}\n", "4:7: error: expected a non-negative seed, got -4"},
      {"cluster: {region: ap-northeast-2}\ntimeline: [{at: 1m, action: sg.revoke-ingress, group: nodesg, rule: {protocol: tcp, fromPort: 1, toPort: 2, cidr: 10.0.0.0/8}}]\n",
       "5:55: error: unknown security group \"nodesg\""},
      {"cluster: {region: ap-northeast-2}\ntimeline: [{at: 1m, action: kubectl.delete, kind: Deploymnt, name: web}]\n",
       "5:51: error: unknown kind for kubectl.delete \"Deploymnt\"; did you mean \"Deployment\"?"},
  };
  for (const auto& c : cases) {
    std::string p = write("bad.yaml", std::string(kHeader) + c.body);
    EXPECT_EQ(error_of(p), p + ":" + c.expected) << c.body;
  }
}

// Issue 41 item 13: expectations on what the API shows, decoded once at load.
TEST_F(LoaderTest, ReadsStoredCountAgeConditionAtATimeAndLogExpectations) {
  std::string p = write("s.yaml", std::string(kHeader) + R"(duration: 10m
cluster: {region: ap-northeast-2}
expect:
  - {event: Created, object: Pod/default/gpu-pod, storedCount: 6, at: 9m}
  - {nodePool: gpu-pool, age: 8s, at: 5m8s}
  - {nodePool: gpu-pool, condition: Ready, status: "False", at: 5m5s}
  - {nodeClass: default, condition: Ready, status: "True", by: 6m}
  - {log: default/gpu-pod, container: cuda-container, previous: true, contains: "NVIDIA-SMI 570"}
)");
  Scenario s = load_scenario(p);
  ASSERT_EQ(s.expectations.size(), 5u);
  EXPECT_EQ(s.expectations[0].stored_count, 6);
  EXPECT_EQ(s.expectations[0].description, "event Created on Pod/default/gpu-pod stored with count 6 at 9m0s");
  EXPECT_EQ(s.expectations[1].age->us, engine::Duration::seconds(8).us);
  EXPECT_EQ(s.expectations[1].description, "nodePool gpu-pool age 8s at 5m8s");
  EXPECT_EQ(s.expectations[2].description, "nodePool gpu-pool Ready=False at 5m5s");
  EXPECT_EQ(s.expectations[3].by->us, engine::Duration::minutes(6).us);
  EXPECT_EQ(s.expectations[4].subject, "log");
  EXPECT_EQ(s.expectations[4].log_container, "cuda-container");
  EXPECT_TRUE(s.expectations[4].log_previous);
  EXPECT_EQ(s.expectations[4].message_contains, "NVIDIA-SMI 570");
}

// Issue 42 item 5: what could never be judged, or contradicts itself, does not load.
TEST_F(LoaderTest, ExpectationsPastTheEndOrContradictoryAreLocatedErrors) {
  struct Case {
    const char* entry;
    const char* expected;  // after "<path>:7:"
  };
  const Case cases[] = {
      {"{pod: default/x, phase: Running, at: 11m}", "42: error: \"at\" 11m0s is after the end of the run (duration 10m0s)"},
      {"{job: default/j, status: Complete, by: 2h}", "44: error: \"by\" 2h0m0s is after the end of the run (duration 10m0s)"},
      {"{event: Created, count: 2, absent: true}", "5: error: \"absent: true\" means none; it takes no count, atLeast or atMost"},
      {"{event: Created, count: 2, atLeast: 1}", "5: error: \"count\" is exact; it takes no atLeast or atMost"},
      {"{hint: X, atLeast: 3, atMost: 1}", "5: error: atLeast 3 is more than atMost 1"},
      {"{event: Created, storedCount: 6, count: 1}",
       "35: error: storedCount is the count of the Event object; it takes no count, atLeast, atMost or absent"},
      {"{nodePool: p, age: 5s, condition: Ready, status: \"True\"}",
       "39: error: a nodePool expectation is about a condition or the object's age, not both"},
      {"{nodePool: p, age: 5s, by: 1m}", "5: error: an age is judged at one time: \"at\" (or the end of the run), not \"by\""},
      {"{nodeClass: c}", "5: error: a nodeClass expectation needs \"condition\" (with \"status\") or \"age\""},
      {"{log: default/x, contains: hi, at: 1m}",
       "5: error: a log expectation reads the log at the end of the run; it takes no \"by\" or \"at\""},
      {"{logs: default/x, contains: hi}", "6: error: unknown key \"logs\" in expectation; did you mean \"log\"?"},
      {"{log: default/x, contains: hi, containr: c}", "36: error: unknown key \"containr\" in expectation; did you mean \"container\"?"},
  };
  for (const auto& c : cases) {
    std::string p = write("bad.yaml", std::string(kHeader) + "duration: 10m\ncluster: {region: ap-northeast-2}\nexpect:\n  - " +
                                          c.entry + "\n");
    EXPECT_EQ(error_of(p), p + ":7:" + c.expected) << c.entry;
  }
}

TEST_F(LoaderTest, ManifestIncludesAreRelativeToTheIncludingFile) {
  write("manifests/pods.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, image: busybox}]}\n"
                               "---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\nspec: {containers: [{name: c, image: busybox}]}\n");
  std::string p = write("s.yaml", std::string(kHeader) + "cluster: {region: us-east-1}\nmanifests:\n  - file: manifests/pods.yaml\n");
  Scenario s = load_scenario(p);
  ASSERT_EQ(s.manifests.size(), 2u);
  EXPECT_EQ(s.manifests[1].kind, "Pod");
}

TEST_F(LoaderTest, AddonReleaseNameAndNamespace) {
  // Lab 004: helm upgrade -i nvdp nvdp/nvidia-device-plugin --namespace nvidia-device-plugin.
  auto s = load_scenario(write("addon.yaml", std::string(kHeader) + R"(cluster:
  addons:
    nvidiaDevicePlugin: {version: 0.15.0, releaseName: nvdp, namespace: nvidia-device-plugin}
)"));
  ASSERT_EQ(s.cluster.addons.size(), 1u);
  EXPECT_EQ(s.cluster.addons[0].release_name, "nvdp");
  EXPECT_EQ(s.cluster.addons[0].ns, "nvidia-device-plugin");
  std::string err = error_of(write("bad.yaml", std::string(kHeader) + "cluster:\n  addons:\n    nvidiaDevicePlugin: {releaseName: NVDP}\n"));
  EXPECT_NE(err.find("error: invalid release name \"NVDP\""), std::string::npos) << err;
  err = error_of(write("bad2.yaml", std::string(kHeader) + "cluster:\n  addons:\n    nvidiaDevicePlugin: {namespace: a.b}\n"));
  EXPECT_NE(err.find("invalid namespace \"a.b\""), std::string::npos) << err;
}

TEST_F(LoaderTest, NodeGroupKubeletSettingsReplaceOnNewUserData) {
  auto s = load_scenario(write("ng.yaml", std::string(kHeader) + R"(cluster:
  kubernetesVersion: "1.32"
  nodeGroups:
    al2:
      ami_type: AL2_x86_64
      enable_bootstrap_user_data: true
      bootstrap_extra_args: "--kubelet-extra-args '--max-pods=20 --node-labels=a=b'"
    br:
      ami_type: BOTTLEROCKET_x86_64
      bootstrap_extra_args: "settings.kubernetes.max-pods = 20"
)"));
  ASSERT_EQ(s.cluster.node_groups.size(), 2u);
  EXPECT_EQ(s.cluster.node_groups[0].kubelet.max_pods, 20);
  EXPECT_EQ(s.cluster.node_groups[0].kubelet.node_labels.at("a"), "b");
  EXPECT_EQ(s.cluster.node_groups[1].kubelet.max_pods, 20);
  std::string err = error_of(write("bad.yaml", std::string(kHeader) + R"(cluster:
  nodeGroups:
    br:
      ami_type: BOTTLEROCKET_x86_64
      bootstrap_extra_args: "settings.kubernetes.maxpods = 20"
)"));
  EXPECT_NE(err.find("unknown setting settings.kubernetes.maxpods; did you mean \"max-pods\"?"), std::string::npos) << err;
}

}  // namespace
}  // namespace eksim::scenario
