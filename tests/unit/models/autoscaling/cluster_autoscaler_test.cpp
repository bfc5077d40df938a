#include "models/autoscaling/cluster_autoscaler.hpp"

#include <gtest/gtest.h>

#include "models/autoscaling/cas/utils/backoff/exponential_backoff.hpp"
#include "models/autoscaling/cas/expander/expander.hpp"
#include "models/autoscaling/cas/cloudprovider/aws/node_template.hpp"
#include "models/autoscaling/cas/simulator/drainability/rules.hpp"
#include "models/autoscaling/cas/simulator/utilization.hpp"
#include "models/autoscaling/cas/core/scaledown/actuation/drain.hpp"
#include "models/autoscaling/cas/processors/status/eventing_scale_up_processor.hpp"

namespace eksim::autoscaling::cas {
namespace {

using engine::Duration;
using engine::SimTime;

SimTime at_second(std::int64_t seconds) { return SimTime{} + Duration::seconds(seconds); }

// --- tag parsing (aws_manager.go extract*FromAsg) ---------------------------------------------

struct LabelCase {
  Tags tags;
  k8s::Labels want;
};

TEST(CasTemplateTags, Labels) {
  const std::vector<LabelCase> cases = {
      {{{"k8s.io/cluster-autoscaler/node-template/label/nvidia.com/gpu", "true"}}, {{"nvidia.com/gpu", "true"}}},
      {{{"k8s.io/cluster-autoscaler/node-template/label/tier", "gpu"}, {"Name", "x"}}, {{"tier", "gpu"}}},
      // eks: tags become labels named after the prefix (how CA spots a managed node group).
      {{{"eks:cluster-name", "myeks"}, {"eks:nodegroup-name", "ng-gpu"}},
       {{"cluster-name", "myeks"}, {"nodegroup-name", "ng-gpu"}}},
      // strings.Split: "eks:" anywhere in the key counts, the text after the first one is the label.
      {{{"aws:eks:cluster-name", "myeks"}}, {{"cluster-name", "myeks"}}},
      // An empty label name is dropped.
      {{{"k8s.io/cluster-autoscaler/node-template/label/", "v"}, {"eks:", "v"}}, {}},
      {{{"k8s.io/cluster-autoscaler/enabled", "true"}, {"k8s.io/cluster-autoscaler/myeks", "owned"}}, {}},
  };
  for (const auto& c : cases) EXPECT_EQ(extract_labels_from_tags(c.tags), c.want);
}

struct TaintCase {
  std::string value;
  bool valid;
  std::string want_value, want_effect;
};

TEST(CasTemplateTags, TaintsEachEffectAndInvalidIgnored) {
  const std::string key = "k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu";
  const std::vector<TaintCase> cases = {
      {"true:NoSchedule", true, "true", "NoSchedule"},
      {"true:NoExecute", true, "true", "NoExecute"},
      {"true:PreferNoSchedule", true, "true", "PreferNoSchedule"},
      {":NoSchedule", true, "", "NoSchedule"},          // (.*) may be empty
      {"true", false, "", ""},                          // no :Effect
      {"true:NO_SCHEDULE", false, "", ""},              // EKS spelling is not an effect
      {"true:noschedule", false, "", ""},               // case matters
      {"a:b:NoSchedule", true, "a", "b:NoSchedule"},    // split at the first colon, as upstream
  };
  for (const auto& c : cases) {
    auto taints = extract_taints_from_tags({{key, c.value}});
    ASSERT_EQ(taints.size(), c.valid ? 1u : 0u) << c.value;
    if (!c.valid) continue;
    EXPECT_EQ(taints[0].key, "nvidia.com/gpu");
    EXPECT_EQ(taints[0].value, c.want_value) << c.value;
    EXPECT_EQ(taints[0].effect, c.want_effect) << c.value;
  }
  // A valid value under a non-taint key is not a taint.
  EXPECT_TRUE(extract_taints_from_tags({{"k8s.io/cluster-autoscaler/node-template/label/x", "true:NoSchedule"}}).empty());
}

TEST(CasTemplateTags, Resources) {
  auto r = extract_resources_from_tags({{"k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu", "4"},
                                        {"k8s.io/cluster-autoscaler/node-template/resources/ephemeral-storage", "100Gi"},
                                        {"k8s.io/cluster-autoscaler/node-template/resources/cpu", "3500m"},
                                        {"k8s.io/cluster-autoscaler/node-template/resources/bad", "lots"}});
  EXPECT_EQ(r.size(), 3u);
  EXPECT_EQ(r["nvidia.com/gpu"], 4);
  EXPECT_EQ(r["ephemeral-storage"], 100LL * 1024 * 1024 * 1024);
  EXPECT_EQ(r["cpu"], 3500);
}

TEST(CasTemplate, FromInstanceTypeTagsAndDescribeNodegroup) {
  const aws::InstanceType* g5 = aws::InstanceCatalog::builtin().find("g5.xlarge");
  ASSERT_NE(g5, nullptr);
  TemplateInput in;
  in.type = g5;
  in.asg_name = "eks-ng-gpu-1";
  in.region = "ap-northeast-2";
  in.zone = "ap-northeast-2a";
  in.node_name = "eks-ng-gpu-1-asg-1";
  in.tags = {{"eks:cluster-name", "myeks"}, {"eks:nodegroup-name", "ng-gpu"}};
  k8s::Node n = build_node_from_template(in);
  EXPECT_EQ(n.allocatable.get(k8s::kCpu), 4000);
  EXPECT_EQ(n.allocatable.get(k8s::kMemory), 16384LL * 1024 * 1024);
  EXPECT_EQ(n.allocatable.get(k8s::kNvidiaGpu), 1);
  EXPECT_EQ(n.allocatable.get(k8s::kPods), 110);
  EXPECT_EQ(n.meta.labels.at(k8s::kLabelZone), "ap-northeast-2a");
  EXPECT_EQ(n.meta.labels.count("nvidia.com/gpu"), 0u);  // no tag, no DescribeNodegroup
  EXPECT_TRUE(n.taints.empty());

  in.managed = ManagedNodegroupInfo{{{"nvidia.com/gpu", "true"}, {"amiType", "AL2023_x86_64_NVIDIA"}},
                                    {k8s::Taint{"nvidia.com/gpu", "true", "NoSchedule"}}};
  in.tags["k8s.io/cluster-autoscaler/node-template/label/nvidia.com/gpu"] = "false";
  n = build_node_from_template(in);
  EXPECT_EQ(n.meta.labels.at("nvidia.com/gpu"), "true");  // DescribeNodegroup wins over tags
  ASSERT_EQ(n.taints.size(), 1u);
  EXPECT_EQ(n.taints[0].effect, "NoSchedule");

  // Without the eks: tags CA does not know it is a managed node group and asks nothing.
  in.tags.erase("eks:cluster-name");
  EXPECT_EQ(build_node_from_template(in).meta.labels.at("nvidia.com/gpu"), "false");
}

// --- expanders ----------------------------------------------------------------------------

k8s::Pod pod_requesting(std::int64_t milli_cpu, std::int64_t mem_bytes, const std::string& name) {
  k8s::Pod p;
  p.meta.name = name;
  k8s::Container c;
  c.requests.set(k8s::kCpu, milli_cpu);
  c.requests.set(k8s::kMemory, mem_bytes);
  p.spec.containers.push_back(c);
  return p;
}

ExpansionOption option(const std::string& id, std::int64_t nodes, std::int64_t vcpu, std::int64_t gib,
                       const std::vector<const k8s::Pod*>& pods, double price) {
  ExpansionOption o;
  o.group_id = id;
  o.node_count = nodes;
  o.pods = pods;
  o.template_node.capacity.set(k8s::kCpu, vcpu * 1000);
  o.template_node.capacity.set(k8s::kMemory, gib << 30);
  o.node_price_per_hour = price;
  return o;
}

TEST(CasExpander, LeastWasteMostPodsPriceRandom) {
  // 40 GPU pods of 1 vCPU / 4 GiB: 40 x g5.xlarge (4 vCPU, 16 GiB) vs 10 x g5.12xlarge (48, 192).
  std::vector<k8s::Pod> pods;
  for (int i = 0; i < 40; ++i) {
    std::string name = std::to_string(i);
    name.insert(0, 1, 'p');
    pods.push_back(pod_requesting(1000, 4LL << 30, name));
  }
  std::vector<const k8s::Pod*> ptrs;
  for (auto& p : pods) ptrs.push_back(&p);
  auto small = option("g5-xlarge", 40, 4, 16, ptrs, 1.006);
  auto big = option("g5-12xlarge", 10, 48, 192, ptrs, 5.672);
  EXPECT_DOUBLE_EQ(waste_score(small), 0.75 + 0.75);
  EXPECT_NEAR(waste_score(big), (480.0 - 40) / 480 + (1920.0 - 160) / 1920, 1e-12);
  engine::Rng rng(1);
  EXPECT_EQ(choose_option({small, big}, {Expander::LeastWaste}, {}, rng), 0);
  EXPECT_EQ(choose_option({big, small}, {Expander::LeastWaste}, {}, rng), 1);

  std::vector<const k8s::Pod*> fewer(ptrs.begin(), ptrs.begin() + 10);
  auto few = option("few", 1, 48, 192, fewer, 1.0);
  EXPECT_EQ(choose_option({few, small}, {Expander::MostPods}, {}, rng), 1);
  // price: $/h per pod helped, 40 x 1.006 / 40 = 1.006 vs 10 x 5.672 / 40 = 1.418.
  EXPECT_EQ(choose_option({big, small}, {Expander::Price}, {}, rng), 1);
  // priority: the highest priority whose regexp matches; chain then least-waste among ties.
  PriorityConfig prio{{10, {".*12xlarge.*"}}, {1, {".*"}}};
  EXPECT_EQ(choose_option({small, big}, {Expander::Priority, Expander::LeastWaste}, prio, rng), 1);
  // random spreads over options (deterministic per stream).
  int first = 0;
  for (int i = 0; i < 200; ++i) first += choose_option({small, big}, {Expander::Random}, {}, rng) == 0;
  EXPECT_GT(first, 60);
  EXPECT_LT(first, 140);
  EXPECT_EQ(choose_option({}, {Expander::LeastWaste}, {}, rng), -1);
}

// --- back-off -------------------------------------------------------------------------------

TEST(CasBackoff, DoublesCapsAndResets) {
  ExponentialBackoff b;  // 5m initial, 30m max, 3h reset
  struct Step {
    std::int64_t fail_at_s;
    std::int64_t want_duration_min;
  };
  const std::vector<Step> steps = {{0, 5}, {600, 10}, {1800, 20}, {3600, 30}, {5400, 30}};
  for (const auto& s : steps) {
    SimTime until = b.backoff("g", at_second(s.fail_at_s));
    EXPECT_EQ(until, at_second(s.fail_at_s) + Duration::minutes(s.want_duration_min)) << s.fail_at_s;
    EXPECT_TRUE(b.is_backed_off("g", at_second(s.fail_at_s)));
    EXPECT_FALSE(b.is_backed_off("g", until));
  }
  // More than 3h after the last failure: back to the initial 5m.
  EXPECT_EQ(b.backoff("g", at_second(5400 + 3 * 3600 + 1)), at_second(5400 + 3 * 3600 + 1) + Duration::minutes(5));
  // remove_stale forgets old entries; remove clears at once.
  b.remove_stale(at_second(5400 + 6 * 3600 + 2));
  EXPECT_EQ(b.entry("g"), nullptr);
  b.backoff("h", at_second(0));
  b.remove("h");
  EXPECT_FALSE(b.is_backed_off("h", at_second(1)));
}

// --- scale-down eligibility -----------------------------------------------------------------

TEST(CasScaleDown, UtilisationCpuMemoryAndGpu) {
  k8s::Node node;
  node.meta.name = "n";
  node.allocatable = {{"cpu", 4000}, {"memory", 16LL << 30}, {"pods", 110}};
  auto web = pod_requesting(1000, 12LL << 30, "web");
  k8s::NodeInfo info = k8s::make_node_info(node, std::vector<const k8s::Pod*>{&web});
  Utilization u = node_utilization(info);
  EXPECT_DOUBLE_EQ(u.cpu, 0.25);
  EXPECT_DOUBLE_EQ(u.memory, 0.75);
  EXPECT_DOUBLE_EQ(u.value, 0.75);
  EXPECT_FALSE(u.gpu_node);
  // A GPU node is judged by GPU requests only: busy CPU, idle GPU -> 0.
  node.allocatable.set(k8s::kNvidiaGpu, 1);
  info = k8s::make_node_info(node, std::vector<const k8s::Pod*>{&web});
  u = node_utilization(info);
  EXPECT_TRUE(u.gpu_node);
  EXPECT_DOUBLE_EQ(u.value, 0.0);
  auto gpu = pod_requesting(100, 1LL << 30, "gpu");
  gpu.spec.containers.mut()[0].requests.set(k8s::kNvidiaGpu, 1);
  info = k8s::make_node_info(node, std::vector<const k8s::Pod*>{&gpu});
  EXPECT_DOUBLE_EQ(node_utilization(info).value, 1.0);
  // GPUs not advertised yet but expected from the instance type: still a GPU node.
  node.allocatable.set(k8s::kNvidiaGpu, 0);
  info = k8s::make_node_info(node, std::vector<const k8s::Pod*>{&web});
  EXPECT_TRUE(node_utilization(info, true).gpu_node);
}

TEST(CasScaleDown, BlockingPods) {
  struct Case {
    std::string name, ns, owner_kind, safe_to_evict;
    k8s::PodPhase phase;
    std::optional<std::string> want;
  };
  const std::vector<Case> cases = {
      {"replicated", "default", "ReplicaSet", "", k8s::PodPhase::Running, std::nullopt},
      {"bare", "default", "", "", k8s::PodPhase::Running, "NotReplicated"},
      {"bare-safe", "default", "", "true", k8s::PodPhase::Running, std::nullopt},
      {"not-safe", "default", "ReplicaSet", "false", k8s::PodPhase::Running, "NotSafeToEvictAnnotation"},
      {"system", "kube-system", "ReplicaSet", "", k8s::PodPhase::Running, "UnmovableKubeSystemPod"},
      {"daemon", "kube-system", "DaemonSet", "", k8s::PodPhase::Running, std::nullopt},
      {"finished-bare", "default", "", "", k8s::PodPhase::Succeeded, std::nullopt},
  };
  for (const auto& c : cases) {
    k8s::Pod p;
    p.meta.name = c.name;
    p.meta.ns = c.ns;
    if (!c.owner_kind.empty()) p.meta.owner_references.push_back({c.owner_kind, "owner", true});
    if (!c.safe_to_evict.empty()) p.meta.annotations[kAnnotationSafeToEvict] = c.safe_to_evict;
    p.status.phase = c.phase;
    EXPECT_EQ(blocking_reason(p), c.want) << c.name;
  }
  k8s::Pod sys;
  sys.meta.ns = "kube-system";
  sys.meta.owner_references.push_back({"ReplicaSet", "coredns", true});
  EXPECT_EQ(blocking_reason(sys, DrainOptions{false, true}), std::nullopt);
}

// --- messages and flags ---------------------------------------------------------------------

TEST(CasMessages, UpstreamWords) {
  EXPECT_EQ(triggered_scale_up_message({scale_up_info("eks-gpu", 0, 1, 2)}), "pod triggered scale-up: [{eks-gpu 0->1 (max: 2)}]");
  EXPECT_EQ(not_trigger_scale_up_message({{"max node group size reached", 1}, {"node(s) had untolerated taint(s)", 2}}),
            "pod didn't trigger scale-up: 1 max node group size reached, 2 node(s) had untolerated taint(s)");
}

}  // namespace
}  // namespace eksim::autoscaling::cas

namespace eksim::autoscaling {
namespace {

// clusterstate.IsClusterHealthy: unhealthy only when unready exceeds BOTH the count and the share.
TEST(CasClusterHealth, UnreadyCountAndPercentageBothExceeded) {
  CasOptions o;  // --ok-total-unready-count 3, --max-total-unready-percentage 45
  EXPECT_TRUE(cluster_healthy(3, 4, o)) << "3 is not more than 3";
  EXPECT_FALSE(cluster_healthy(4, 6, o)) << "4 > 3 and 4 > 2.7";
  EXPECT_TRUE(cluster_healthy(4, 10, o)) << "4 is not more than 45% of 10";
  EXPECT_FALSE(cluster_healthy(5, 10, o));
  CasOptions strict;
  strict.ok_total_unready_count = 0;
  strict.max_total_unready_percentage = 10;
  EXPECT_FALSE(cluster_healthy(1, 5, strict));
  EXPECT_TRUE(cluster_healthy(0, 5, strict));
}

}  // namespace
}  // namespace eksim::autoscaling
