// Karpenter over the whole catalog: for every type, the allocatable Karpenter computes (VM
// memory overhead, kube-reserved, eviction threshold, ENI-limited pods) must equal the
// `karpenterAllocatable` its generated instance-type reference lists, and the well-known labels
// must carry the reference's values (DoesNotExist where the type has none).
#include <gtest/gtest.h>

#include <string>

#include "models/autoscaling/karpenter/instance_types.hpp"
#include "models/aws/instance_catalog.hpp"
#include "models/k8s/kubelet/allocatable.hpp"

namespace eksim::autoscaling::karpenter {
namespace {

InstanceTypeOptions us_east_1() {
  InstanceTypeOptions opts;
  opts.region = "us-east-1";
  opts.zones = {"us-east-1a", "us-east-1b"};
  return opts;
}

TEST(KarpenterCatalog, AllocatableEqualsTheReferenceForEveryType) {
  int compared = 0;
  for (const auto& t : aws::InstanceCatalog::builtin().all()) {
    if (!t.karpenter_allocatable.known) continue;
    const InstanceTypeInfo info = build_instance_type(t, us_east_1(), NodeClass{});
    const auto& ka = t.karpenter_allocatable;
    EXPECT_EQ(info.allocatable.get(k8s::kCpu), ka.cpu_milli) << t.name;
    EXPECT_EQ(info.allocatable.get(k8s::kMemory), ka.memory_mib * k8s::kMiB) << t.name;
    EXPECT_EQ(info.allocatable.get(k8s::kPods), ka.pods) << t.name;
    ++compared;
  }
  EXPECT_EQ(compared, 1363);  // every type the preview reference lists
}

TEST(KarpenterCatalog, EksMaxPodsFollowsTheEniFormulaForEveryType) {
  int compared = 0;
  for (const auto& t : aws::InstanceCatalog::builtin().all()) {
    if (t.default_card_enis == 0) {
      EXPECT_EQ(t.eks_max_pods, 0) << t.name;
      continue;
    }
    EXPECT_EQ(k8s::eni_max_pods(t.default_card_enis, t.ipv4_per_eni), t.eks_max_pods) << t.name;
    ++compared;
  }
  EXPECT_EQ(compared, 1378);
}

std::string label(const Requirements& r, const std::string& key) {
  const Requirement* q = r.find(key);
  if (!q) return "<absent>";
  if (q->op() == "DoesNotExist") return "<none>";
  return q->any();
}

TEST(KarpenterCatalog, WellKnownLabelsForEveryType) {
  const std::string k = "karpenter.k8s.aws/";
  for (const auto& t : aws::InstanceCatalog::builtin().all()) {
    if (t.arch.empty()) continue;  // macs: not in Karpenter's reference, EKS does not run them
    const Requirements r = instance_type_requirements(t, LabelDomain::Oss);
    SCOPED_TRACE(t.name);
    EXPECT_EQ(label(r, "node.kubernetes.io/instance-type"), t.name);
    EXPECT_EQ(label(r, "kubernetes.io/arch"), t.arch);
    EXPECT_EQ(label(r, k + "instance-category"), t.category);
    EXPECT_EQ(label(r, k + "instance-family"), t.family);
    EXPECT_EQ(label(r, k + "instance-generation"), std::to_string(t.generation));
    EXPECT_EQ(label(r, k + "instance-size"), t.size);
    EXPECT_EQ(label(r, k + "instance-cpu"), std::to_string(t.vcpu));
    EXPECT_EQ(label(r, k + "instance-cpu-manufacturer"), t.cpu_manufacturer);
    EXPECT_EQ(label(r, k + "instance-memory"), std::to_string(t.memory_mib));
    EXPECT_EQ(label(r, k + "instance-hypervisor"), t.bare_metal ? "" : t.hypervisor);
    EXPECT_EQ(label(r, k + "instance-capability-flex"), t.name.find("-flex.") != std::string::npos ? "true" : "false");
    if (t.gpu.name.empty()) {
      EXPECT_EQ(label(r, k + "instance-gpu-count"), "<none>");
      EXPECT_EQ(label(r, k + "instance-gpu-name"), "<none>");
    } else {
      EXPECT_EQ(label(r, k + "instance-gpu-name"), t.gpu.name);
      EXPECT_EQ(label(r, k + "instance-gpu-manufacturer"), t.gpu.manufacturer);
      EXPECT_EQ(label(r, k + "instance-gpu-count"), std::to_string(t.gpu.count));
      EXPECT_EQ(label(r, k + "instance-gpu-memory"), std::to_string(t.gpu.memory_mib));
    }
    EXPECT_EQ(label(r, k + "instance-accelerator-name"), t.accelerator.count ? t.accelerator.name : "<none>");
    EXPECT_EQ(label(r, k + "instance-local-nvme"), t.local_nvme_gb ? std::to_string(t.local_nvme_gb) : "<none>");
    EXPECT_EQ(label(r, k + "instance-ebs-bandwidth"),
              t.ebs_bandwidth_mbps ? std::to_string(t.ebs_bandwidth_mbps) : "<none>");
  }
}

// Spot checks against the reference's own rows (not derived from the catalog fields).
TEST(KarpenterCatalog, ReferenceRows) {
  const auto& cat = aws::InstanceCatalog::builtin();
  const std::string k = "karpenter.k8s.aws/";
  const Requirements g5 = instance_type_requirements(*cat.find("g5.xlarge"), LabelDomain::Oss);
  EXPECT_EQ(label(g5, k + "instance-gpu-memory"), "22888");  // EC2's MiB, not 24 GiB
  EXPECT_EQ(label(g5, k + "instance-network-bandwidth"), "2500");
  EXPECT_EQ(label(g5, k + "instance-local-nvme"), "250");
  EXPECT_EQ(label(g5, k + "instance-cpu-manufacturer"), "amd");
  const Requirements m7g = instance_type_requirements(*cat.find("m7g.large"), LabelDomain::Oss);
  EXPECT_EQ(label(m7g, "kubernetes.io/arch"), "arm64");
  EXPECT_EQ(label(m7g, k + "instance-cpu-manufacturer"), "aws");
  EXPECT_EQ(label(m7g, k + "instance-local-nvme"), "<none>");
  const Requirements flex = instance_type_requirements(*cat.find("c7i-flex.large"), LabelDomain::Oss);
  EXPECT_EQ(label(flex, k + "instance-capability-flex"), "true");
  EXPECT_EQ(label(flex, k + "instance-family"), "c7i-flex");
  const Requirements inf2 = instance_type_requirements(*cat.find("inf2.xlarge"), LabelDomain::Oss);
  EXPECT_EQ(label(inf2, k + "instance-accelerator-name"), "inferentia2");
  EXPECT_EQ(label(inf2, k + "instance-accelerator-count"), "1");
  EXPECT_EQ(label(inf2, k + "instance-gpu-count"), "<none>");
  const Requirements metal = instance_type_requirements(*cat.find("m5.metal"), LabelDomain::Oss);
  EXPECT_EQ(label(metal, k + "instance-hypervisor"), "");
  const Requirements u = instance_type_requirements(*cat.find("u-6tb1.56xlarge"), LabelDomain::Oss);
  EXPECT_EQ(label(u, k + "instance-family"), "u-6tb1");
}

// A type without an On-Demand price in the region has no offerings at all.
TEST(KarpenterCatalog, NoPriceNoOffering) {
  const auto& cat = aws::InstanceCatalog::builtin();
  InstanceTypeOptions opts;
  opts.region = "eu-west-1";
  opts.zones = {"eu-west-1a"};
  EXPECT_TRUE(build_instance_type(*cat.find("m5.large"), opts, NodeClass{}).offerings.empty());
  aws::PricingSpec spec;
  spec.prices.push_back({"eu-west-1", "m5.large", false, 0.107, ""});
  const aws::PriceBook prices("eu-west-1", spec);
  opts.prices = &prices;
  const auto info = build_instance_type(*cat.find("m5.large"), opts, NodeClass{});
  ASSERT_EQ(info.offerings.size(), 2u);
  EXPECT_EQ(info.offerings[0].capacity_type, "spot");
  EXPECT_DOUBLE_EQ(info.offerings[0].price, 0.107 * cat.find("m5.large")->spot_price_factor);
  EXPECT_DOUBLE_EQ(info.offerings[1].price, 0.107);
}

}  // namespace
}  // namespace eksim::autoscaling::karpenter
