#include "models/autoscaling/karpenter/requirements.hpp"

#include <gtest/gtest.h>

namespace eksim::autoscaling::karpenter {
namespace {

Requirement R(const std::string& op, std::vector<std::string> v = {}) { return Requirement("key", op, v); }

// Table from upstream requirement_test.go "Compatible": does A intersect B?
struct CompatCase {
  Requirement a, b;
  bool compatible;
};

TEST(KarpenterRequirements, IntersectionTableAllOperators) {
  const Requirement exists = R("Exists"), dne = R("DoesNotExist"), inA = R("In", {"A"}), inB = R("In", {"B"}),
                    inAB = R("In", {"A", "B"}), notInA = R("NotIn", {"A"}), in1 = R("In", {"1"}), in9 = R("In", {"9"}),
                    in19 = R("In", {"19"}), gt1 = R("Gt", {"1"}), gt9 = R("Gt", {"9"}), lt1 = R("Lt", {"1"}),
                    lt9 = R("Lt", {"9"});
  const std::vector<CompatCase> table{
      {exists, exists, true},  {exists, dne, false},    {exists, inA, true},  {exists, notInA, true},
      {dne, dne, false},       {dne, inA, false},       {inA, inA, true},     {inA, inB, false},
      {inA, inAB, true},       {inA, notInA, false},    {inB, notInA, true},  {notInA, notInA, true},
      {gt1, in1, false},       {gt1, in9, true},        {gt1, lt1, false},    {gt1, lt9, true},
      {gt9, lt9, false},       {lt9, in1, true},        {lt9, in9, false},    {lt9, in19, false},
      {gt9, in19, true},       {gt1, inA, false},       {lt9, notInA, true},  {gt1, gt9, true},
  };
  for (const auto& c : table) {
    bool got = c.a.intersection(c.b).len() > 0;
    EXPECT_EQ(got, c.compatible) << c.a.str() << " x " << c.b.str();
    EXPECT_EQ(c.b.intersection(c.a).len() > 0, c.compatible) << "symmetric: " << c.b.str() << " x " << c.a.str();
  }
}

TEST(KarpenterRequirements, OperatorsAndStrings) {
  EXPECT_EQ(R("In", {"b", "a"}).str(), "key In [a b]");
  EXPECT_EQ(R("NotIn", {"a"}).str(), "key NotIn [a]");
  EXPECT_EQ(R("Exists").str(), "key Exists");
  EXPECT_EQ(R("DoesNotExist").str(), "key DoesNotExist");
  EXPECT_EQ(R("Gt", {"4"}).str(), "key Exists >4");
  EXPECT_EQ(R("Gt", {"4"}).intersection(R("Lt", {"8"})).str(), "key Exists >4 <8");
  EXPECT_EQ(R("In", {"1", "2", "3", "4", "5", "6", "7"}).str(), "key In [1 2 3 4 5 and 2 others]");
  // Bounds vanish once the set is concrete; non-integers fall outside any bound.
  EXPECT_EQ(R("Gt", {"4"}).intersection(R("In", {"3", "5", "x"})).str(), "key In [5]");
  EXPECT_EQ(R("Gt", {"8"}).intersection(R("Lt", {"4"})).op(), "DoesNotExist");
  EXPECT_TRUE(R("Gt", {"4"}).has("5"));
  EXPECT_FALSE(R("Gt", {"4"}).has("4"));
  EXPECT_FALSE(R("Lt", {"4"}).has("abc"));
  EXPECT_TRUE(R("NotIn", {"a"}).has("b"));
}

TEST(KarpenterRequirements, CompatibleUndefinedKeys) {
  const auto& wk = well_known_labels(LabelDomain::Oss);
  Requirements pool = Requirements::from_node_selector({{"karpenter.k8s.aws/instance-category", "In", {"g", "p"}}});
  // Well-known keys the pool does not define are allowed.
  EXPECT_EQ(pool.compatible(Requirements::from_labels({{"kubernetes.io/arch", "amd64"}}), wk), "");
  // Custom keys must be defined by the pool...
  EXPECT_EQ(pool.compatible(Requirements::from_labels({{"team", "ml"}}), wk), "label \"team\" does not have known values");
  // ...unless the pod says NotIn / DoesNotExist.
  EXPECT_EQ(pool.compatible(Requirements::from_node_selector({{"team", "NotIn", {"ml"}}}), wk), "");
  EXPECT_EQ(pool.compatible(Requirements::from_node_selector({{"team", "DoesNotExist", {}}}), wk), "");
  // Defined on both sides: must intersect.
  EXPECT_EQ(pool.compatible(Requirements::from_labels({{"karpenter.k8s.aws/instance-category", "c"}}), wk),
            "key karpenter.k8s.aws/instance-category, karpenter.k8s.aws/instance-category In [c] not in "
            "karpenter.k8s.aws/instance-category In [g p]");
  // Typo hints as upstream prints them.
  EXPECT_EQ(Requirements().compatible(Requirements::from_node_selector({{"capacity-type", "Exists", {}}}), wk),
            "label \"capacity-type\" does not have known values (typo of \"karpenter.sh/capacity-type\"?)");
}

TEST(KarpenterRequirements, AutoModeKeysAreCustomUnderOss) {
  // Lab 002: eks.amazonaws.com/instance-category under OSS Karpenter filters no instance type,
  // because no instance type defines the key (Intersects only compares keys both sides define).
  Requirements pool = Requirements::from_node_selector({{"eks.amazonaws.com/instance-category", "In", {"g", "p"}}});
  Requirements cpu_type = Requirements::from_labels({{"karpenter.k8s.aws/instance-category", "t"}});
  EXPECT_EQ(cpu_type.intersects(pool), "");
  EXPECT_EQ(pool.labels().at("eks.amazonaws.com/instance-category"), "g");
  EXPECT_FALSE(well_known_labels(LabelDomain::Oss).count("eks.amazonaws.com/instance-category"));
  EXPECT_TRUE(well_known_labels(LabelDomain::AutoMode).count("eks.amazonaws.com/instance-category"));
  EXPECT_TRUE(restricted_label(LabelDomain::Oss, "karpenter.k8s.aws/foo"));
  EXPECT_FALSE(restricted_label(LabelDomain::Oss, "eks.amazonaws.com/instance-category"));
  EXPECT_FALSE(restricted_label(LabelDomain::Oss, "node.kubernetes.io/instance-type"));
  EXPECT_TRUE(restricted_label(LabelDomain::Oss, "kubernetes.io/foo"));
}

TEST(KarpenterRequirements, TaintsTolerationText) {
  std::vector<k8s::Taint> taints{{"gpu-workload", "", "NoSchedule"}, {"nvidia.com/gpu", "present", "NoSchedule"}};
  std::vector<k8s::Toleration> tol{{"nvidia.com/gpu", "Exists", "", "NoSchedule", std::nullopt}};
  EXPECT_EQ(tolerates(taints, tol), "did not tolerate gpu-workload=:NoSchedule");
  EXPECT_EQ(tolerates(taints, {}), "did not tolerate gpu-workload=:NoSchedule; did not tolerate nvidia.com/gpu=present:NoSchedule");
}

}  // namespace
}  // namespace eksim::autoscaling::karpenter
