#include "models/net/nccl_connect.hpp"

#include <gtest/gtest.h>

namespace eksim::net {
namespace {

using engine::Duration;

TEST(NcclConnect, SynTimeoutIs127sWithSixRetries) {
  EXPECT_EQ(syn_timeout(default_net_params()), Duration::seconds(127));
}

TEST(NcclConnect, RetryTimelineTextsAndSleeps) {
  const auto steps = connect_retry_timeline("socketPollConnect", "10.0.1.23<45678>", default_net_params());
  ASSERT_EQ(steps.size(), 35u);
  EXPECT_EQ(steps[0].text,
            "socketPollConnect: connect to 10.0.1.23<45678> returned Connection timed out, retrying (1/34) after "
            "sleep for 100 msec");
  EXPECT_EQ(steps[0].level, "INFO");
  EXPECT_EQ(steps[0].fails_at, Duration::seconds(127));
  EXPECT_EQ(steps[1].fails_at, Duration::millis(254100));  // 127 s + 100 ms + 127 s
  EXPECT_EQ(steps[33].text,
            "socketPollConnect: connect to 10.0.1.23<45678> returned Connection timed out, retrying (34/34) after "
            "sleep for 3400 msec");
  EXPECT_EQ(steps[33].sleep, Duration::millis(3400));
  EXPECT_TRUE(steps[34].gives_up);
  EXPECT_EQ(steps[34].level, "WARN");
  EXPECT_EQ(steps[34].text,
            "socketPollConnect: connect to 10.0.1.23<45678> returned Connection timed out, exceeded error retry "
            "count after 35 attempts");
  // 35 SYN timeouts plus sleeps 100+200+...+3400 ms = 59.5 s.
  EXPECT_EQ(steps[34].fails_at, Duration::millis(35 * 127000 + 59500));
}

TEST(NcclConnect, WatchdogText) {
  EXPECT_EQ(watchdog_timeout_text(0, 1, "ALLREDUCE", 1000, 1000, 600000, 600081),
            "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, "
            "NumelIn=1000, NumelOut=1000, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.");
}

TEST(NcclConnect, PortsComeFromTheEphemeralRangeDeterministically) {
  engine::Rng a(42), b(42);
  const NcclListenPorts p = draw_listen_ports(4, a);
  const NcclListenPorts q = draw_listen_ports(4, b);
  EXPECT_EQ(p.root_port, q.root_port);
  EXPECT_EQ(p.net_port, q.net_port);
  ASSERT_EQ(p.bootstrap_port.size(), 4u);
  for (int port : p.bootstrap_port) {
    EXPECT_GE(port, kEphemeralPortLow);
    EXPECT_LE(port, kEphemeralPortHigh);
  }
}

NcclInitInput two_nodes() {
  NcclInitInput in;
  in.ranks = {{"192.168.10.5", 0}, {"192.168.42.7", 1}};
  in.ports.root_port = 40001;
  in.ports.bootstrap_port = {40001, 51234};
  in.ports.net_port = {45000, 47777};
  in.numel = 262144;
  return in;
}

TEST(NcclConnect, AllReachableInitSucceeds) {
  NcclInitInput in = two_nodes();
  in.reachable = [](int, int, int) { return true; };
  const NcclInitOutcome out = simulate_nccl_init(in, default_net_params());
  EXPECT_TRUE(out.ok);
  EXPECT_FALSE(out.blocked);
  // 2 to the root, 2 replies, 2 bootstrap ring, 2 net ring (the nodes differ).
  EXPECT_EQ(out.connections.size(), 8u);
}

// The security group of node 1 allows nothing from node 0 (no self rule for ephemeral ports).
TEST(NcclConnect, BlockedPairEndsByWatchdogFirst) {
  NcclInitInput in = two_nodes();
  in.reachable = [&](int src, int dst, int) { return !(src == 0 && dst == 1); };
  const NcclInitOutcome out = simulate_nccl_init(in, default_net_params());
  ASSERT_FALSE(out.ok);
  ASSERT_TRUE(out.blocked);
  EXPECT_EQ(out.blocked->kind, ConnectKind::BootstrapRootReply);  // rank 0 hosts the root
  EXPECT_EQ(out.blocked->port, 51234);
  EXPECT_TRUE(out.watchdog_first);
  EXPECT_EQ(out.fails_after, Duration::millis(600081));
  EXPECT_EQ(out.nccl_gives_up_after, Duration::millis(4504500));
  // Retries 1..4 fail before 600 s (the 5th would at 636.0 s).
  ASSERT_EQ(out.log.size(), 4u + 2u);
  EXPECT_EQ(out.log[3].text,
            "socketStartConnect: connect to 192.168.42.7<51234> returned Connection timed out, retrying (4/34) "
            "after sleep for 400 msec");
  EXPECT_EQ(out.log[3].at, Duration::millis(4 * 127000 + 600));
  EXPECT_EQ(out.failure_text,
            "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, "
            "NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.");
}

TEST(NcclConnect, WithoutWatchdogNcclGivesUp) {
  NcclInitInput in = two_nodes();
  in.watchdog = false;
  // Only the data port of rank 1 is closed: bootstrap works, the net ring connect hangs.
  in.reachable = [&](int, int dst, int port) { return !(dst == 1 && port == 47777); };
  const NcclInitOutcome out = simulate_nccl_init(in, default_net_params());
  ASSERT_TRUE(out.blocked);
  EXPECT_EQ(out.blocked->kind, ConnectKind::NetRing);
  EXPECT_FALSE(out.watchdog_first);
  EXPECT_EQ(out.fails_after, Duration::millis(4504500));
  EXPECT_EQ(out.log.size(), 35u);
  EXPECT_EQ(out.failure_text,
            "socketPollConnect: connect to 192.168.42.7<47777> returned Connection timed out, exceeded error retry "
            "count after 35 attempts");
}

// NCCL 2.21.5 (PyTorch 2.5/2.6): the root connect is non-blocking; after one SYN timeout the
// second connect() on the same fd gets ECONNABORTED and NCCL returns ncclSystemError.
TEST(NcclConnect, Nccl2215RootConnectAbortsAfterOneSynTimeout) {
  NcclInitInput in = two_nodes();
  in.version = *parse_nccl_version("2.21.5");
  in.reachable = [&](int src, int dst, int) { return !(src == 1 && dst == 0); };
  const NcclInitOutcome out = simulate_nccl_init(in, default_net_params());
  ASSERT_TRUE(out.blocked);
  EXPECT_EQ(out.blocked->kind, ConnectKind::BootstrapRoot);
  EXPECT_TRUE(out.retries.empty());
  EXPECT_FALSE(out.watchdog_first);
  EXPECT_TRUE(out.failing_rank_only);
  EXPECT_EQ(out.fails_after, Duration::millis(127001));
  ASSERT_EQ(out.log.size(), 1u + 4u + 4u);
  EXPECT_EQ(out.log[0].where, "misc/socket.cc:484");
  EXPECT_EQ(out.log[0].source, "NCCL WARN");
  EXPECT_EQ(out.log[0].text, "socketStartConnect: Connect to 192.168.10.5<40001> failed : Software caused connection abort");
  EXPECT_EQ(out.log[3].text, "bootstrap.cc:285 -> 2");
  EXPECT_EQ(out.failure_text,
            "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, "
            "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5");
  EXPECT_EQ(out.log.back().text, out.log[0].text);  // "Last error:" is NCCL's last WARN
  EXPECT_EQ(out.log.back().rank, 1);
}

// The root's reply socket is blocking in 2.21.5: three SYN timeouts, then the root thread gives up
// and nothing ends the job.
TEST(NcclConnect, Nccl2215RootReplyTimesOutThreeTimesAndHangs) {
  NcclInitInput in = two_nodes();
  in.version = *parse_nccl_version("2.21.5");
  in.reachable = [&](int src, int dst, int) { return !(src == 0 && dst == 1); };
  const NcclInitOutcome out = simulate_nccl_init(in, default_net_params());
  ASSERT_TRUE(out.blocked);
  EXPECT_EQ(out.blocked->kind, ConnectKind::BootstrapRootReply);
  EXPECT_TRUE(out.hangs);
  EXPECT_EQ(out.nccl_gives_up_after, Duration::millis(3 * 127000 + 2));
  EXPECT_EQ(out.log[0].where, "misc/socket.cc:476");
  EXPECT_EQ(out.log[0].text, "socketStartConnect: exceeded timeouts (3)");
  EXPECT_EQ(out.log.back().text, "bootstrap.cc:163 -> 3");
}

// NCCL 2.24-2.26 retry without the address; 2.27 names it; the root connect is socketPollConnect.
TEST(NcclConnect, RetryTextsFollowTheVersion) {
  NcclInitInput in = two_nodes();
  in.reachable = [&](int src, int dst, int) { return !(src == 1 && dst == 0); };
  in.version = *parse_nccl_version("2.26.2");
  NcclInitOutcome out = simulate_nccl_init(in, default_net_params());
  ASSERT_FALSE(out.retries.empty());
  EXPECT_EQ(out.retries[0].text,
            "socketPollConnect: connect returned Connection timed out, retrying (1/34) after sleep for 100 msec");
  EXPECT_EQ(out.retries.back().text, "socketPollConnect: connect returned Connection timed out, exceeded error retry count (35)");
  in.version = *parse_nccl_version("2.27.3");
  out = simulate_nccl_init(in, default_net_params());
  EXPECT_EQ(out.retries[0].text,
            "socketPollConnect: connect to 192.168.10.5<40001> returned Connection timed out, retrying (1/34) after "
            "sleep for 100 msec");
}

TEST(NcclConnect, SynRetransmissionsDoubleFromTheInitialRto) {
  const auto syns = syn_retransmissions(default_net_params());
  ASSERT_EQ(syns.size(), 6u);
  EXPECT_EQ(syns.front(), Duration::seconds(1));
  EXPECT_EQ(syns.back(), Duration::seconds(63));
}

}  // namespace
}  // namespace eksim::net
