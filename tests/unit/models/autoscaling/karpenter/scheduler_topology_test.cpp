// Karpenter's scheduler: topology spread and anti-affinity on new NodeClaims, minValues, and
// limits reached by a burst.
#include <gtest/gtest.h>

#include "models/autoscaling/karpenter/provisioning/scheduling/scheduler.hpp"
#include "models/aws/instance_catalog.hpp"

namespace eksim::autoscaling::karpenter {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

const char* kZoneA = "ap-northeast-2a";
const char* kZoneB = "ap-northeast-2b";
const char* kZoneC = "ap-northeast-2c";

std::vector<InstanceTypeInfo> three_zone_types() {
  InstanceTypeOptions opts;
  opts.region = "ap-northeast-2";
  opts.zones = {kZoneA, kZoneB, kZoneC};
  std::vector<InstanceTypeInfo> out;
  // One NodeClass, static: a local one (or a temporary per call) made GCC 12 warn
  // -Wmaybe-uninitialized in boost's small_vector destructor (a false positive).
  static const NodeClass node_class;
  for (const auto& t : aws::InstanceCatalog::builtin().all()) out.push_back(build_instance_type(t, opts, node_class));
  return out;
}

NodePool cpu_pool() {
  NodePool p;
  p.name = "default";
  p.requirements = {{"kubernetes.io/arch", "In", {"amd64"}},
                    {"karpenter.sh/capacity-type", "In", {"on-demand"}},
                    {"karpenter.k8s.aws/instance-category", "In", {"c", "m", "t"}}};
  return p;
}

k8s::Pod web(const std::string& name, std::int64_t cpu_m = 250) {
  k8s::Pod p;
  p.meta.name = name;
  p.meta.ns = "default";
  p.meta.labels = {{"app", "web"}};
  k8s::Container c;
  c.name = "app";
  c.requests.set(k8s::kCpu, cpu_m);
  p.spec.containers.push_back(c);
  return p;
}

k8s::LabelSelector app_web() {
  k8s::LabelSelector s;
  s.match_labels = {{"app", "web"}};
  return s;
}

void spread(k8s::Pod& p, const std::string& key, std::int32_t max_skew = 1) {
  k8s::TopologySpreadConstraint c;
  c.max_skew = max_skew;
  c.topology_key = key;
  c.label_selector = app_web();
  p.spec.topology_spread_constraints.push_back(c);
}

std::vector<const k8s::Pod*> ptrs(const std::vector<k8s::Pod>& pods) {
  std::vector<const k8s::Pod*> out;
  for (const auto& p : pods) out.push_back(&p);
  return out;
}

std::string zone_of(const PlannedNodeClaim& nc) {
  const Requirement r = nc.requirements.get(k8s::kLabelZone);
  return !r.complement() && r.values().size() == 1 ? *r.values().begin() : "";
}

// A full node (no cpu left) in a zone holding `matching` web pods.
ExistingNode full_node(const std::string& name, const std::string& zone, const std::vector<const k8s::Pod*>& pods) {
  k8s::Node n;
  n.meta.name = name;
  n.meta.labels = {{k8s::kLabelZone, zone}, {k8s::kLabelHostname, name}};
  n.allocatable.set(k8s::kCpu, 100);
  n.allocatable.set(k8s::kPods, 110);
  n.ready = true;
  ExistingNode e;
  e.node_name = name;
  e.info = k8s::make_node_info(n, pods);
  return e;
}

TEST(KarpenterTopology, ZoneSpreadGivesOneNodeClaimPerZone) {
  auto types = three_zone_types();
  NodePool pool = cpu_pool();
  std::vector<k8s::Pod> pods{web("web-0"), web("web-1"), web("web-2")};
  for (auto& p : pods) spread(p, k8s::kLabelZone);
  std::vector<NodeClaimTemplate> tmpls{make_template(pool, types, {}, LabelDomain::Oss, {})};
  std::vector<ExistingNode> none;
  auto res = solve(ptrs(pods), none, tmpls, LabelDomain::Oss);
  EXPECT_TRUE(res.errors.empty());
  ASSERT_EQ(res.new_claims.size(), 3u);
  std::vector<std::string> zones;
  for (const auto& nc : res.new_claims) zones.push_back(zone_of(nc));
  std::sort(zones.begin(), zones.end());
  EXPECT_EQ(zones, (std::vector<std::string>{kZoneA, kZoneB, kZoneC}));
  // Every claim's cheapest option is still a small type: spread, not size, made three claims.
  for (const auto& nc : res.new_claims) EXPECT_EQ(nc.options.front()->name(), "t3.medium");

  // Without the constraint the three pods share one NodeClaim.
  std::vector<k8s::Pod> plain{web("a"), web("b"), web("c")};
  auto res2 = solve(ptrs(plain), none, tmpls, LabelDomain::Oss);
  EXPECT_EQ(res2.new_claims.size(), 1u);
}

TEST(KarpenterTopology, SpreadCountsPodsOnExistingNodes) {
  auto types = three_zone_types();
  NodePool pool = cpu_pool();
  k8s::Pod running = web("running");
  std::vector<ExistingNode> existing{full_node("node-a", kZoneA, {&running})};
  std::vector<k8s::Pod> pods{web("web-1"), web("web-2")};
  for (auto& p : pods) spread(p, k8s::kLabelZone);
  std::vector<NodeClaimTemplate> tmpls{make_template(pool, types, {}, LabelDomain::Oss, {})};
  auto res = solve(ptrs(pods), existing, tmpls, LabelDomain::Oss);
  ASSERT_EQ(res.new_claims.size(), 2u);
  std::vector<std::string> zones{zone_of(res.new_claims[0]), zone_of(res.new_claims[1])};
  std::sort(zones.begin(), zones.end());
  EXPECT_EQ(zones, (std::vector<std::string>{kZoneB, kZoneC}));  // zone a already has one
}

TEST(KarpenterTopology, UnsatisfiableSpreadUsesKarpentersText) {
  auto types = three_zone_types();
  NodePool pool = cpu_pool();
  pool.requirements.push_back({k8s::kLabelZone, "In", {kZoneA}});
  k8s::Pod r1 = web("r1"), r2 = web("r2");
  std::vector<ExistingNode> existing{full_node("node-a", kZoneA, {&r1, &r2}), full_node("node-b", kZoneB, {})};
  std::vector<k8s::Pod> pods{web("web-3")};
  spread(pods[0], k8s::kLabelZone);
  std::vector<NodeClaimTemplate> tmpls{make_template(pool, types, {}, LabelDomain::Oss, {})};
  auto res = solve(ptrs(pods), existing, tmpls, LabelDomain::Oss);
  EXPECT_TRUE(res.new_claims.empty());
  ASSERT_EQ(res.errors.size(), 1u);
  EXPECT_PRED2(contains, *res.errors[0].second, std::string("unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io/zone "
                                   "(counts = ap-northeast-2a: 2, ap-northeast-2b: 0, podDomains = topology.kubernetes.io/zone "
                                   "Exists, nodeDomains = topology.kubernetes.io/zone In [ap-northeast-2a]"));
  EXPECT_EQ(res.errors[0].second->rfind("incompatible with nodepool \"default\", daemonset overhead=", 0), 0u);
}

TEST(KarpenterTopology, HostnameAntiAffinityGivesEachPodItsOwnClaim) {
  auto types = three_zone_types();
  NodePool pool = cpu_pool();
  std::vector<k8s::Pod> pods{web("web-0"), web("web-1"), web("web-2")};
  for (auto& p : pods) {
    k8s::PodAffinityTerm t;
    t.label_selector = app_web();
    t.topology_key = k8s::kLabelHostname;
    p.spec.affinity.pod_anti_affinity_required.push_back(t);
  }
  std::vector<NodeClaimTemplate> tmpls{make_template(pool, types, {}, LabelDomain::Oss, {})};
  // One existing node with room but already running a web pod: the new ones avoid it.
  k8s::Pod running = web("running");
  ExistingNode roomy = full_node("node-a", kZoneA, {&running});
  roomy.info.node.allocatable.set(k8s::kCpu, 4000);
  std::vector<ExistingNode> existing{roomy};
  auto res = solve(ptrs(pods), existing, tmpls, LabelDomain::Oss);
  EXPECT_TRUE(res.existing.empty());
  EXPECT_TRUE(res.errors.empty());
  ASSERT_EQ(res.new_claims.size(), 3u);
  for (const auto& nc : res.new_claims) EXPECT_EQ(nc.pods.size(), 1u);
}

TEST(KarpenterTopology, ZoneAntiAffinityNarrowsToEmptyZones) {
  auto types = three_zone_types();
  NodePool pool = cpu_pool();
  k8s::Pod running = web("running");
  std::vector<ExistingNode> existing{full_node("node-a", kZoneA, {&running})};
  std::vector<k8s::Pod> pods{web("web-1")};
  k8s::PodAffinityTerm t;
  t.label_selector = app_web();
  t.topology_key = k8s::kLabelZone;
  pods[0].spec.affinity.pod_anti_affinity_required.push_back(t);
  std::vector<NodeClaimTemplate> tmpls{make_template(pool, types, {}, LabelDomain::Oss, {})};
  auto res = solve(ptrs(pods), existing, tmpls, LabelDomain::Oss);
  ASSERT_EQ(res.new_claims.size(), 1u);
  EXPECT_EQ(res.new_claims[0].requirements.get(k8s::kLabelZone).str(), "topology.kubernetes.io/zone In [ap-northeast-2b ap-northeast-2c]");
}

TEST(KarpenterMinValues, TooFewDistinctValuesBlocksTheNodeClaim) {
  auto types = three_zone_types();
  NodePool pool = cpu_pool();
  std::vector<ExistingNode> none;
  // 500m fits t3.medium, m5.large and c5.xlarge: three categories.
  std::vector<k8s::Pod> small{web("small", 500)};
  pool.min_values["karpenter.k8s.aws/instance-category"] = 3;
  std::vector<NodeClaimTemplate> three{make_template(pool, types, {}, LabelDomain::Oss, {})};
  auto ok = solve(ptrs(small), none, three, LabelDomain::Oss);
  EXPECT_EQ(ok.new_claims.size(), 1u);
  EXPECT_TRUE(ok.errors.empty());
  pool.min_values["karpenter.k8s.aws/instance-category"] = 4;
  std::vector<NodeClaimTemplate> four{make_template(pool, types, {}, LabelDomain::Oss, {})};
  auto bad = solve(ptrs(small), none, four, LabelDomain::Oss);
  EXPECT_TRUE(bad.new_claims.empty());
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_PRED2(contains, *bad.errors[0].second, std::string("karpenter.k8s.aws/instance-category In [c m t] minValues 4"));
  EXPECT_PRED2(ends_with, *bad.errors[0].second, std::string("(minValues requirement is not met for karpenter.k8s.aws/instance-category)"));
  // 3 CPU fits only c5.xlarge (one category, minValues 2 not met), but upstream's failure reason
  // names the pairwise criterion first: smaller types met requirements and offering, not resources.
  pool.min_values["karpenter.k8s.aws/instance-category"] = 2;
  std::vector<NodeClaimTemplate> two{make_template(pool, types, {}, LabelDomain::Oss, {})};
  std::vector<k8s::Pod> big{web("big", 3000)};
  auto big_res = solve(ptrs(big), none, two, LabelDomain::Oss);
  EXPECT_TRUE(big_res.new_claims.empty());
  ASSERT_EQ(big_res.errors.size(), 1u);
  EXPECT_PRED2(ends_with, *big_res.errors[0].second,
               std::string("(no instance type which met the scheduling requirements and the required offering had the required resources)"));
}

TEST(KarpenterMinValues, RequirementStringAndIntersectionKeepTheLarger) {
  Requirement a("karpenter.k8s.aws/instance-family", "In", {"c5", "m5", "r5"});
  a.set_min_values(2);
  Requirement b("karpenter.k8s.aws/instance-family", "In", {"c5", "m5"});
  Requirement i = a.intersection(b);
  ASSERT_TRUE(i.min_values().has_value());
  EXPECT_EQ(*i.min_values(), 2);
  EXPECT_EQ(i.str(), "karpenter.k8s.aws/instance-family In [c5 m5] minValues 2");
  EXPECT_EQ(b.str(), "karpenter.k8s.aws/instance-family In [c5 m5]");
}

TEST(KarpenterLimits, BurstStopsAtTheCpuLimit) {
  auto types = three_zone_types();
  NodePool pool = cpu_pool();
  pool.requirements[2] = {"karpenter.k8s.aws/instance-category", "In", {"c"}};
  pool.limits["cpu"] = 16000;
  std::vector<NodeClaimTemplate> tmpls{make_template(pool, types, {}, LabelDomain::Oss, {})};
  std::vector<k8s::Pod> pods;
  for (int i = 0; i < 6; ++i) pods.push_back(web("burst-" + std::to_string(i), 3000));
  std::vector<ExistingNode> none;
  auto res = solve(ptrs(pods), none, tmpls, LabelDomain::Oss);
  ASSERT_EQ(res.new_claims.size(), 4u);  // 4 x c5.xlarge = 16 vCPU
  ASSERT_EQ(res.errors.size(), 2u);
  for (const auto& [p, err] : res.errors) EXPECT_EQ(*err, "all available instance types exceed limits for nodepool: \"default\"");
}

}  // namespace
}  // namespace eksim::autoscaling::karpenter
