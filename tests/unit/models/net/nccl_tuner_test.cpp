#include "models/net/nccl_tuner.hpp"

#include <gtest/gtest.h>

#include "models/aws/instance_catalog.hpp"
#include "models/net/collectives.hpp"
#include "models/net/instance_network.hpp"

namespace eksim::net {
namespace {

constexpr double kMiB = 1 << 20;
constexpr double kGiB = 1 << 30;

RingTopology topology(const char* type, int nodes, int gpus_per_node, bool efa = true) {
  const aws::InstanceType* t = aws::InstanceCatalog::builtin().find(type);
  EXPECT_NE(t, nullptr) << type;
  const NetParams& params = default_net_params();
  LinkOptions options;
  options.efa_enabled = efa;
  return make_ring_topology(node_network_spec(*t, params), nodes, gpus_per_node, options, params);
}

std::pair<Algorithm, Protocol> pick(const RingTopology& t, double bytes) {
  const AlgoChoice c = choose_algorithm(Collective::AllReduce, t, bytes, default_net_params().nccl);
  return {c.algorithm, c.protocol};
}

CollectiveTiming all_reduce(const RingTopology& t, double bytes) {
  return nccl_collective(Collective::AllReduce, t, bytes, default_net_params().nccl);
}

// Two nodes: Tree for latency (one inter-node hop each way instead of 2 x nodes), NVLSTree once
// the NVSwitch multicast pays off.
TEST(NcclTuner, TwoP5NodesPickTreeThenNvlsTree) {
  const RingTopology t = topology("p5.48xlarge", 2, 8);
  EXPECT_EQ(pick(t, 8), std::make_pair(Algorithm::Tree, Protocol::LL));
  EXPECT_EQ(pick(t, kMiB), std::make_pair(Algorithm::Tree, Protocol::LL128));
  EXPECT_EQ(pick(t, 64 * kMiB), std::make_pair(Algorithm::NVLSTree, Protocol::Simple));
  EXPECT_EQ(pick(t, 16 * kGiB), std::make_pair(Algorithm::NVLSTree, Protocol::Simple));
}

TEST(NcclTuner, OneP5NodeUsesNvlsAndP4dRings) {
  const RingTopology p5 = topology("p5.48xlarge", 1, 8);
  EXPECT_EQ(pick(p5, 8), std::make_pair(Algorithm::Ring, Protocol::LL));
  EXPECT_EQ(pick(p5, 64 * kMiB), std::make_pair(Algorithm::NVLS, Protocol::Simple));
  // A100 has no NVLink SHARP: rings, Simple for large sizes.
  const RingTopology p4d = topology("p4d.24xlarge", 1, 8);
  EXPECT_EQ(pick(p4d, kGiB), std::make_pair(Algorithm::Ring, Protocol::Simple));
}

// Tree halves what crosses each NIC on two nodes: p4de's 2 GiB runs at about 1.9x the NIC rate in
// nccl-tests' busbw, beyond any ring.
TEST(NcclTuner, TwoP4deNodesTreeBeatsTheRingLimit) {
  const RingTopology t = topology("p4de.24xlarge", 2, 8);
  EXPECT_EQ(pick(t, 2 * kGiB), std::make_pair(Algorithm::Tree, Protocol::Simple));
  EXPECT_GT(all_reduce(t, 2 * kGiB).busbw_gbytes_per_s, 50.0);  // the 4 x 100 Gb NICs
}

// p4de's first-generation EFA does not deliver 128-byte writes in order, so aws-ofi-nccl sets
// NCCL_PROTO=simple: even 8 B run Tree/Simple across nodes; inside one node LL stays.
TEST(NcclTuner, FirstGenerationEfaRunsSimpleOnly) {
  EXPECT_EQ(pick(topology("p4de.24xlarge", 2, 8), 8), std::make_pair(Algorithm::Tree, Protocol::Simple));
  EXPECT_EQ(pick(topology("p4de.24xlarge", 2, 8), kMiB), std::make_pair(Algorithm::Tree, Protocol::Simple));
  EXPECT_EQ(pick(topology("p4de.24xlarge", 1, 8), 8).second, Protocol::LL);
  // Over sockets NCCL is free to pick LL.
  EXPECT_EQ(pick(topology("p4de.24xlarge", 2, 8, false), 8).second, Protocol::LL);
}

// The published points of README's NCCL calibration, each within its band's target (the band
// medians are what the targets bound; p5 x2 at 64 MiB, the worst point, within 25 %).
TEST(NcclTuner, PublishedPointsWithinTolerance) {
  EXPECT_NEAR(all_reduce(topology("p4d.24xlarge", 1, 8), kGiB).busbw_gbytes_per_s, 230.77, 0.10 * 230.77);
  EXPECT_NEAR(all_reduce(topology("p4de.24xlarge", 2, 8), 2 * kGiB).busbw_gbytes_per_s, 78.33, 0.10 * 78.33);
  EXPECT_NEAR(all_reduce(topology("p5.48xlarge", 1, 8), 16 * kGiB).busbw_gbytes_per_s, 483.1, 0.10 * 483.1);
  EXPECT_NEAR(all_reduce(topology("p5.48xlarge", 2, 8), 2 * kGiB).busbw_gbytes_per_s, 443.7, 0.10 * 443.7);
  EXPECT_NEAR(all_reduce(topology("p5.48xlarge", 2, 8), 64 * kMiB).busbw_gbytes_per_s, 209.2, 0.25 * 209.2);
  EXPECT_NEAR(all_reduce(topology("p4de.24xlarge", 2, 8), 64 * kMiB).busbw_gbytes_per_s, 47.58, 0.15 * 47.58);
  EXPECT_NEAR(all_reduce(topology("p5.48xlarge", 2, 8), 8).time_us, 69.1, 0.30 * 69.1);
  EXPECT_NEAR(all_reduce(topology("p4de.24xlarge", 2, 8), 8).time_us, 164.3, 0.30 * 164.3);
  // NCCL's sockets on a 100 Gb NIC (NVIDIA/nccl#398): 4.7 GB/s, not the NIC's 12.5.
  EXPECT_NEAR(all_reduce(topology("p3dn.24xlarge", 2, 1, false), 256 * kMiB).busbw_gbytes_per_s, 4.7, 0.10 * 4.7);
}

// The tuner's view differs from the wire's: aws-ofi-nccl tells NCCL 75 us on p5, EFA takes 20.
TEST(NcclTuner, TunerSeesThePluginLatencyTheWireTheHop) {
  const RingTopology t = topology("p5.48xlarge", 2, 8);
  const NcclParams& nccl = default_net_params().nccl;
  const AlgoCost tuner = algo_cost(Collective::AllReduce, t, Algorithm::Tree, Protocol::LL, View::Tuner, nccl);
  const AlgoCost real = algo_cost(Collective::AllReduce, t, Algorithm::Tree, Protocol::LL, View::Real, nccl);
  // 6.8 + 2 x (7 x 0.6 + 1 x (5.0 + latency))
  EXPECT_NEAR(tuner.latency_us, 6.8 + 2 * (7 * 0.6 + 5.0 + 75), 1e-9);
  EXPECT_NEAR(real.latency_us, 6.8 + 2 * (7 * 0.6 + 5.0 + 20), 1e-9);
}

TEST(NcclTuner, NoNvlsWithoutNvSwitchAndNoTreeForAllGather) {
  const NcclParams& nccl = default_net_params().nccl;
  const RingTopology g5 = topology("g5.48xlarge", 1, 8);
  EXPECT_EQ(algo_cost(Collective::AllReduce, g5, Algorithm::NVLS, Protocol::Simple, View::Tuner, nccl).bandwidth, 0);
  const RingTopology p5 = topology("p5.48xlarge", 2, 8);
  EXPECT_EQ(algo_cost(Collective::AllGather, p5, Algorithm::Tree, Protocol::Simple, View::Tuner, nccl).bandwidth, 0);
  EXPECT_EQ(choose_algorithm(Collective::Broadcast, p5, kGiB, nccl).algorithm, Algorithm::Ring);
}

// NCCL 2.21.5 (PyTorch 2.5): Tree Simple had no base latency and 28 us per hop, and a one-GPU
// node's network hop was its algorithm's own (ring LL: 2.7 us, not Tree's 5.0), so two single-GPU
// nodes run ring LL at 8 B where 2.27 runs Tree LL.
TEST(NcclTuner, TheImagesNcclVersionTunes) {
  RingTopology t = topology("g5.xlarge", 2, 1, false);
  EXPECT_EQ(pick(t, 8), std::make_pair(Algorithm::Tree, Protocol::LL));
  t.nccl_version = 22105;
  EXPECT_EQ(pick(t, 8), std::make_pair(Algorithm::Ring, Protocol::LL));
  const NcclParams& nccl = default_net_params().nccl;
  const AlgoCost tree = algo_cost(Collective::AllReduce, t, Algorithm::Tree, Protocol::Simple, View::Tuner, nccl);
  EXPECT_DOUBLE_EQ(tree.latency_us, 2 * (0 * 28.0 + 1 * 28.0));  // 0 + 2 x ((ppn-1) x 28 + log2(2) x 28)
}

}  // namespace
}  // namespace eksim::net
