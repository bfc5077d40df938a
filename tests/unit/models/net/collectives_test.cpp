#include "models/net/collectives.hpp"

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

// A ring of n single-GPU nodes has every step on the network, so the topology model must equal
// NCCL's base latency plus the closed form with α = NET hop + RTT/2 and B = the NIC share.
TEST_P(NetRingClosedForm, TopologyModelReducesToClosedForm) {
  const auto [n, s, a, b] = GetParam();
  RingTopology t;
  t.nodes = n;
  t.gpus_per_node = 1;
  t.inter.gbytes_per_s = b;
  t.inter.rtt_us = 2.0 * a;  // α = hop + RTT/2 below
  NcclParams nccl = default_net_params().nccl;
  for (Protocol p : {Protocol::LL, Protocol::Simple}) {
    const CollectiveTiming got = ring_collective_with(Collective::AllReduce, t, s, p, nccl);
    const auto i = static_cast<std::size_t>(p);
    const double eff = p == Protocol::LL ? 0.25 : 1.0;
    const double want = nccl.ring_base_latency_us[i] +
                        ring_alpha_beta_us(Collective::AllReduce, n, s, nccl.hop_latency_net_us[i] + a, b * eff);
    EXPECT_NEAR(got.time_us, want, 1e-9 * want) << protocol_name(p);
  }
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
  const NcclParams& nccl = default_net_params().nccl;
  for (double s : {8.0, 4096.0, 1048576.0, 268435456.0}) {
    const CollectiveTiming ar = ring_collective(Collective::AllReduce, t, s, nccl);
    EXPECT_DOUBLE_EQ(ar.busbw_gbytes_per_s / ar.algbw_gbytes_per_s, 2.0 * 7 / 8);
    EXPECT_DOUBLE_EQ(ar.algbw_gbytes_per_s, s / (ar.time_us * 1e3));
    const CollectiveTiming ag = ring_collective(Collective::AllGather, t, s, nccl);
    EXPECT_DOUBLE_EQ(ag.busbw_gbytes_per_s / ag.algbw_gbytes_per_s, 7.0 / 8);
    const CollectiveTiming bc = ring_collective(Collective::Broadcast, t, s, nccl);
    EXPECT_DOUBLE_EQ(bc.busbw_gbytes_per_s, bc.algbw_gbytes_per_s);
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

TEST(NetCollectives, SmallMessagesUseLLLargeUseSimple) {
  RingTopology t;
  t.nodes = 2;
  t.inter.gbytes_per_s = 0.3125;
  t.inter.tuner_gbytes_per_s = 1.25;
  t.inter.rtt_us = 200;
  const NcclParams& nccl = default_net_params().nccl;
  EXPECT_EQ(choose_protocol(Collective::AllReduce, t, 8, nccl), Protocol::LL);
  EXPECT_EQ(choose_protocol(Collective::AllReduce, t, 16384, nccl), Protocol::LL);
  EXPECT_EQ(choose_protocol(Collective::AllReduce, t, 32768, nccl), Protocol::Simple);
  EXPECT_EQ(choose_protocol(Collective::AllReduce, t, 1 << 30, nccl), Protocol::Simple);
}

}  // namespace
}  // namespace eksim::net
