// NCCL 2.21.5's init lines under NCCL_DEBUG=INFO, for two single-GPU nodes over sockets.
#include "models/net/nccl_debug_log.hpp"

#include <gtest/gtest.h>

namespace eksim::net {
namespace {

NcclDebugRank rank(int r) {
  NcclDebugRank d;
  d.host = r == 0 ? "allreduce-0" : "allreduce-1";
  d.pid = r == 0 ? 42 : 57;
  d.init_tid = r == 0 ? 97 : 110;
  d.rank = r;
  d.nranks = 2;
  d.ip = r == 0 ? "10.0.1.23" : "10.0.1.57";
  d.cuda_driver = 12040;
  d.comm = r == 0 ? 0x5581c0a3e2b0 : 0x55d01e6f4a10;
  d.comm_id = 0x6f1c2d9e8a4b7c31;
  d.ring = {0, 1};
  return d;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

TEST(NcclDebugLog, RankZeroCreatesTheIdAndPrintsTheVersionAndChannels) {
  EXPECT_EQ(joined(nccl_init_lines_before_connect(rank(0))),
            "allreduce-0:42:42 [0] NCCL INFO Bootstrap : Using eth0:10.0.1.23<0>\n"
            "allreduce-0:42:42 [0] NCCL INFO NET/Plugin: No plugin found (libnccl-net.so)\n"
            "allreduce-0:42:42 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared "
            "object file: No such file or directory : when loading libnccl-net.so\n"
            "allreduce-0:42:42 [0] NCCL INFO NET/Plugin: Using internal network plugin.\n"
            "allreduce-0:42:42 [0] NCCL INFO cudaDriverVersion 12040\n"
            "NCCL version 2.21.5+cuda12.4\n"
            "allreduce-0:42:97 [0] NCCL INFO Failed to open libibverbs.so[.1]\n"
            "allreduce-0:42:97 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.1.23<0>\n"
            "allreduce-0:42:97 [0] NCCL INFO Using non-device net plugin version 0\n"
            "allreduce-0:42:97 [0] NCCL INFO Using network Socket\n"
            "allreduce-0:42:97 [0] NCCL INFO ncclCommInitRank comm 0x5581c0a3e2b0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 "
            "busId 1e0 commId 0x6f1c2d9e8a4b7c31 - Init START\n"
            "allreduce-0:42:97 [0] NCCL INFO comm 0x5581c0a3e2b0 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n"
            "allreduce-0:42:97 [0] NCCL INFO Channel 00/02 :    0   1\n"
            "allreduce-0:42:97 [0] NCCL INFO Channel 01/02 :    0   1\n"
            "allreduce-0:42:97 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] -1/-1/-1->0->1\n"
            "allreduce-0:42:97 [0] NCCL INFO P2P Chunksize set to 131072\n"
            "allreduce-0:42:97 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Socket/0\n"
            "allreduce-0:42:97 [0] NCCL INFO Channel 01/0 : 1[0] -> 0[0] [receive] via NET/Socket/0\n"
            "allreduce-0:42:97 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n"
            "allreduce-0:42:97 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n");
  const auto after = nccl_init_lines_after_connect(rank(0));
  ASSERT_EQ(after.size(), 8u);
  EXPECT_EQ(after.front(), "allreduce-0:42:97 [0] NCCL INFO Connected all rings");
  EXPECT_EQ(after.back(),
            "allreduce-0:42:97 [0] NCCL INFO ncclCommInitRank comm 0x5581c0a3e2b0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 "
            "busId 1e0 commId 0x6f1c2d9e8a4b7c31 - Init COMPLETE");
}

TEST(NcclDebugLog, OtherRanksInitialiseInsideCommInitAndPrintNoChannels) {
  const auto lines = nccl_init_lines_before_connect(rank(1));
  EXPECT_EQ(lines[0], "allreduce-1:57:57 [0] NCCL INFO cudaDriverVersion 12040");  // before Bootstrap
  EXPECT_EQ(lines[1], "allreduce-1:57:57 [0] NCCL INFO Bootstrap : Using eth0:10.0.1.57<0>");
  for (const auto& l : lines) {
    EXPECT_EQ(l.find("NCCL version"), std::string::npos) << l;
    EXPECT_EQ(l.find("Channel 00/02"), std::string::npos) << l;
  }
  EXPECT_NE(std::find(lines.begin(), lines.end(), "allreduce-1:57:110 [0] NCCL INFO Trees [0] -1/-1/-1->1->0 [1] 0/-1/-1->1->-1"),
            lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "allreduce-1:57:110 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/Socket/0"),
            lines.end());
  EXPECT_EQ(nccl_info_prefix(rank(1)), "allreduce-1:57:110 [0] NCCL INFO ");
}

TEST(NcclDebugLog, DoubleBinaryTreeAsTreesCcBuildsIt) {
  // Four nodes: tree 0 is 0 -> 2 -> {1, 3}; tree 1 mirrors it (3 -> 1 -> {2, 0}).
  EXPECT_EQ(nccl_trees_text(4, 0, 2), " [0] 2/-1/-1->0->-1 [1] -1/-1/-1->0->1");
  EXPECT_EQ(nccl_trees_text(4, 1, 2), " [0] -1/-1/-1->1->2 [1] 2/0/-1->1->3");
  EXPECT_EQ(nccl_trees_text(4, 2, 2), " [0] 1/3/-1->2->0 [1] -1/-1/-1->2->1");
  // Three nodes: 0 -> 2 -> 1; an odd count shifts the second tree by one (1 -> 0 -> 2).
  EXPECT_EQ(nccl_trees_text(3, 0, 2), " [0] 2/-1/-1->0->-1 [1] 2/-1/-1->0->1");
  EXPECT_EQ(nccl_trees_text(3, 2, 2), " [0] 1/-1/-1->2->0 [1] -1/-1/-1->2->0");
}

}  // namespace
}  // namespace eksim::net
