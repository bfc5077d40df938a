#include "models/net/instance_network.hpp"

#include <gtest/gtest.h>

namespace eksim::net {
namespace {

NodeNetworkSpec spec_of(const char* type) {
  const aws::InstanceType* t = aws::InstanceCatalog::builtin().find(type);
  EXPECT_NE(t, nullptr) << type;
  return node_network_spec(*t, default_net_params());
}

TEST(InstanceNetwork, NvlinkAsNcclCountsItPerGpuGeneration) {
  EXPECT_DOUBLE_EQ(spec_of("p4d.24xlarge").intra_gbytes_per_s, 12 * 20.0);
  EXPECT_DOUBLE_EQ(spec_of("p5.48xlarge").intra_gbytes_per_s, 18 * 20.6);
  const NodeNetworkSpec b200 = spec_of("p6-b200.48xlarge");
  EXPECT_EQ(b200.intra, Interconnect::NVLink);  // the catalog has no NVLink figure for it
  EXPECT_DOUBLE_EQ(b200.intra_gbytes_per_s, 18 * 40.0);
  EXPECT_EQ(b200.gpu.arch, GpuArch::Blackwell);
  EXPECT_TRUE(b200.gpu.nvls);
  EXPECT_FALSE(spec_of("p4d.24xlarge").gpu.nvls);
}

TEST(InstanceNetwork, EfaRailsAndPluginLatencyPerFamily) {
  const NodeNetworkSpec p5 = spec_of("p5.48xlarge");
  EXPECT_DOUBLE_EQ(p5.nic_baseline_gbps, 3200);
  EXPECT_DOUBLE_EQ(p5.efa_hw.plugin_latency_us, 75);
  EXPECT_TRUE(p5.cpu_amd);
  const NodeNetworkSpec p5en = spec_of("p5en.48xlarge");
  EXPECT_DOUBLE_EQ(p5en.efa_hw.plugin_latency_us, 35);
  EXPECT_DOUBLE_EQ(spec_of("p4d.24xlarge").nic_baseline_gbps, 400);
  EXPECT_TRUE(p5.efa_hw.in_order_128b);
  EXPECT_FALSE(spec_of("p4d.24xlarge").efa_hw.in_order_128b);
}

TEST(InstanceNetwork, PcieBoardsAndSingleGpuTypes) {
  const NodeNetworkSpec g5 = spec_of("g5.xlarge");
  EXPECT_EQ(g5.intra, Interconnect::PCIe);
  EXPECT_FALSE(g5.efa);
  EXPECT_EQ(spec_of("g5.48xlarge").intra, Interconnect::PCIe);
  EXPECT_EQ(spec_of("p5.4xlarge").intra, Interconnect::PCIe);  // one H100: no ring edge inside
}

}  // namespace
}  // namespace eksim::net
