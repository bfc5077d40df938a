// Karpenter's capacity estimate for an instance type before launch.
#include "models/autoscaling/karpenter/instance_types.hpp"

#include <gtest/gtest.h>

#include "models/autoscaling/karpenter/controller.hpp"
#include "models/aws/instance_catalog.hpp"

namespace eksim::autoscaling::karpenter {
namespace {

std::int64_t pods_of(const char* type, int reserved_enis) {
  InstanceTypeOptions opts;
  opts.region = "ap-northeast-2";
  opts.zones = {"ap-northeast-2a"};
  opts.reserved_enis = reserved_enis;
  const aws::InstanceType* t = aws::InstanceCatalog::builtin().find(type);
  EXPECT_NE(t, nullptr);
  return build_instance_type(*t, opts, NodeClass{}).capacity.get(k8s::kPods);
}

// t3.medium: 3 ENIs x 6 IPv4 each. ENILimitedPods = (ENIs - RESERVED_ENIS) * (IPs - 1) + 2, and 0
// once no ENI is left for pods.
TEST(KarpenterInstanceTypes, ReservedEnisCarryNoPods) {
  EXPECT_EQ(pods_of("t3.medium", 0), 17);
  EXPECT_EQ(pods_of("t3.medium", 1), 12);
  EXPECT_EQ(pods_of("t3.medium", 3), 0);
}

TEST(KarpenterSettings, InterruptionQueueAndReservedEnisFromFlags) {
  Settings oss = settings_from_flags({}, false);
  EXPECT_TRUE(oss.interruption_queue.empty()) << "the chart's default: interruption handling off";
  EXPECT_EQ(oss.reserved_enis, 0);
  Settings s = settings_from_flags({{"interruption-queue", "training-on-eks"}, {"reserved-enis", "1"}}, false);
  EXPECT_EQ(s.interruption_queue, "training-on-eks");
  EXPECT_EQ(s.reserved_enis, 1);
}

}  // namespace
}  // namespace eksim::autoscaling::karpenter
