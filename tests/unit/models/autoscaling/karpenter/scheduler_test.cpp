#include "models/autoscaling/karpenter/provisioning/scheduling/scheduler.hpp"

#include <gtest/gtest.h>

#include "models/aws/instance_catalog.hpp"

namespace eksim::autoscaling::karpenter {
namespace {

std::vector<InstanceTypeInfo> catalog_types(LabelDomain d = LabelDomain::Oss) {
  InstanceTypeOptions opts;
  opts.region = "ap-northeast-2";
  opts.zones = {"ap-northeast-2a", "ap-northeast-2b"};
  opts.domain = d;
  std::vector<InstanceTypeInfo> out;
  const NodeClass node_class;  // one, not a temporary per type (GCC 12 -Wmaybe-uninitialized false positive)
  for (const auto& t : aws::InstanceCatalog::builtin().all()) out.push_back(build_instance_type(t, opts, node_class));
  return out;
}

k8s::Pod pod(const std::string& name, std::int64_t cpu_m, std::int64_t mem, std::int64_t gpus = 0) {
  k8s::Pod p;
  p.meta.name = name;
  p.meta.ns = "default";
  k8s::Container c;
  c.name = "main";
  c.requests.set(k8s::kCpu, cpu_m);
  c.requests.set(k8s::kMemory, mem);
  if (gpus) c.requests.set(k8s::kNvidiaGpu, gpus);
  p.spec.containers.push_back(c);
  return p;
}

NodePool gpu_pool() {
  NodePool p;
  p.name = "gpu";
  p.requirements = {{"kubernetes.io/arch", "In", {"amd64"}},
                    {"karpenter.sh/capacity-type", "In", {"spot", "on-demand"}},
                    {"karpenter.k8s.aws/instance-category", "In", {"g", "p"}}};
  p.taints = {{"nvidia.com/gpu", "present", "NoSchedule"}};
  return p;
}

TEST(KarpenterScheduler, CheapestCompatibleTypeFirst) {
  auto types = catalog_types();
  NodePool pool = gpu_pool();
  NodeClaimTemplate t = make_template(pool, types, {}, LabelDomain::Oss, {});
  ASSERT_FALSE(t.instance_types.empty());
  // Ordered by cheapest available offering; every one is a g or p type.
  double prev = 0;
  for (const auto* it : t.instance_types) {
    EXPECT_TRUE(it->type->category == "g" || it->type->category == "p") << it->name();
    double price = it->cheapest(t.requirements);
    EXPECT_GE(price, prev);
    prev = price;
  }
  k8s::Pod p = pod("gpu-pod", 0, 0, 1);
  p.spec.tolerations.push_back({"nvidia.com/gpu", "Exists", "", "NoSchedule", std::nullopt});
  std::vector<ExistingNode> none;
  std::vector<NodeClaimTemplate> tmpls{t};
  auto res = solve({&p}, none, tmpls, LabelDomain::Oss);
  ASSERT_EQ(res.new_claims.size(), 1u);
  EXPECT_TRUE(res.errors.empty());
  EXPECT_EQ(res.new_claims[0].options.front(), t.instance_types.front());
}

TEST(KarpenterScheduler, OssIgnoresAutoModeCategoryLabel) {
  // Lab 002: the Auto Mode key is a custom label for OSS Karpenter; the cheapest CPU type wins.
  auto types = catalog_types();
  NodePool pool;
  pool.name = "gpu-pool";
  pool.requirements = {{"kubernetes.io/arch", "In", {"amd64"}},
                       {"karpenter.sh/capacity-type", "In", {"on-demand"}},
                       {"eks.amazonaws.com/instance-category", "In", {"g", "p"}}};
  pool.taints = {{"gpu-workload", "", "NoSchedule"}};
  std::vector<NodeClaimTemplate> tmpls{make_template(pool, types, {}, LabelDomain::Oss, {})};
  k8s::Pod p = pod("cpu-pod", 500, 256LL << 20);
  p.spec.tolerations.push_back({"gpu-workload", "Exists", "", "NoSchedule", std::nullopt});
  std::vector<ExistingNode> none;
  auto res = solve({&p}, none, tmpls, LabelDomain::Oss);
  ASSERT_EQ(res.new_claims.size(), 1u);
  EXPECT_EQ(res.new_claims[0].options.front()->type->gpu.count, 0);
  EXPECT_EQ(res.new_claims[0].options.front()->name(), "t3.medium");
  // Under Auto Mode the same key filters to g/p types.
  auto auto_types = catalog_types(LabelDomain::AutoMode);
  std::vector<NodeClaimTemplate> auto_tmpls{make_template(pool, auto_types, {}, LabelDomain::AutoMode, {})};
  auto res2 = solve({&p}, none, auto_tmpls, LabelDomain::AutoMode);
  ASSERT_EQ(res2.new_claims.size(), 1u);
  EXPECT_GT(res2.new_claims[0].options.front()->type->gpu.count, 0);
}

TEST(KarpenterScheduler, FailedSchedulingTexts) {
  auto types = catalog_types();
  NodePool pool = gpu_pool();
  std::vector<NodeClaimTemplate> tmpls{make_template(pool, types, {}, LabelDomain::Oss, {})};
  std::vector<ExistingNode> none;
  k8s::Pod untolerated = pod("p1", 100, 0);
  auto r1 = solve({&untolerated}, none, tmpls, LabelDomain::Oss);
  ASSERT_EQ(r1.errors.size(), 1u);
  EXPECT_EQ(*r1.errors[0].second,
            "incompatible with nodepool \"gpu\", daemonset overhead={}, did not tolerate nvidia.com/gpu=present:NoSchedule");
  k8s::Pod custom = pod("p2", 100, 0);
  custom.spec.tolerations.push_back({"nvidia.com/gpu", "Exists", "", "", std::nullopt});
  custom.spec.node_selector["team"] = "ml";
  auto r2 = solve({&custom}, none, tmpls, LabelDomain::Oss);
  ASSERT_EQ(r2.errors.size(), 1u);
  EXPECT_EQ(*r2.errors[0].second,
            "incompatible with nodepool \"gpu\", daemonset overhead={}, incompatible requirements, label \"team\" does not "
            "have known values");
  k8s::Pod huge = pod("p3", 1000000, 0);
  huge.spec.tolerations = custom.spec.tolerations;
  auto r3 = solve({&huge}, none, tmpls, LabelDomain::Oss);
  ASSERT_EQ(r3.errors.size(), 1u);
  EXPECT_NE(r3.errors[0].second->find("no instance type satisfied resources {\"cpu\":\"1k\"") , std::string::npos) << *r3.errors[0].second;
}

TEST(KarpenterScheduler, DaemonSetOverheadCountsAgainstEveryNode) {
  auto types = catalog_types();
  NodePool pool;
  pool.name = "default";
  pool.requirements = {{"node.kubernetes.io/instance-type", "In", {"t3.medium", "m5.large", "c5.xlarge"}}};
  k8s::Pod ds = pod("ds", 1000, 0);  // 1 vCPU per node for the DaemonSet
  NodeClaimTemplate t = make_template(pool, types, {ds}, LabelDomain::Oss, {});
  EXPECT_EQ(resources_string(t.daemon_overhead), "{\"cpu\":\"1\",\"pods\":\"1\"}");
  // t3.medium and m5.large have 1930m allocatable: a 1 vCPU pod no longer fits beside the
  // daemon, so the cheapest fit is the 4-vCPU c5.xlarge.
  k8s::Pod p = pod("p", 1000, 0);
  std::vector<NodeClaimTemplate> tmpls{t};
  std::vector<ExistingNode> none;
  auto res = solve({&p}, none, tmpls, LabelDomain::Oss);
  ASSERT_EQ(res.new_claims.size(), 1u);
  EXPECT_EQ(res.new_claims[0].options.front()->name(), "c5.xlarge");
}

TEST(KarpenterScheduler, LimitsSubtractTheLargestCandidate) {
  auto types = catalog_types();
  NodePool pool;
  pool.name = "cpu";
  pool.requirements = {{"node.kubernetes.io/instance-type", "In", {"t3.medium", "m5.large", "c5.xlarge"}}};
  pool.limits["cpu"] = 6000;  // 6 vCPU
  std::vector<NodeClaimTemplate> tmpls{make_template(pool, types, {}, LabelDomain::Oss, {})};
  // Pods with anti-packing requests: each needs its own node (1.5 vCPU on 2-vCPU types).
  std::vector<k8s::Pod> pods;
  for (int i = 0; i < 4; ++i) pods.push_back(pod("p" + std::to_string(i), 1500, 0));
  std::vector<const k8s::Pod*> ptrs;
  for (auto& p : pods) ptrs.push_back(&p);
  std::vector<ExistingNode> none;
  auto res = solve(ptrs, none, tmpls, LabelDomain::Oss);
  // The first claim may become a c5.xlarge (4 vCPU), so 6-4 = 2 vCPU remain; it takes two pods.
  // The second claim can only be a 2-vCPU type (remaining 0); the fourth pod exceeds the limit.
  EXPECT_EQ(res.new_claims.size(), 2u);
  ASSERT_FALSE(res.errors.empty());
  EXPECT_EQ(*res.errors.back().second, "all available instance types exceed limits for nodepool: \"cpu\"");
  // Usage already at the limit: nothing at all.
  std::vector<NodeClaimTemplate> full{make_template(pool, types, {}, LabelDomain::Oss, {{"cpu", 6000}})};
  auto res2 = solve(ptrs, none, full, LabelDomain::Oss);
  EXPECT_TRUE(res2.new_claims.empty());
  EXPECT_EQ(res2.errors.size(), 4u);
}

TEST(KarpenterScheduler, ExistingCapacityFirstThenBinPacking) {
  auto types = catalog_types();
  NodePool pool;
  pool.name = "cpu";
  pool.requirements = {{"node.kubernetes.io/instance-type", "In", {"m5.large"}}};
  std::vector<NodeClaimTemplate> tmpls{make_template(pool, types, {}, LabelDomain::Oss, {})};
  k8s::Node n;
  n.meta.name = "existing";
  n.allocatable = {{"cpu", 1000}, {"memory", 4LL << 30}, {"pods", 10}};
  n.ready = true;
  std::vector<ExistingNode> existing{ExistingNode{"existing", "", true, k8s::make_node_info(n)}};
  std::vector<k8s::Pod> pods;
  for (int i = 0; i < 5; ++i) pods.push_back(pod("p" + std::to_string(i), 500, 0));
  std::vector<const k8s::Pod*> ptrs;
  for (auto& p : pods) ptrs.push_back(&p);
  auto res = solve(ptrs, existing, tmpls, LabelDomain::Oss);
  EXPECT_EQ(res.existing.size(), 2u);  // 2 x 500m on the existing node
  ASSERT_EQ(res.new_claims.size(), 1u);  // the other 3 pack onto one m5.large (1930m allocatable)
  EXPECT_EQ(res.new_claims[0].pods.size(), 3u);
}

TEST(KarpenterScheduler, PodOrderCpuThenMemoryDescending) {
  k8s::Pod a = pod("a", 100, 1), b = pod("b", 200, 1), c = pod("c", 100, 5);
  std::vector<const k8s::Pod*> v{&a, &b, &c};
  order_pods(v);
  EXPECT_EQ(v[0]->meta.name, "b");
  EXPECT_EQ(v[1]->meta.name, "c");
  EXPECT_EQ(v[2]->meta.name, "a");
}

TEST(KarpenterIceCache, ExpiresAfterThreeMinutes) {
  UnavailableOfferings ice;
  engine::SimTime t0{0};
  ice.mark("g5.xlarge", "ap-northeast-2a", "spot", t0);
  EXPECT_TRUE(ice.unavailable("g5.xlarge", "ap-northeast-2a", "spot", t0 + engine::Duration::seconds(179)));
  EXPECT_FALSE(ice.unavailable("g5.xlarge", "ap-northeast-2a", "on-demand", t0));
  EXPECT_FALSE(ice.unavailable("g5.xlarge", "ap-northeast-2a", "spot", t0 + engine::Duration::minutes(3)));
  auto types = catalog_types();
  ice.mark("g5.xlarge", "ap-northeast-2b", "spot", t0);
  ice.apply(types, t0 + engine::Duration::seconds(10));
  int unavailable = 0;
  for (const auto& t : types)
    for (const auto& o : t.offerings) unavailable += !o.available;
  EXPECT_EQ(unavailable, 2);
  EXPECT_TRUE(is_insufficient_capacity_error("InsufficientInstanceCapacity"));
  EXPECT_TRUE(is_insufficient_capacity_error("VcpuLimitExceeded"));
  EXPECT_FALSE(is_insufficient_capacity_error("UnauthorizedOperation"));
}

TEST(KarpenterScheduler, ResourcesStringCanonical) {
  k8s::ResourceList r{{"cpu", 310}, {"memory", 272LL << 20}, {"pods", 7}};
  EXPECT_EQ(resources_string(r), "{\"cpu\":\"310m\",\"memory\":\"272Mi\",\"pods\":\"7\"}");
}

}  // namespace
}  // namespace eksim::autoscaling::karpenter

namespace eksim::autoscaling::karpenter {
namespace {

InstanceTypeInfo sized(std::int64_t cpu_m, std::int64_t mem) {
  InstanceTypeInfo t;
  t.allocatable = {{"cpu", cpu_m}, {"memory", mem}, {"ephemeral-storage", 100}};
  return t;
}

TEST(AllocatableBound, DroppingTypesLowersItOnlyWhenTheLastTypeAtAMaximumGoes) {
  const InstanceTypeInfo small = sized(2000, 8), big = sized(8000, 32), wide = sized(4000, 32);
  const AllocatableBound b0 = AllocatableBound::over({&small, &big, &wide});
  EXPECT_EQ(b0.max.get("cpu"), 8000);
  EXPECT_EQ(b0.max.get("memory"), 32);
  EXPECT_EQ(b0.attained.get("memory"), 2);
  EXPECT_EQ(b0.attained.get("ephemeral-storage"), 3);  // every type has the same root volume
  AllocatableBound b = b0;
  EXPECT_TRUE(b.drop(small));  // no maximum moves
  EXPECT_TRUE(b.drop(wide));   // big still has 32 memory, and the storage maximum stays
  EXPECT_FALSE(b.drop(big));   // the last type at 8000 cpu: the bound is above the rest now
  AllocatableBound c = b0;
  EXPECT_FALSE(c.drop(big));   // cpu 8000 was big's alone
}

}  // namespace
}  // namespace eksim::autoscaling::karpenter
