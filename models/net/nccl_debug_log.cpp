#include "models/net/nccl_debug_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace eksim::net {

namespace {

constexpr int kChannels = 2;  // a ring of single-GPU nodes over one NIC: NCCL sets up two

std::string prefix(const NcclDebugRank& r, int tid) { return fmt::format("{}:{}:{} [0] NCCL INFO ", r.host, r.pid, tid); }

struct Tree {
  int up = -1, down0 = -1, down1 = -1;
};

// graph/trees.cc ncclGetBtree.
Tree btree(int nranks, int rank) {
  Tree t;
  int bit = 1;
  for (; bit < nranks; bit <<= 1)
    if (bit & rank) break;
  if (rank == 0) {
    t.down1 = nranks > 1 ? bit >> 1 : -1;
    return t;
  }
  int up = (rank ^ bit) | (bit << 1);
  if (up >= nranks) up = rank ^ bit;
  t.up = up;
  int lowbit = bit >> 1;
  t.down0 = lowbit == 0 ? -1 : rank - lowbit;
  int down1 = lowbit == 0 ? -1 : rank + lowbit;
  while (down1 >= nranks) {
    down1 = lowbit == 0 ? -1 : rank + lowbit;
    lowbit >>= 1;
  }
  t.down1 = down1;
  return t;
}

// ncclGetDtree's second tree: the first one shifted (odd rank count) or mirrored (even).
Tree second_tree(int nranks, int rank) {
  auto map = [&](int x, bool shift) { return x == -1 ? -1 : shift ? (x + 1) % nranks : nranks - 1 - x; };
  const bool shift = nranks % 2 == 1;
  Tree b = btree(nranks, shift ? (rank - 1 + nranks) % nranks : nranks - 1 - rank);
  return {map(b.up, shift), map(b.down0, shift), map(b.down1, shift)};
}

int ring_neighbour(const NcclDebugRank& r, int step) {
  const int n = static_cast<int>(r.ring.size());
  for (int i = 0; i < n; ++i)
    if (r.ring[static_cast<std::size_t>(i)] == r.rank) return r.ring[static_cast<std::size_t>((i + step + n) % n)];
  return r.rank;
}

}  // namespace

NcclDebugLevel nccl_debug_level(const k8s::Container& container) {
  std::string level = k8s::env_of(container, "NCCL_DEBUG");
  std::transform(level.begin(), level.end(), level.begin(), [](unsigned char ch) { return std::toupper(ch); });
  if (level == "INFO" || level == "TRACE") return NcclDebugLevel::Info;
  if (level == "WARN") return NcclDebugLevel::Warn;
  return NcclDebugLevel::None;
}

std::string nccl_info_prefix(const NcclDebugRank& r) { return prefix(r, r.init_tid); }

std::string nccl_trees_text(int nranks, int rank, int channels) {
  std::string out;
  for (int c = 0; c < channels; ++c) {
    const Tree t = c % 2 == 0 ? btree(nranks, rank) : second_tree(nranks, rank);
    // The children fill the down slots in order; an unused slot is -1.
    int down[3] = {-1, -1, -1};
    int k = 0;
    for (int d : {t.down0, t.down1})
      if (d != -1) down[k++] = d;
    out += fmt::format(" [{}] {}/{}/{}->{}->{}", c, down[0], down[1], down[2], rank, t.up);
  }
  return out;
}

std::vector<std::string> nccl_init_lines_before_connect(const NcclDebugRank& r) {
  std::vector<std::string> out;
  const std::string main = prefix(r, r.pid), init = prefix(r, r.init_tid);
  const std::string eth0 = "eth0:" + r.ip + "<0>";
  // Rank 0 creates the unique id (ncclGetUniqueId), which initialises NCCL before the
  // communicator; the other ranks initialise inside ncclCommInitRank, driver version first.
  std::vector<std::string> env = {
      main + "Bootstrap : Using " + eth0,
      main + "NET/Plugin: No plugin found (libnccl-net.so)",
      main + "NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or "
             "directory : when loading libnccl-net.so",
      main + "NET/Plugin: Using internal network plugin.",
  };
  const std::string driver = main + "cudaDriverVersion " + std::to_string(r.cuda_driver);
  if (r.rank == 0) {
    out = env;
    out.push_back(driver);
    out.push_back("NCCL version " + r.version);  // printf, no prefix, rank 0 only
  } else {
    out.push_back(driver);
    out.insert(out.end(), env.begin(), env.end());
  }
  const std::string comm = fmt::format("comm 0x{:x}", r.comm);
  const std::string init_rank = fmt::format("ncclCommInitRank {} rank {} nranks {} cudaDev 0 nvmlDev 0 busId 1e0 commId 0x{:x}",
                                            comm, r.rank, r.nranks, r.comm_id);
  out.push_back(init + "Failed to open libibverbs.so[.1]");
  out.push_back(init + "NET/Socket : Using [0]" + eth0);
  out.push_back(init + "Using non-device net plugin version 0");
  out.push_back(init + "Using network Socket");
  out.push_back(init + init_rank + " - Init START");
  out.push_back(init + fmt::format("{} rank {} nRanks {} nNodes {} localRanks 1 localRank 0 MNNVL 0", comm, r.rank, r.nranks,
                                   r.nranks));
  if (r.rank == 0) {
    std::string order;
    for (int x : r.ring) order += fmt::format(" {:>3}", x);
    for (int c = 0; c < kChannels; ++c) out.push_back(init + fmt::format("Channel {:02}/{:02} : ", c, kChannels) + order);
  }
  out.push_back(init + "Trees" + nccl_trees_text(r.nranks, r.rank, kChannels));
  out.push_back(init + "P2P Chunksize set to 131072");
  const int prev = ring_neighbour(r, -1), next = ring_neighbour(r, 1);
  for (int c = 0; c < kChannels; ++c)
    out.push_back(init + fmt::format("Channel {:02}/0 : {}[0] -> {}[0] [receive] via NET/Socket/0", c, prev, r.rank));
  for (int c = 0; c < kChannels; ++c)
    out.push_back(init + fmt::format("Channel {:02}/0 : {}[0] -> {}[0] [send] via NET/Socket/0", c, r.rank, next));
  return out;
}

std::vector<std::string> nccl_init_lines_after_connect(const NcclDebugRank& r) {
  const std::string init = prefix(r, r.init_tid);
  const std::string comm = fmt::format("comm 0x{:x}", r.comm);
  return {
      init + "Connected all rings",
      init + "Connected all trees",
      init + fmt::format("{} coll channels, {} collnet channels, 0 nvls channels, {} p2p channels, {} p2p channels per peer",
                         kChannels, kChannels, kChannels, kChannels),
      init + "TUNER/Plugin: No plugin found (libnccl-tuner.so)",
      init + "TUNER/Plugin: No plugin found (libnccl-net.so)",
      init + "TUNER/Plugin: Most recent plugin load returned 2 : libnccl-net.so: cannot open shared object file: No "
             "such file or directory. All attempts to load 'libnccl-tuner.so' also failed.",
      init + "TUNER/Plugin: Using internal tuner plugin.",
      init + fmt::format("ncclCommInitRank {} rank {} nranks {} cudaDev 0 nvmlDev 0 busId 1e0 commId 0x{:x} - Init COMPLETE",
                         comm, r.rank, r.nranks, r.comm_id),
  };
}

}  // namespace eksim::net
