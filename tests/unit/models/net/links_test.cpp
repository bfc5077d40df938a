#include "models/net/links.hpp"

#include <gtest/gtest.h>

#include "models/net/net_params.hpp"

namespace eksim::net {
namespace {

NodeNetworkSpec g5_xlarge() {
  NodeNetworkSpec s;
  s.instance_type = "g5.xlarge";
  s.nic_baseline_gbps = 2.5;
  s.nic_burst_gbps = 10;
  s.nic_up_to = true;
  s.gpus = 1;
  return s;
}

TEST(NetParams, EmbeddedDefaultsMatchFacts) {
  const NetParams& p = default_net_params();
  EXPECT_DOUBLE_EQ(p.same_az_rtt_ms, 0.2);
  EXPECT_DOUBLE_EQ(p.cross_az_rtt_ms, 1.0);
  EXPECT_DOUBLE_EQ(p.per_flow_cap_gbps, 5.0);
  EXPECT_DOUBLE_EQ(p.per_flow_cap_placement_group_gbps, 10.0);
  EXPECT_DOUBLE_EQ(p.pcie_gen4_gbytes_per_s, 24.0);
  EXPECT_EQ(p.tcp_syn_retries, 6);
  EXPECT_DOUBLE_EQ(p.nccl.socket_max_gbps, 39.0);
  EXPECT_DOUBLE_EQ(p.gpus.at("h100").nvlink_gbytes_per_s, 18 * 20.6);
  EXPECT_EQ(p.gpus.at("b200").arch, GpuArch::Blackwell);
  EXPECT_DOUBLE_EQ(efa_hardware(p, "p5en").plugin_latency_us, 35.0);
  EXPECT_DOUBLE_EQ(efa_hardware(p, "trn1").plugin_latency_us, 0.0);  // the default entry
  EXPECT_EQ(p.nccl.socket_nthreads, 2);
  EXPECT_EQ(p.nccl.nsocks_perthread, 8);
  EXPECT_EQ(p.nccl.socket_retry_cnt, 34);
  EXPECT_EQ(p.nccl.socket_retry_sleep_ms, 100);
  EXPECT_EQ(p.watchdog_timeout_ms, 600000);
}

TEST(NetParams, MissingKeyIsNamed) {
  try {
    parse_net_params(R"({"rtt_ms": {"same_az": 0.2}})");
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "az_latency.json: missing key rtt_ms.cross_az");
  }
}

TEST(NetLinks, UpToTypeSustainsOnlyItsBaseline) {
  const NodeLink l = node_to_node_link(g5_xlarge(), {}, default_net_params());
  EXPECT_EQ(l.transport, NetTransport::Socket);
  EXPECT_DOUBLE_EQ(l.nic_gbps, 2.5);
  EXPECT_EQ(l.flows, 2 * 2 * 8);  // channels x NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD
  EXPECT_DOUBLE_EQ(l.per_flow_cap_gbps, 5.0);
  EXPECT_DOUBLE_EQ(l.gbytes_per_s, 2.5 / 8);  // the NIC, not the flow caps, is the limit
  EXPECT_DOUBLE_EQ(l.rtt_us, 200.0);
  EXPECT_DOUBLE_EQ(l.tuner_gbytes_per_s, 10.0 / 8);  // ENA: NCCL assumes 10 Gbps
}

TEST(NetLinks, BurstWhenTheScenarioAllowsIt) {
  LinkOptions o;
  o.allow_burst = true;
  o.cross_az = true;
  const NodeLink l = node_to_node_link(g5_xlarge(), o, default_net_params());
  EXPECT_DOUBLE_EQ(l.gbytes_per_s, 10.0 / 8);
  EXPECT_DOUBLE_EQ(l.rtt_us, 1000.0);
}

TEST(NetLinks, PerFlowCapBindsWhenFewSockets) {
  NetParams p = default_net_params();
  p.nccl.channels = 1;
  p.nccl.socket_nthreads = 1;
  p.nccl.nsocks_perthread = 1;  // one TCP flow per peer
  NodeNetworkSpec s;
  s.nic_baseline_gbps = s.nic_burst_gbps = 100;
  EXPECT_DOUBLE_EQ(node_to_node_link(s, {}, p).gbytes_per_s, 5.0 / 8);
  LinkOptions pg;
  pg.placement_group = true;
  EXPECT_DOUBLE_EQ(node_to_node_link(s, pg, p).gbytes_per_s, 10.0 / 8);
  // The AWS default 2 x 8 sockets x 2 channels = 32 flows: 160 Gbps of caps and a 100 Gb NIC, but
  // NCCL's socket transport itself tops out at 39 Gb/s (4.7-5 GB/s measured on 100 Gb NICs).
  const NodeLink wide = node_to_node_link(s, {}, default_net_params());
  EXPECT_DOUBLE_EQ(wide.gbytes_per_s, 100.0 / 8);
  EXPECT_DOUBLE_EQ(collective_gbytes_per_s(wide, default_net_params().nccl), 39.0 / 8);
  // On a 40 Gbps NIC the line rate binds first: a collective sees the same share as over EFA.
  s.nic_baseline_gbps = s.nic_burst_gbps = 40;
  const double eff = default_net_params().nccl.net_bandwidth_efficiency;
  EXPECT_DOUBLE_EQ(collective_gbytes_per_s(node_to_node_link(s, {}, default_net_params()), default_net_params().nccl),
                   40.0 / 8 * eff);
}

// One flow moves at most a window (3 MiB) per round trip: at AWS's cross-AZ 1 ms that is 25 Gb/s,
// above the 5 Gbps flow cap; over 10 ms it is 2.5 Gb/s and binds.
TEST(NetLinks, TcpWindowBindsOnlyOverLongRoundTrips) {
  NetParams p = default_net_params();
  NodeNetworkSpec s;
  s.nic_baseline_gbps = s.nic_burst_gbps = 100;
  LinkOptions cross;
  cross.cross_az = true;
  EXPECT_DOUBLE_EQ(node_to_node_link(s, cross, p).per_flow_cap_gbps, 5.0);
  p.cross_az_rtt_ms = 10;
  const NodeLink far = node_to_node_link(s, cross, p);
  EXPECT_DOUBLE_EQ(far.per_flow_cap_gbps, 3145728.0 * 8 / 1e7);
  EXPECT_DOUBLE_EQ(far.gbytes_per_s, far.flows * 3145728.0 / 1e7);  // 32 flows x 2.52 Gb/s = 80.5 Gb/s
}

TEST(NetLinks, EfaUsesTheWholeNicWithoutFlowCaps) {
  NodeNetworkSpec p4d;
  p4d.instance_type = "p4d.24xlarge";
  p4d.nic_baseline_gbps = p4d.nic_burst_gbps = 400;
  p4d.efa = true;
  p4d.gpus = 8;
  p4d.intra = Interconnect::NVLink;
  p4d.intra_gbytes_per_s = 300;
  const NodeLink l = node_to_node_link(p4d, {}, default_net_params());
  EXPECT_EQ(l.transport, NetTransport::Efa);
  EXPECT_DOUBLE_EQ(l.gbytes_per_s, 50.0);
  EXPECT_EQ(l.flows, 0);
  LinkOptions no_efa;
  no_efa.efa_enabled = false;
  EXPECT_EQ(node_to_node_link(p4d, no_efa, default_net_params()).transport, NetTransport::Socket);
  EXPECT_TRUE(make_ring_topology(p4d, 2, 8, {}, default_net_params()).ll128_enabled);
  EXPECT_FALSE(make_ring_topology(p4d, 2, 8, no_efa, default_net_params()).ll128_enabled);
  EXPECT_FALSE(make_ring_topology(g5_xlarge(), 2, 1, {}, default_net_params()).ll128_enabled);
}

TEST(NetLinks, EfaNeverCrossesAnAz) {
  NodeNetworkSpec p5;
  p5.nic_baseline_gbps = p5.nic_burst_gbps = 3200;
  p5.efa = true;
  p5.efa_hw = {75, 20, true};
  LinkOptions cross;
  cross.cross_az = true;
  const NodeLink l = node_to_node_link(p5, cross, default_net_params());
  EXPECT_EQ(l.transport, NetTransport::Socket);
  EXPECT_DOUBLE_EQ(collective_gbytes_per_s(l, default_net_params().nccl), 39.0 / 8);
  EXPECT_DOUBLE_EQ(l.hop_latency_us, 500.0);  // RTT/2 across AZs
  const NodeLink same = node_to_node_link(p5, {}, default_net_params());
  EXPECT_EQ(same.transport, NetTransport::Efa);
  EXPECT_DOUBLE_EQ(same.tuner_latency_us, 75.0);
  EXPECT_DOUBLE_EQ(same.hop_latency_us, 20.0);
  EXPECT_FALSE(same.simple_only);
  p5.efa_hw.in_order_128b = false;  // first-generation EFA: aws-ofi-nccl sets NCCL_PROTO=simple
  EXPECT_TRUE(node_to_node_link(p5, {}, default_net_params()).simple_only);
}

}  // namespace
}  // namespace eksim::net
