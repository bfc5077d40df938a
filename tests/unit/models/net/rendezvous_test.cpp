// The rendezvous host as torchrun / PyTorch read it, c10d's name-resolution retries, and the
// training controller's worker that cannot reach CoreDNS on UDP 53 (driven through
// scenarios/networking/coredns-port-53-blocked.yaml with its security groups varied in code).
#include "models/net/rendezvous.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "models/cluster/dns_access.hpp"
#include "models/net/training_controller.hpp"
#include "sim/ops/runner.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::net {
namespace {

using engine::Duration;

k8s::Container container(std::vector<std::string> command, std::vector<k8s::EnvVar> env = {}) {
  k8s::Container c;
  c.name = "trainer";
  c.command = std::move(command);
  c.env = std::move(env);
  return c;
}

TEST(RendezvousEndpointTest, TorchrunC10dEndpointWithItsDefaults) {
  auto e = rendezvous_endpoint(container({"torchrun", "--nnodes=2", "--rdzv-backend=c10d",
                                          "--rdzv-endpoint=trainer-0.trainer:29401", "train.py"}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "trainer-0.trainer");
  EXPECT_EQ(e->port, 29401);
  EXPECT_EQ(e->backend, RendezvousBackend::C10d);
  EXPECT_EQ(e->store_timeout, Duration::seconds(60));  // read_timeout default

  // Underscore spelling, the value as the next word, no port, read_timeout from --rdzv_conf.
  e = rendezvous_endpoint(container({"python", "-m", "torch.distributed.run", "--rdzv_backend", "c10d",
                                     "--rdzv_endpoint", "master", "--rdzv_conf", "join_timeout=900,read_timeout=120",
                                     "train.py"}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "master");
  EXPECT_EQ(e->port, 29400);
  EXPECT_EQ(e->store_timeout, Duration::seconds(120));
}

TEST(RendezvousEndpointTest, StaticRendezvousFromMasterAddr) {
  auto e = rendezvous_endpoint(container({"torchrun", "--nnodes=2", "--node_rank=1", "--master_addr=job-0.job",
                                          "--master-port", "23456", "train.py"}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "job-0.job");
  EXPECT_EQ(e->port, 23456);
  EXPECT_EQ(e->backend, RendezvousBackend::Static);
  EXPECT_EQ(e->store_timeout, Duration::seconds(600));
  // torchrun's default master address is 127.0.0.1: nothing to resolve, no endpoint named.
  EXPECT_FALSE(rendezvous_endpoint(container({"torchrun", "--nproc-per-node=8", "train.py"})));
  // etcd is another client.
  EXPECT_FALSE(rendezvous_endpoint(
      container({"torchrun", "--rdzv-backend=etcd-v2", "--rdzv-endpoint=etcd:2379", "train.py"})));
}

TEST(RendezvousEndpointTest, EnvAndExpansion) {
  // PyTorchJob: MASTER_ADDR / MASTER_PORT in env, the program calls init_process_group itself.
  auto e = rendezvous_endpoint(container({"python", "train.py"}, {{"MASTER_ADDR", "pytorchjob-master-0"},
                                                                   {"MASTER_PORT", "23456"}}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->backend, RendezvousBackend::Env);
  EXPECT_EQ(e->host, "pytorchjob-master-0");
  EXPECT_EQ(e->port, 23456);
  EXPECT_EQ(e->store_timeout, Duration::minutes(10));
  // $(VAR) expanded by the kubelet, ${VAR} by the shell of sh -c.
  e = rendezvous_endpoint(container({"torchrun", "--rdzv-backend=c10d", "--rdzv-endpoint=$(MASTER_ADDR):29400", "t.py"},
                                    {{"MASTER_ADDR", "head.svc"}}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "head.svc");
  e = rendezvous_endpoint(container({"/bin/sh", "-c", "pip install x && torchrun --rdzv-backend=c10d "
                                                      "--rdzv-endpoint=\"${HEAD}:29500\" t.py"},
                                    {{"HEAD", "head-0.head"}}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "head-0.head");
  EXPECT_EQ(e->port, 29500);
}

TEST(RendezvousEndpointTest, OnlyNamesNeedDns) {
  EXPECT_TRUE(needs_dns("allreduce-0.allreduce"));
  EXPECT_TRUE(needs_dns("master"));
  EXPECT_FALSE(needs_dns("192.168.12.11"));
  EXPECT_FALSE(needs_dns("fd00::1"));
  EXPECT_FALSE(needs_dns("localhost"));
}

TEST(ResolutionFailureTest, C10dRetriesUntilItsReadTimeout) {
  RendezvousEndpoint e{"allreduce-0.allreduce", 29400, RendezvousBackend::C10d, Duration::seconds(60)};
  ResolutionFailure f = resolution_failure(e);
  // getaddrinfo gives up after 10 s, c10d sleeps 1 s and retries while now < deadline - 1 s:
  // failures at 10, 21, 32, 43, 54 and 65 s; the sixth started at 55 s, before 59 s.
  ASSERT_EQ(f.attempts.size(), 6u);
  EXPECT_EQ(f.attempts[0].fails_at, Duration::seconds(10));
  EXPECT_EQ(f.attempts[1].fails_at, Duration::seconds(21));
  EXPECT_EQ(f.attempts[5].fails_at, Duration::seconds(65));
  EXPECT_EQ(f.fails_at, Duration::seconds(65));
  EXPECT_EQ(f.attempts[0].text,
            "[c10d] The IPv6 network addresses of (allreduce-0.allreduce, 29400) cannot be retrieved (gai error: -3 - "
            "Temporary failure in name resolution).");
  ASSERT_EQ(f.final_lines.size(), 2u);
  EXPECT_EQ(f.final_lines[0],
            "[c10d] The client socket has timed out after 60000ms while trying to connect to (allreduce-0.allreduce, "
            "29400).");
  EXPECT_EQ(f.failure_text,
            "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has "
            "failed. See inner exception for details.");
}

TEST(ResolutionFailureTest, StaticRendezvousWaitsTenMinutes) {
  RendezvousEndpoint e{"job-0.job", 29500, RendezvousBackend::Static, Duration::seconds(600)};
  ResolutionFailure f = resolution_failure(e);
  // 10 + 11k: the attempt ending at 593 s sleeps (593 < 599), the next ends at 604 s.
  EXPECT_EQ(f.fails_at, Duration::seconds(604));
  EXPECT_EQ(f.attempts.size(), 55u);
  EXPECT_EQ(f.final_lines.size(), 1u);
  EXPECT_EQ(f.failure_text,
            "[c10d] The client socket has timed out after 600000ms while trying to connect to (job-0.job, 29500).");
}

// --- the controller ----------------------------------------------------------------------------

scenario::Scenario load_blocked() {
  return scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/networking/coredns-port-53-blocked.yaml");
}

SecurityGroupSpec* group(scenario::Scenario& s, const std::string& name) {
  for (auto& g : s.cluster.security_groups)
    if (g.name == name) return &g;
  ADD_FAILURE() << "no group " << name;
  return nullptr;
}

int count_events(const ops::RunResult& run, const std::string& reason, const std::string& contains = "") {
  return static_cast<int>(std::count_if(run.cluster->log.events().begin(), run.cluster->log.events().end(),
                                        [&](const k8s::Event& e) {
                                          return e.reason == reason && e.message.find(contains) != std::string::npos;
                                        }));
}

std::optional<TrainingJobStatus> status_of(const ops::RunResult& run) {
  const TrainingController* c = run.cluster->controllers.training.get();
  return c ? c->find("default", "allreduce") : std::nullopt;
}

TEST(CorednsReachabilityTest, BlockedThroughoutTheJobFailsAtItsBackoffLimit) {
  scenario::Scenario s = load_blocked();
  s.timeline.clear();  // nobody opens UDP 53
  ops::RunResult run = ops::run_scenario(s);
  // Two rounds of two workers (backoffLimit 2), each failing 65 s after it started.
  EXPECT_EQ(count_events(run, "ContainerLog", "RendezvousConnectionError"), 4);
  EXPECT_EQ(count_events(run, "ContainerLog", "cannot be retrieved (gai error: -3"), 4 * 6);
  EXPECT_EQ(count_events(run, "BackoffLimitExceeded"), 1);
  EXPECT_EQ(count_events(run, "TrainingStarted"), 0);
  auto st = status_of(run);
  ASSERT_TRUE(st);
  EXPECT_EQ(st->attempts, 0);  // no gang ever formed
  EXPECT_NE(st->failure_text.find("RendezvousConnectionError"), std::string::npos);
  int failed = 0;
  for (std::uint32_t i = 0; i < run.cluster->api.pod_slots(); ++i)
    if (const k8s::PodRecord& r = run.cluster->api.pod(k8s::PodId{i}); r.pod.meta.name.rfind("allreduce-", 0) == 0 && r.pod.status.phase == k8s::PodPhase::Failed) {
      ++failed;
      EXPECT_NE(r.pod.status.message.find("RendezvousConnectionError"), std::string::npos);
      ASSERT_TRUE(r.pod.status.started_at && r.pod.status.finished_at);
      EXPECT_EQ(*r.pod.status.finished_at - *r.pod.status.started_at, Duration::seconds(65));
    }
  EXPECT_EQ(failed, 4);
}

TEST(CorednsReachabilityTest, WithPort53AdmittedTheGangTrainsAtOnce) {
  scenario::Scenario s = load_blocked();
  s.timeline.clear();
  SecurityGroupRuleSpec dns;
  dns.protocol = "udp";
  dns.from_port = dns.to_port = 53;
  dns.source_group = "node-sg";
  group(s, "eks-cluster-sg")->ingress.push_back(dns);
  ops::RunResult run = ops::run_scenario(s);
  EXPECT_EQ(count_events(run, "ContainerLog"), 0);
  auto st = status_of(run);
  ASSERT_TRUE(st);
  EXPECT_EQ(st->phase, TrainingPhase::Succeeded);
  EXPECT_EQ(st->attempts, 1);
}

TEST(CorednsReachabilityTest, ACorednsPodOnTheWorkersNodeNeedsNoSecurityGroup) {
  scenario::Scenario s = load_blocked();
  s.timeline.clear();
  // No system group and no GPU taint: the two CoreDNS pods land on the two GPU nodes (their
  // preferred anti-affinity spreads them). The node SG loses its 53 rules, so only the local
  // CoreDNS answers each worker.
  std::erase_if(s.cluster.node_groups, [](const NodeGroupSpec& g) { return g.name == "system"; });
  for (auto& g : s.cluster.node_groups) g.taints.clear();
  auto& ingress = group(s, "node-sg")->ingress;
  std::erase_if(ingress, [](const SecurityGroupRuleSpec& r) { return r.from_port == 53; });
  ops::RunResult run = ops::run_scenario(s);
  EXPECT_EQ(count_events(run, "ContainerLog"), 0);
  auto st = status_of(run);
  ASSERT_TRUE(st);
  EXPECT_EQ(st->phase, TrainingPhase::Succeeded);
}

// Lab 000's "NCCL block" toggles (node_sg_enable_recommended_rules=false,
// enable_aux_sg_vpc_allow=false) on its system and GPU node groups, both in the module's node SG
// and the auxiliary group: the module's base rules ingress_self_coredns_tcp/_udp stay, so every
// node still reaches CoreDNS on the system node; only a node SG without them cuts DNS.
TEST(CorednsReachabilityTest, Lab000RecommendedRulesOffKeepsTheBaseCorednsRules) {
  for (bool base_rules : {true, false}) {
    scenario::Scenario s = load_blocked();
    s.timeline.clear();
    s.manifests.clear();
    SecurityGroupSpec* node = group(s, "node-sg");
    std::erase_if(node->ingress, [&](const SecurityGroupRuleSpec& r) {
      return r.from_port == 1025 || (!base_rules && r.from_port == 53);
    });
    node->egress.clear();  // no egress_all
    SecurityGroupSpec aux;
    aux.name = "aux-sg";
    SecurityGroupRuleSpec all;
    all.protocol = "-1";
    all.cidr = "0.0.0.0/0";
    aux.egress = {all};  // aux_egress_all only: no VPC ingress
    aux.egress_given = true;
    s.cluster.security_groups.push_back(aux);
    for (auto& g : s.cluster.node_groups) g.vpc_security_group_ids = {"node-sg", "aux-sg"};
    ops::RunResult run = ops::run_scenario(s);
    Cluster& c = *run.cluster;
    int gpu_nodes = 0;
    for (std::uint32_t i = 0; i < c.api.node_slots(); ++i) {
      const k8s::NodeRecord& n = c.api.node(k8s::NodeId{i});
      if (n.deleted || n.node.meta.labels.count("nvidia.com/gpu") == 0) continue;
      ++gpu_nodes;
      EXPECT_EQ(coredns_reachable(c, k8s::NodeId{i}), base_rules) << n.node.meta.name;
    }
    EXPECT_EQ(gpu_nodes, 2);
  }
}

// The same toggles with the job: the name resolves (base rules), but the worker's store client
// cannot open TCP 29400 to the store on allreduce-0's node (no ingress_nodes_ephemeral, no VPC
// ingress on the aux group): it times out at its 60 s deadline with torchrun's
// RendezvousConnectionError, and no NCCL communicator is ever set up.
TEST(CorednsReachabilityTest, Lab000TogglesOffResolveButCannotReachTheStore) {
  scenario::Scenario s = load_blocked();
  s.timeline.clear();
  SecurityGroupSpec* node = group(s, "node-sg");
  std::erase_if(node->ingress, [](const SecurityGroupRuleSpec& r) { return r.from_port == 1025; });
  node->egress.clear();
  SecurityGroupSpec aux;
  aux.name = "aux-sg";
  SecurityGroupRuleSpec all;
  all.protocol = "-1";
  all.cidr = "0.0.0.0/0";
  aux.egress = {all};
  aux.egress_given = true;
  s.cluster.security_groups.push_back(aux);
  for (auto& g : s.cluster.node_groups) g.vpc_security_group_ids = {"node-sg", "aux-sg"};
  ops::RunResult run = ops::run_scenario(s);
  EXPECT_EQ(count_events(run, "ContainerLog", "cannot be retrieved"), 0);
  EXPECT_EQ(count_events(run, "ContainerLog", "Connection timed out"), 0);  // NCCL never starts
  EXPECT_EQ(count_events(run, "TrainingStarted"), 0);
  // allreduce-1's three pods (backoffLimit 2) each time out; allreduce-0 hosts the store and waits.
  EXPECT_EQ(count_events(run, "ContainerLog",
                         "[c10d] The client socket has timed out after 60000ms while trying to connect to "
                         "(allreduce-0.allreduce, 29400)."),
            3);
  EXPECT_EQ(count_events(run, "ContainerLog", "RendezvousConnectionError"), 3);
  EXPECT_EQ(count_events(run, "BackoffLimitExceeded"), 1);
  for (std::uint32_t i = 0; i < run.cluster->api.pod_slots(); ++i)
    if (const k8s::PodRecord& r = run.cluster->api.pod(k8s::PodId{i});
        r.pod.meta.name.rfind("allreduce-1-", 0) == 0 && r.pod.status.phase == k8s::PodPhase::Failed) {
      ASSERT_TRUE(r.pod.status.started_at && r.pod.status.finished_at);
      EXPECT_EQ(*r.pod.status.finished_at - *r.pod.status.started_at, Duration::seconds(60));
    }
}

TEST(RendezvousEndpointTest, StoreHostIsTheNamedIndex) {
  EXPECT_EQ(store_host_index("allreduce-1.allreduce", "allreduce"), 1);
  EXPECT_EQ(store_host_index("allreduce-0", "allreduce"), 0);
  EXPECT_EQ(store_host_index("trainer-master", "allreduce"), 0);
  EXPECT_EQ(store_host_index("allreduce-x.allreduce", "allreduce"), 0);
}

}  // namespace
}  // namespace eksim::net
