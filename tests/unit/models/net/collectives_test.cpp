#include "models/net/collectives.hpp"
#include "models/net/links.hpp"

#include <gtest/gtest.h>

namespace eksim::net {
namespace {

struct ClosedFormCase {
  int n;
  double bytes;
  double alpha_us;
  double gbytes_per_s;
};

class NetRingClosedForm : public ::testing::TestWithParam<ClosedFormCase> {};

TEST_P(NetRingClosedForm, MatchesTheTextbookFormulas) {
  const auto [n, s, a, b] = GetParam();
  const double sb = s / (b * 1e3);  // µs
  EXPECT_DOUBLE_EQ(ring_alpha_beta_us(Collective::AllReduce, n, s, a, b), 2.0 * (n - 1) * a + 2.0 * (n - 1) / n * sb);
  EXPECT_DOUBLE_EQ(ring_alpha_beta_us(Collective::AllGather, n, s, a, b), (n - 1) * a + (n - 1.0) / n * sb);
  EXPECT_DOUBLE_EQ(ring_alpha_beta_us(Collective::ReduceScatter, n, s, a, b), (n - 1) * a + (n - 1.0) / n * sb);
  EXPECT_DOUBLE_EQ(ring_alpha_beta_us(Collective::Broadcast, n, s, a, b), (n - 1) * a + sb);
}

INSTANTIATE_TEST_SUITE_P(Cases, NetRingClosedForm,
                         ::testing::Values(ClosedFormCase{2, 8, 100, 0.3125}, ClosedFormCase{2, 1 << 30, 10, 50},
                                           ClosedFormCase{4, 1 << 20, 5, 12.5}, ClosedFormCase{8, 65536, 2, 24},
                                           ClosedFormCase{16, 2147483648.0, 1, 400},
                                           ClosedFormCase{3, 1000, 0.5, 1}));

TEST(NetCollectives, BusbwOverAlgbwIsTheNcclTestsFactor) {
  RingTopology t;
  t.nodes = 4;
  t.gpus_per_node = 2;
  t.intra_gbytes_per_s = 24;
  t.inter.gbytes_per_s = 3;
  t.inter.tuner_gbytes_per_s = 1.25;
  t.inter.hop_latency_us = 100;
  const NcclParams& nccl = default_net_params().nccl;
  for (double s : {8.0, 4096.0, 1048576.0, 268435456.0}) {
    const CollectiveTiming ar = nccl_collective(Collective::AllReduce, t, s, nccl);
    EXPECT_DOUBLE_EQ(ar.busbw_gbytes_per_s / ar.algbw_gbytes_per_s, 2.0 * 7 / 8);
    EXPECT_DOUBLE_EQ(ar.algbw_gbytes_per_s, s / (ar.time_us * 1e3));
    const CollectiveTiming ag = nccl_collective(Collective::AllGather, t, s, nccl);
    EXPECT_DOUBLE_EQ(ag.busbw_gbytes_per_s / ag.algbw_gbytes_per_s, 7.0 / 8);
    const CollectiveTiming bc = nccl_collective(Collective::Broadcast, t, s, nccl);
    EXPECT_DOUBLE_EQ(bc.busbw_gbytes_per_s, bc.algbw_gbytes_per_s);
    const CollectiveTiming rd = nccl_collective(Collective::Reduce, t, s, nccl);
    EXPECT_DOUBLE_EQ(rd.busbw_gbytes_per_s, rd.algbw_gbytes_per_s);
    const CollectiveTiming a2a = nccl_collective(Collective::AllToAll, t, s, nccl);
    EXPECT_EQ(a2a.algorithm, Algorithm::P2P);
    EXPECT_DOUBLE_EQ(a2a.busbw_gbytes_per_s / a2a.algbw_gbytes_per_s, 7.0 / 8);
  }
  for (int n : {2, 3, 8, 16}) EXPECT_DOUBLE_EQ(busbw_factor(Collective::AllReduce, n), 2.0 * (n - 1) / n);
}

TEST(NetCollectives, RingStepsFollowNcclTuning) {
  EXPECT_EQ(ring_steps(Collective::AllReduce, 16, 2).total, 30);
  EXPECT_EQ(ring_steps(Collective::AllReduce, 16, 2).inter_node, 4);
  EXPECT_EQ(ring_steps(Collective::AllReduce, 2, 2).inter_node, 2);  // 2·nodes capped at the step count
  EXPECT_EQ(ring_steps(Collective::AllGather, 16, 2).total, 15);
  EXPECT_EQ(ring_steps(Collective::AllGather, 16, 2).inter_node, 1);
  EXPECT_EQ(ring_steps(Collective::AllReduce, 8, 1).inter_node, 0);
}

// Alltoall over two nodes of 8 GPUs: each node sends 8 x S x 8/16 through its NICs; at 1 GiB that
// dominates the NVLink part (S x 7/16 per GPU) and the one hop of latency.
TEST(NetCollectives, AllToAllIsBoundByTheNodesNicShare) {
  RingTopology t;
  t.nodes = 2;
  t.gpus_per_node = 8;
  t.intra = Interconnect::NVLink;
  t.intra_gbytes_per_s = 240;
  t.inter.transport = NetTransport::Efa;
  t.inter.gbytes_per_s = 50;
  const NcclParams& nccl = default_net_params().nccl;
  const double s = 1 << 30;
  const CollectiveTiming a2a = nccl_collective(Collective::AllToAll, t, s, nccl);
  const double nic_us = s * 8 * 8 / 16 / (50 * nccl.net_bandwidth_efficiency * 1e3);
  EXPECT_NEAR(a2a.time_us, nic_us, 0.001 * nic_us);
  EXPECT_GT(a2a.time_us, nic_us);
}

// Two g5.12xlarge (4 PCIe A10G, one 40 Gbps NIC with first-generation EFA): an all-reduce over
// EFA in one AZ is never slower than NCCL's sockets on the same NIC, and those never slower than
// sockets across AZs, at any size nccl-tests sweeps (the fill of Simple's chunks and the share of
// the line rate hold for both transports; only the latency differs).
TEST(NetCollectives, EfaInOneAzIsNeverSlowerThanSocketsOrCrossAz) {
  const NetParams& params = default_net_params();
  NodeNetworkSpec g5;
  g5.instance_type = "g5.12xlarge";
  g5.nic_baseline_gbps = g5.nic_burst_gbps = 40;
  g5.efa = true;
  g5.efa_hw = efa_hardware(params, "g5");
  g5.gpus = 4;
  LinkOptions efa, sockets, cross_az;
  sockets.efa_enabled = false;
  cross_az.cross_az = true;
  const RingTopology t_efa = make_ring_topology(g5, 2, 4, efa, params);
  const RingTopology t_sock = make_ring_topology(g5, 2, 4, sockets, params);
  const RingTopology t_cross = make_ring_topology(g5, 2, 4, cross_az, params);
  ASSERT_EQ(t_efa.inter.transport, NetTransport::Efa);
  ASSERT_EQ(t_cross.inter.transport, NetTransport::Socket);
  for (double s = 8; s <= 1 << 30; s *= 2) {
    const double e = nccl_collective(Collective::AllReduce, t_efa, s, params.nccl).time_us;
    const double k = nccl_collective(Collective::AllReduce, t_sock, s, params.nccl).time_us;
    const double x = nccl_collective(Collective::AllReduce, t_cross, s, params.nccl).time_us;
    EXPECT_LE(e, k) << s << " B";
    EXPECT_LE(k, x) << s << " B";
  }
}

TEST(NetCollectives, OneRankCostsOneKernelLaunch) {
  RingTopology t;
  const CollectiveTiming one = nccl_collective(Collective::AllReduce, t, 1 << 20, default_net_params().nccl);
  EXPECT_DOUBLE_EQ(one.time_us, 6.6);
}

}  // namespace
}  // namespace eksim::net
