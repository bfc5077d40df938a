#include "models/net/instance_network.hpp"
#include "models/net/collectives.hpp"

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

// g5.48xlarge's 192 vCPUs span two 48-core EPYC sockets: a ring over its 8 GPUs crosses the socket
// link (NCCL's AMD_BW, 16 GB/s), one over 4 GPUs stays under one socket's PCIe (24 GB/s);
// g5.24xlarge has one socket. g4dn.metal's Xeons are linked at NCCL's SKL_QPI_BW (10 GB/s).
TEST(InstanceNetwork, RingsOverTwoSocketsRunAtTheSocketLink) {
  const NetParams& p = default_net_params();
  const NodeNetworkSpec g5_48 = spec_of("g5.48xlarge");
  EXPECT_EQ(g5_48.cpu_sockets, 2);
  EXPECT_EQ(spec_of("g5.24xlarge").cpu_sockets, 1);
  EXPECT_EQ(spec_of("g4dn.12xlarge").cpu_sockets, 1);
  const RingTopology all8 = make_ring_topology(g5_48, 1, 8, {}, p);
  EXPECT_DOUBLE_EQ(all8.intra_gbytes_per_s, 16.0);
  EXPECT_EQ(all8.cpu_sockets_crossed, 2);
  const RingTopology half = make_ring_topology(g5_48, 1, 4, {}, p);
  EXPECT_DOUBLE_EQ(half.intra_gbytes_per_s, 24.0);
  EXPECT_EQ(half.cpu_sockets_crossed, 1);
  EXPECT_DOUBLE_EQ(make_ring_topology(spec_of("g4dn.metal"), 1, 8, {}, p).intra_gbytes_per_s, 10.0);
  EXPECT_DOUBLE_EQ(make_ring_topology(spec_of("g5.24xlarge"), 1, 4, {}, p).intra_gbytes_per_s, 24.0);
  // The p4d's NVLink is not a PCIe ring: sockets do not matter.
  EXPECT_DOUBLE_EQ(make_ring_topology(spec_of("p4d.24xlarge"), 1, 8, {}, p).intra_gbytes_per_s, 12 * 20.0);
  // One node of 8 over the socket link is slower than one of 4 under one socket, at 1 GiB.
  const double s = 1 << 30;
  EXPECT_LT(nccl_collective(Collective::AllReduce, all8, s, p.nccl).busbw_gbytes_per_s,
            nccl_collective(Collective::AllReduce, half, s, p.nccl).busbw_gbytes_per_s);
}

}  // namespace
}  // namespace eksim::net
