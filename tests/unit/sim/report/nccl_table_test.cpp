#include "sim/report/nccl_table.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <sstream>

namespace eksim::report {
namespace {

net::NodeNetworkSpec g5_xlarge() {
  net::NodeNetworkSpec s;
  s.instance_type = "g5.xlarge";
  s.nic_baseline_gbps = 2.5;
  s.nic_burst_gbps = 10;
  s.nic_up_to = true;
  return s;
}

TEST(NcclTable, FloatFormatsLikeNcclTests) {
  EXPECT_EQ(nccl_float(212.0, 7), " 212.00");
  EXPECT_EQ(nccl_float(0.31234, 6), "  0.31");
  EXPECT_EQ(nccl_float(12345.6, 7), "12345.6");
  EXPECT_EQ(nccl_float(429731.0, 7), " 429731");
  EXPECT_EQ(nccl_float(0.0, 6), "  0.00");
  // Past the largest power of ten a uint64 holds, and infinity, end in the exponent form.
  EXPECT_EQ(nccl_float(std::numeric_limits<double>::infinity(), 7), "    inf");
  EXPECT_EQ(nccl_float(1e25, 7), "1.0e+25");
}

TEST(NcclTable, G5XlargeTwoNodesLargeMessageBusbwIsTheNicBaseline) {
  NcclTableRequest req;
  req.node = g5_xlarge();
  req.nodes = 2;
  req.max_bytes = 1ULL << 30;
  const auto rows = all_reduce_rows(req, net::default_net_params());
  ASSERT_FALSE(rows.empty());
  const auto& last = rows.back();
  EXPECT_EQ(last.bytes, 1ULL << 30);
  EXPECT_EQ(last.timing.protocol, net::Protocol::Simple);
  // 2.5 Gbps baseline = 0.3125 GB/s, of which a collective sees net_bandwidth_efficiency; with
  // n = 2, busbw = algbw -> S/B plus Simple's pipeline fill (4 MiB at that rate) and under 1 ms of
  // latency.
  const double rate = 0.3125 * net::default_net_params().nccl.net_bandwidth_efficiency;
  const double s = 1 << 30;
  EXPECT_NEAR(last.timing.busbw_gbytes_per_s, rate * s / (s + 4194304.0), 0.0001);
  EXPECT_LT(last.timing.busbw_gbytes_per_s, rate);
  EXPECT_EQ(rows.front().bytes, 8u);
  EXPECT_EQ(rows.front().count, 2u);
  EXPECT_EQ(rows.size(), 28u);  // 8 B .. 1 GiB by x2
}

TEST(NcclTable, TextHasTheNcclTestsHeaderAndRows) {
  NcclTableRequest req;
  req.node = g5_xlarge();
  req.max_bytes = 64;
  const std::string text = format_all_reduce_table(req, net::default_net_params());
  EXPECT_NE(text.find("#       size         count      type   redop    root     time   algbw   busbw #wrong     time"
                      "   algbw   busbw #wrong\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)"
                      "  (GB/s)  (GB/s)       \n"),
            std::string::npos)
      << text;
  // Tree/LL (two nodes): 6.8 + 2 x (5.0 + RTT/2 100) µs + 8 B at LL's share of 0.3125 x 0.91 GB/s = 216.92 µs.
  EXPECT_NE(text.find("           8             2     float     sum      -1   216.92    0.00    0.00      0   216.92"
                      "    0.00    0.00      0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# Out of bounds values : 0 OK\n"), std::string::npos);
  EXPECT_NE(text.find("# Avg bus bandwidth    : "), std::string::npos);
}

TEST(NcclTable, CrossAzAddsLatencyNotBandwidth) {
  NcclTableRequest same;
  same.node = g5_xlarge();
  NcclTableRequest cross = same;
  cross.link.cross_az = true;
  const auto a = all_reduce_rows(same, net::default_net_params());
  const auto b = all_reduce_rows(cross, net::default_net_params());
  ASSERT_EQ(a.size(), b.size());
  // Two inter-node steps, each +RTT/2 more: (1000 - 200) µs in all.
  EXPECT_NEAR(b.front().timing.time_us - a.front().timing.time_us, 800.0, 1e-9);
  // Large sizes run ring Simple, whose latency NCCL multiplies by 1.4 (the ring's plateau).
  EXPECT_NEAR(b.back().timing.time_us - a.back().timing.time_us, 800.0 * 1.4, 1e-6);
}

TEST(NcclTable, OtherCollectivesPrintTheirPerfTable) {
  NcclTableRequest req;
  req.node = g5_xlarge();
  req.max_bytes = 1 << 20;
  req.collective = net::Collective::AllGather;
  const std::string ag = format_all_reduce_table(req, net::default_net_params());
  EXPECT_NE(ag.find("# eksim model of all_gather_perf: 2 x g5.xlarge"), std::string::npos) << ag;
  EXPECT_NE(ag.find("     float    none      -1 "), std::string::npos) << ag;
  req.collective = net::Collective::Broadcast;
  const std::string bc = format_all_reduce_table(req, net::default_net_params());
  EXPECT_NE(bc.find("# eksim model of broadcast_perf"), std::string::npos);
  EXPECT_NE(bc.find("     float    none       0 "), std::string::npos) << bc;
  req.collective = net::Collective::Reduce;
  EXPECT_NE(format_all_reduce_table(req, net::default_net_params()).find("     float     sum       0 "),
            std::string::npos);
  req.collective = net::Collective::AllToAll;
  const auto rows = all_reduce_rows(req, net::default_net_params());
  ASSERT_FALSE(rows.empty());
  // n = 2: busbw = algbw x (n-1)/n.
  EXPECT_DOUBLE_EQ(rows.back().timing.busbw_gbytes_per_s, rows.back().timing.algbw_gbytes_per_s / 2);
}

TEST(NcclTable, ChoiceLineNamesAlgorithmAndProtocolRuns) {
  NcclTableRequest req;
  req.node = g5_xlarge();
  req.max_bytes = 1ULL << 30;
  const std::string text = format_all_reduce_table(req, net::default_net_params());
  EXPECT_NE(text.find("# NCCL's choice: Tree/LL 8-"), std::string::npos) << text;
  EXPECT_NE(text.find("Ring/Simple "), std::string::npos) << text;
  EXPECT_NE(text.find("-1073741824 B\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace eksim::report
