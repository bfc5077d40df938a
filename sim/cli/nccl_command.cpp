#include "sim/cli/nccl_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "models/aws/instance_catalog.hpp"
#include "models/cluster/cluster.hpp"
#include "models/net/instance_network.hpp"
#include "models/net/nccl_connect.hpp"
#include "models/net/net_params.hpp"
#include "sim/report/nccl_table.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::cli {

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 2;
}

// The subnet node i sits in: all in the first subnet, or (cross-AZ) one AZ after another.
const SubnetSpec& subnet_for(const std::vector<SubnetSpec>& subnets, int node, bool cross_az) {
  if (!cross_az) return subnets.front();
  std::vector<const SubnetSpec*> per_az;
  for (const auto& s : subnets) {
    bool seen = false;
    for (const auto* p : per_az) seen |= p->az == s.az;
    if (!seen) per_az.push_back(&s);
  }
  return *per_az[static_cast<std::size_t>(node) % per_az.size()];
}

std::string host_ip(const SubnetSpec& subnet, int host) {
  auto cidr = engine::Ipv4Cidr::parse(subnet.cidr.empty() ? "10.0.0.0/16" : subnet.cidr);
  return engine::format_ipv4((cidr ? cidr->network : 0) + 10 + static_cast<std::uint32_t>(host));
}

// Checks NCCL's connections against the groups; prints the failure and returns false if one is dropped.
bool connections_pass(const NcclArgs& args, int gpus_per_node) {
  scenario::Scenario s = scenario::load_scenario(args.scenario);
  aws::SecurityGroups groups;
  std::vector<std::string> names;
  for (const auto& sg : s.cluster.security_groups) {
    groups.put(security_group_from_spec(sg));
    names.push_back(sg.name);
  }
  for (const auto& name : args.security_groups) {
    if (groups.find(name)) continue;
    std::string hint = scenario::did_you_mean(name, names);
    throw scenario::InputError(scenario::Location{},
                               "--security-groups: no security group \"" + name + "\" in the scenario" +
                                   (hint.empty() ? "" : "; did you mean \"" + hint + "\"?"));
  }
  net::NcclInitInput input;
  std::vector<aws::Eni> enis;
  for (int node = 0; node < args.nodes; ++node) {
    std::string ip = host_ip(subnet_for(s.cluster.subnets, node, args.cross_az), node);
    enis.push_back(aws::Eni{*engine::parse_ipv4(ip), args.security_groups});
    for (int g = 0; g < gpus_per_node; ++g) input.ranks.push_back(net::NcclRank{ip, node});
  }
  engine::RngStreams rng(s.seed);
  input.ports = net::draw_listen_ports(static_cast<int>(input.ranks.size()), rng.get("nccl/ports"));
  input.reachable = [&](int src, int dst, int port) {
    int a = input.ranks[static_cast<std::size_t>(src)].node, b = input.ranks[static_cast<std::size_t>(dst)].node;
    return a == b || groups.reachable(enis[static_cast<std::size_t>(a)], enis[static_cast<std::size_t>(b)], "tcp", port);
  };
  input.numel = static_cast<std::int64_t>(args.max_bytes / 4);
  if (!args.nccl_version.empty()) input.version = *net::parse_nccl_version(args.nccl_version);
  net::NcclInitOutcome out = net::simulate_nccl_init(input, net::default_net_params());
  std::string list;
  for (const auto& g : args.security_groups) list += (list.empty() ? "" : ", ") + g;
  if (out.ok) {
    std::printf("# security groups %s: all %zu NCCL connections allowed\n", list.c_str(), out.connections.size());
    return true;
  }
  std::printf("# security groups %s: %s connection from %s to %s<%d> is dropped; NCCL %s\n", list.c_str(),
              net::connect_kind_name(out.blocked->kind), input.ranks[static_cast<std::size_t>(out.blocked->src_rank)].ip.c_str(),
              input.ranks[static_cast<std::size_t>(out.blocked->dst_rank)].ip.c_str(), out.blocked->port, out.failing_rank_only ? "gives up" : "hangs");
  for (const auto& line : out.log)
    std::printf("[%10.3fs] rank %d %s%s %s\n", line.at.to_seconds(), line.rank,
                line.where.empty() ? "" : (line.where + " ").c_str(), line.source.c_str(), line.text.c_str());
  if (out.hangs) {
    std::printf("# NCCL %s: nothing ends the job; the ranks wait for the bootstrap root forever\n",
                input.version.text().c_str());
  } else {
    std::printf("# the job fails after %s: %s\n", engine::format_duration(out.fails_after).c_str(),
                out.failure_text.c_str());
  }
  return false;
}

net::Collective collective_of(const std::string& op) {
  if (op == "all_gather") return net::Collective::AllGather;
  if (op == "reduce_scatter") return net::Collective::ReduceScatter;
  if (op == "broadcast") return net::Collective::Broadcast;
  if (op == "reduce") return net::Collective::Reduce;
  if (op == "alltoall") return net::Collective::AllToAll;
  return net::Collective::AllReduce;
}

}  // namespace

int nccl_command(const NcclArgs& args) {
  const auto& catalog = aws::InstanceCatalog::builtin();
  const aws::InstanceType* t = catalog.find(args.instance);
  if (!t) {
    std::string hint = scenario::did_you_mean(args.instance, catalog.names());
    return fail("unknown instance type \"" + args.instance + "\"" + (hint.empty() ? "" : "; did you mean \"" + hint + "\"?"));
  }
  if (args.nodes < 1) return fail("--nodes must be at least 1");
  if (args.nodes > 1 && t->network_baseline_gbps <= 0)
    return fail("instance type \"" + args.instance + "\" has no baseline network bandwidth in the catalog" +
                (t->network_performance.empty() ? std::string() : " (EC2 lists \"" + t->network_performance + "\")") +
                ", so eksim cannot model NCCL between nodes");
  int gpus = t->gpu.count;
  // A type without GPUs runs one rank per node (the process NCCL would drive).
  int gpus_per_node = args.gpus_per_node > 0 ? args.gpus_per_node : (gpus > 0 ? gpus : 1);
  if (gpus_per_node > std::max(gpus, 1))
    return fail(fmt::format("--gpus-per-node {} exceeds the {} GPU(s) of {}", gpus_per_node, gpus, args.instance));
  if (args.min_bytes == 0 || args.min_bytes > args.max_bytes) return fail("--min-bytes must be between 1 and --max-bytes");
  if (args.step_factor < 2) return fail("--step-factor must be at least 2");
  if (!args.nccl_version.empty() && !net::parse_nccl_version(args.nccl_version))
    return fail("--nccl-version \"" + args.nccl_version + "\" is not a version like 2.21.5");
  if (!args.security_groups.empty() && args.scenario.empty())
    return fail("--security-groups needs --scenario (the file that defines the groups)");
  if (!args.security_groups.empty() && !connections_pass(args, gpus_per_node)) return 0;

  if (args.net == "efa" && !t->efa) return fail("instance type \"" + args.instance + "\" has no EFA; use --net socket");
  report::NcclTableRequest req;
  req.collective = collective_of(args.op);
  req.link.efa_enabled = args.net != "socket";
  req.node = net::node_network_spec(*t, net::default_net_params());
  req.nodes = args.nodes;
  req.gpus_per_node = gpus_per_node;
  req.link.cross_az = args.cross_az;
  req.link.allow_burst = args.burst;
  req.min_bytes = args.min_bytes;
  req.max_bytes = args.max_bytes;
  req.step_factor = args.step_factor;
  if (!args.nccl_version.empty()) req.nccl_version = net::parse_nccl_version(args.nccl_version)->code();
  std::fputs(report::format_all_reduce_table(req, net::default_net_params()).c_str(), stdout);
  return 0;
}

}  // namespace eksim::cli
