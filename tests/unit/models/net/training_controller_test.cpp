// The training-job controller, driven through the scenarios of scenarios/nccl (the cluster, the
// device plugin and the Job controller are the real ones), with the security groups varied in code.
#include "models/net/training_controller.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sim/ops/runner.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::net {
namespace {

using ops::RunResult;
using scenario::Scenario;

Scenario load(const char* name) {
  return scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/nccl/" + name);
}

TrainingJobStatus status_of(const RunResult& run, const std::string& job) {
  const TrainingController* c = run.cluster->controllers.training.get();
  EXPECT_NE(c, nullptr);
  auto s = c ? c->find("default", job) : std::nullopt;
  EXPECT_TRUE(s.has_value()) << job;
  return s.value_or(TrainingJobStatus{});
}

std::vector<const k8s::Event*> events(const RunResult& run, const std::string& reason) {
  std::vector<const k8s::Event*> out;
  for (const auto& e : run.cluster->log.events())
    if (e.reason == reason) out.push_back(&e);
  return out;
}

SecurityGroupSpec* security_group(Scenario& s, const std::string& name) {
  for (auto& g : s.cluster.security_groups)
    if (g.name == name) return &g;
  ADD_FAILURE() << "no group " << name;
  return nullptr;
}

SecurityGroupRuleSpec rule(std::string protocol, int from, int to, std::string group, std::string cidr) {
  SecurityGroupRuleSpec r;
  r.protocol = std::move(protocol);
  r.from_port = from;
  r.to_port = to;
  r.source_group = std::move(group);
  r.cidr = std::move(cidr);
  return r;
}

// --- annotations ---------------------------------------------------------------------------

TEST(TrainingSpecTest, ReadsTheAnnotationsAndTheGpuLimit) {
  k8s::PodTemplate t;
  t.meta.annotations = {{kAnnotationTraining, "allreduce"},
                        {kAnnotationGradientBytes, "100Mi"},
                        {kAnnotationStepCompute, "250ms"},
                        {kAnnotationSteps, "40"},
                        {kAnnotationWatchdogTimeout, "30m"}};
  k8s::Container c;
  c.limits.set("nvidia.com/gpu", 4);
  t.spec.containers.push_back(c);
  std::string err;
  auto s = training_spec(t, &err);
  ASSERT_TRUE(s) << err;
  EXPECT_EQ(s->gradient_bytes, 104857600.0);
  EXPECT_EQ(s->step_compute, engine::Duration::millis(250));
  EXPECT_EQ(s->steps, 40);
  EXPECT_EQ(s->watchdog_timeout, engine::Duration::minutes(30));
  EXPECT_EQ(s->gpus_per_pod, 4);
  EXPECT_FALSE(s->efa);
}

TEST(TrainingSpecTest, RejectsWhatDoesNotParse) {
  struct Case {
    const char* key;
    const char* value;
    const char* error;
  } cases[] = {
      {kAnnotationTraining, "allgather", "eksim.io/training: \"allgather\" is not a supported collective (allreduce)"},
      {kAnnotationGradientBytes, "lots", "eksim.io/gradient-bytes: \"lots\" is not a positive quantity"},
      {kAnnotationSteps, "1e3", "eksim.io/steps: \"1e3\" is not a positive integer"},
      {kAnnotationStepCompute, "200", "eksim.io/step-compute: \"200\" is not a duration"},
      {kAnnotationWatchdogTimeout, "0s", "eksim.io/watchdog-timeout: \"0s\" is not a positive duration"},
  };
  for (const auto& c : cases) {
    k8s::PodTemplate t;
    t.meta.annotations = {{kAnnotationTraining, "allreduce"}, {kAnnotationGradientBytes, "1Mi"}, {kAnnotationSteps, "1"}};
    t.meta.annotations[c.key] = c.value;
    std::string err;
    EXPECT_FALSE(training_spec(t, &err)) << c.key;
    EXPECT_EQ(err, c.error);
  }
  k8s::PodTemplate plain;
  std::string err;
  EXPECT_FALSE(training_spec(plain, &err));
  EXPECT_EQ(err, "");
}

// --- lab 000: success --------------------------------------------------------------------------

TEST(TrainingControllerTest, Lab000TrainsAtTheNicBaseline) {
  Scenario s = load("lab000-allreduce.yaml");
  RunResult run = ops::run_scenario(s);
  TrainingJobStatus st = status_of(run, "allreduce");
  EXPECT_EQ(st.phase, TrainingPhase::Succeeded);
  EXPECT_EQ(st.attempts, 1);
  EXPECT_EQ(st.ranks, 2);
  EXPECT_EQ(st.nodes, 2);
  EXPECT_FALSE(st.cross_az);
  EXPECT_EQ(st.steps_done, 300);
  // g5.xlarge sustains its 2.5 Gbps baseline (32 sockets, each under the 5 Gbps flow cap), of
  // which a collective sees net_bandwidth_efficiency (0.91): the ring's bandwidth term is
  // 2(n-1)/n x S / B = 104857600 B / 0.284 GB/s = 368.7 ms, plus NCCL's latency (LL/Simple base +
  // 4 NET hops + RTT/2 each) under a millisecond and Simple's pipeline fill (4 MiB at the NIC's
  // rate, 14.7 ms).
  const double eff = default_net_params().nccl.net_bandwidth_efficiency;
  const double rate = 0.3125e9 * eff;
  const double transfer = 104857600.0 / rate, fill = 4194304.0 / rate;
  EXPECT_GT(st.comm_time_s, transfer + fill);
  EXPECT_LT(st.comm_time_s, transfer + fill + 0.001);
  EXPECT_NEAR(st.step_time_s, 0.2 + st.comm_time_s, 1e-9);
  EXPECT_NEAR(st.comm_share, st.comm_time_s / st.step_time_s, 1e-12);
  EXPECT_NEAR(st.busbw_gbytes_per_s, 104857600.0 / (transfer + fill) / 1e9, 0.001);
  EXPECT_DOUBLE_EQ(st.busbw_gbytes_per_s, st.algbw_gbytes_per_s);  // 2(n-1)/n = 1 for n = 2
  EXPECT_EQ(st.cross_az_bytes, 0);
  EXPECT_EQ(run.cluster->cross_az_transfer_usd, 0);
  // The pods ran for the whole training and then exited 0.
  ASSERT_TRUE(st.training_started_at && st.finished_at);
  EXPECT_NEAR((*st.finished_at - *st.training_started_at).to_seconds(), 300 * st.step_time_s, 1e-3);
  int succeeded = 0;
  for (std::size_t i = 0; i < run.cluster->api.pod_slots(); ++i) {
    const auto& p = run.cluster->api.pod(k8s::PodId{static_cast<std::uint32_t>(i)}).pod;
    if (p.meta.name.rfind("allreduce-", 0) != 0) continue;
    EXPECT_EQ(p.status.phase, k8s::PodPhase::Succeeded) << p.meta.name;
    EXPECT_EQ(p.status.finished_at, st.finished_at);
    ++succeeded;
  }
  EXPECT_EQ(succeeded, 2);
}

// --- reachability, per kind of rule, as the controller asks it -------------------------------

struct SgCase {
  const char* name;
  std::vector<SecurityGroupRuleSpec> node_ingress;  // replaces node-sg's ingress; aux-sg has none
  bool node_egress_all;  // else egress TCP 443 only (registries, endpoint: the nodes still start)
  bool trains;
};

TEST(TrainingControllerTest, SecurityGroupRuleKinds) {
  const SgCase cases[] = {
      {"self-group ephemeral rule (module's ingress_nodes_ephemeral)", {rule("tcp", 1025, 65535, "node-sg", "")}, true, true},
      {"all traffic from the VPC CIDR (lab's allow_vpc_all)", {rule("-1", 0, 0, "", "192.168.0.0/16")}, true, true},
      {"tcp from the GPU subnet's CIDR", {rule("tcp", 0, 65535, "", "192.168.12.0/22")}, true, true},
      {"tcp from another subnet's CIDR", {rule("tcp", 0, 65535, "", "192.168.16.0/22")}, true, false},
      {"tcp self, below Linux's ephemeral range", {rule("tcp", 1025, 32767, "node-sg", "")}, true, false},
      {"udp only", {rule("udp", 1025, 65535, "node-sg", "")}, true, false},
      {"group rule naming another group", {rule("tcp", 1025, 65535, "cluster-sg", "")}, true, false},
      {"ingress open, egress only https", {rule("-1", 0, 0, "", "192.168.0.0/16")}, false, false},
  };
  for (const auto& c : cases) {
    Scenario s = load("lab000-allreduce.yaml");
    s.duration = engine::Duration::minutes(12);
    SecurityGroupSpec* node = security_group(s, "node-sg");
    SecurityGroupSpec* aux = security_group(s, "aux-sg");
    ASSERT_TRUE(node && aux);
    node->ingress = c.node_ingress;
    node->egress_given = true;
    node->egress.clear();
    // With no egress at all the nodes could not pull aws-node from ECR and would never be Ready.
    node->egress.push_back(c.node_egress_all ? rule("-1", 0, 0, "", "0.0.0.0/0") : rule("tcp", 443, 443, "", "0.0.0.0/0"));
    aux->ingress.clear();
    aux->egress_given = true;
    aux->egress.clear();
    RunResult run = ops::run_scenario(s);
    TrainingJobStatus st = status_of(run, "allreduce");
    EXPECT_EQ(st.phase == TrainingPhase::Succeeded || st.phase == TrainingPhase::Training, c.trains)
        << c.name << ": " << training_phase_name(st.phase);
    EXPECT_EQ(st.failed_attempts > 0, !c.trains) << c.name;
  }
}

// --- the hang and the watchdog, in simulated time ----------------------------------------------

TEST(TrainingControllerTest, BlockedRingHangsUntilTheWatchdogThenARestoreLetsTheRetryTrain) {
  Scenario s = load("sg-block-restore-nccl-2.27.yaml");  // PyTorch 2.8: NCCL 2.27.3
  RunResult run = ops::run_scenario(s);
  TrainingJobStatus st = status_of(run, "allreduce");
  EXPECT_EQ(st.attempts, 2);
  EXPECT_EQ(st.failed_attempts, 1);
  EXPECT_EQ(st.phase, TrainingPhase::Succeeded);

  auto failed = events(run, "TrainingFailed");
  ASSERT_EQ(failed.size(), 1u);
  // The gang formed when the last of the first two pods started.
  engine::SimTime gang;
  for (std::size_t i = 0; i < run.cluster->api.pod_slots(); ++i) {
    const auto& p = run.cluster->api.pod(k8s::PodId{static_cast<std::uint32_t>(i)}).pod;
    if (p.meta.name.rfind("allreduce-", 0) == 0 && p.status.phase == k8s::PodPhase::Failed && p.status.started_at)
      gang = std::max(gang, *p.status.started_at);
  }
  EXPECT_EQ(failed[0]->time - gang, engine::Duration::millis(600081));

  // NCCL's retry lines: each connect attempt waits the 127 s SYN timeout, then sleeps k x 100 ms.
  std::vector<const k8s::Event*> retries, watchdog;
  for (const auto* e : events(run, "ContainerLog")) {
    if (e->message.find("retrying (") != std::string::npos && e->time < failed[0]->time) retries.push_back(e);
    if (e->message.find("Watchdog caught") != std::string::npos) watchdog.push_back(e);
  }
  ASSERT_EQ(retries.size(), 4u);  // first gang: 127 s, 254.1 s, 381.3 s, 508.6 s < 600 s
  EXPECT_EQ(retries[0]->time - gang, engine::Duration::seconds(127));
  EXPECT_EQ(retries[1]->time - gang, engine::Duration::millis(254100));
  EXPECT_EQ(retries[3]->time - gang, engine::Duration::millis(508600));
  // The root connect carries the communicator's abort flag: non-blocking, so poll() sees the timeout.
  EXPECT_EQ(retries[0]->message.rfind("NCCL INFO socketPollConnect: connect to 192.168.", 0), 0u) << retries[0]->message;
  EXPECT_NE(retries[0]->message.find("> returned Connection timed out, retrying (1/34) after sleep for 100 msec"),
            std::string::npos);
  ASSERT_EQ(watchdog.size(), 2u);
  EXPECT_EQ(watchdog[0]->type, k8s::EventType::Warning);
  EXPECT_EQ(watchdog[0]->message,
            "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, "
            "NumelIn=26214400, NumelOut=26214400, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.");

  // The failed pods carry their rank's text; the Job replaced them after its back-off.
  int failed_pods = 0;
  for (std::size_t i = 0; i < run.cluster->api.pod_slots(); ++i) {
    const auto& p = run.cluster->api.pod(k8s::PodId{static_cast<std::uint32_t>(i)}).pod;
    if (p.meta.name.rfind("allreduce-", 0) != 0 || p.status.phase != k8s::PodPhase::Failed) continue;
    ++failed_pods;
    EXPECT_NE(p.status.message.find("Watchdog caught collective operation timeout"), std::string::npos);
    EXPECT_EQ(p.status.reason, "Error");
  }
  EXPECT_EQ(failed_pods, 2);
  const k8s::Job& job = run.cluster->api.jobs()[0];
  EXPECT_EQ(job.condition, "Complete");
  EXPECT_EQ(job.failed, 2);
}

TEST(TrainingControllerTest, RestoreDuringTheHangLetsTheNextConnectAttemptThrough) {
  Scenario s = load("sg-block-restore-nccl-2.27.yaml");
  ASSERT_EQ(s.timeline.size(), 1u);
  // Restore at 4 minutes: the gang formed before that and is still inside its first 600 s.
  s.timeline[0].at = engine::SimTime{} + engine::Duration::minutes(4);
  RunResult run = ops::run_scenario(s);
  TrainingJobStatus st = status_of(run, "allreduce");
  EXPECT_EQ(st.attempts, 1);
  EXPECT_EQ(st.failed_attempts, 0);
  EXPECT_EQ(st.phase, TrainingPhase::Succeeded);
  auto started = events(run, "TrainingStarted");
  ASSERT_EQ(started.size(), 1u);
  const k8s::Event* last_retry = nullptr;
  for (const auto* e : events(run, "ContainerLog")) last_retry = e;
  ASSERT_NE(last_retry, nullptr);
  EXPECT_LE(last_retry->time, started[0]->time);
  EXPECT_GT(started[0]->time, engine::SimTime{} + engine::Duration::minutes(4));
  EXPECT_LT(started[0]->time - last_retry->time, engine::Duration::seconds(1));  // the sleep
}

TEST(TrainingControllerTest, WatchdogTimeoutAnnotationMovesTheFailure) {
  Scenario s = load("sg-block-restore-nccl-2.27.yaml");
  s.timeline.clear();
  s.duration = engine::Duration::minutes(8);
  auto* job = std::get_if<k8s::Job>(&s.manifests.at(0).object);
  ASSERT_NE(job, nullptr);
  job->tmpl->meta.annotations[kAnnotationWatchdogTimeout] = "3m";
  RunResult run = ops::run_scenario(s);
  TrainingJobStatus st = status_of(run, "allreduce");
  ASSERT_GE(st.failed_attempts, 1);
  EXPECT_NE(st.failure_text.find("Timeout(ms)=180000) ran for 180081 milliseconds"), std::string::npos)
      << st.failure_text;
}

// PyTorch 2.5.1's NCCL 2.21.5: one SYN timeout, ECONNABORTED, DistBackendError; no retries, no
// watchdog. The restore at 4m is seen by the retried gang's SYN 63 s into its connect.
TEST(TrainingControllerTest, Nccl2215GivesUpAfterOneSynTimeoutAndASynSeesTheRestore) {
  Scenario s = load("sg-block-restore.yaml");
  RunResult run = ops::run_scenario(s);
  TrainingJobStatus st = status_of(run, "allreduce");
  EXPECT_EQ(st.attempts, 2);
  EXPECT_EQ(st.failed_attempts, 1);
  EXPECT_EQ(st.phase, TrainingPhase::Succeeded);
  auto failed = events(run, "TrainingFailed");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_NE(failed[0]->message.find("failed after 2m7.001s: torch.distributed.DistBackendError: NCCL error in: "
                                    "../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled system error (run "
                                    "with NCCL_DEBUG=INFO for details), NCCL version 2.21.5"),
            std::string::npos)
      << failed[0]->message;
  std::vector<std::string> lines;
  for (const auto* e : events(run, "ContainerLog")) lines.push_back(e->message);
  ASSERT_GE(lines.size(), 9u);
  EXPECT_EQ(lines[0].rfind("misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 192.168.", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("> failed : Software caused connection abort"), std::string::npos);
  EXPECT_EQ(lines[1], "NCCL INFO misc/socket.cc:567 -> 2");
  EXPECT_EQ(lines[4], "NCCL INFO init.cc:1534 -> 2");
  EXPECT_EQ(lines[6], "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ");
  EXPECT_EQ(lines[7], "Last error:");
  EXPECT_EQ(lines[8], lines[0].substr(std::string("misc/socket.cc:484 NCCL WARN ").size()));
  auto started = events(run, "TrainingStarted");
  ASSERT_EQ(started.size(), 1u);
  // The second gang's pods started at some t; its SYN at t + 63 s passed the restored rule.
  engine::SimTime second_gang;
  for (std::size_t i = 0; i < run.cluster->api.pod_slots(); ++i) {
    const auto& p = run.cluster->api.pod(k8s::PodId{static_cast<std::uint32_t>(i)}).pod;
    if (p.meta.name.rfind("allreduce-", 0) == 0 && p.status.phase == k8s::PodPhase::Succeeded && p.status.started_at)
      second_gang = std::max(second_gang, *p.status.started_at);
  }
  EXPECT_EQ(started[0]->time - second_gang, engine::Duration::seconds(63));
}

// --- cross-AZ and NIC sharing ----------------------------------------------------------------

TEST(TrainingControllerTest, CrossAzRingIsSlowerAndPaysForTransfer) {
  RunResult same = ops::run_scenario(load("lab000-allreduce.yaml"));
  RunResult cross = ops::run_scenario(load("subnets-typo-cross-az.yaml"));
  TrainingJobStatus a = status_of(same, "allreduce");
  TrainingJobStatus b = status_of(cross, "allreduce");
  EXPECT_TRUE(b.cross_az);
  ASSERT_EQ(b.phase, TrainingPhase::Succeeded);
  // Same bandwidth; 2 ranks make 2 ring steps, both inter-node, each paying (1.0 - 0.2) / 2 ms
  // more of RTT/2, times NCCL's ring plateau for Simple (1.4).
  EXPECT_NEAR(b.step_time_s - a.step_time_s, 2 * 0.0004 * 1.4, 1e-6);
  // Both inter-node edges cross: 2 x 300 steps x 104857600 B, $0.01/GB on each side.
  EXPECT_DOUBLE_EQ(b.cross_az_bytes, 2.0 * 300 * 104857600.0);
  EXPECT_NEAR(cross.cluster->cross_az_transfer_usd, 2.0 * 300 * 104857600.0 / 1e9 * 0.02, 1e-9);
}

TEST(TrainingControllerTest, TwoJobsOnTheSameNicsShareThemMaxMin) {
  Scenario s = load("nic-sharing.yaml");
  RunResult run = ops::run_scenario(s);
  TrainingJobStatus a = status_of(run, "job-a");
  TrainingJobStatus b = status_of(run, "job-b");
  ASSERT_EQ(a.phase, TrainingPhase::Succeeded);
  ASSERT_EQ(b.phase, TrainingPhase::Succeeded);
  // Two nodes run Tree: each byte crosses a NIC once each way (a ring: 2(n-1)/n = 1.5 times), at
  // NCCL's tree efficiency 0.92 and its correction 0.9 at 400 MiB. Alone, a collective sees 91 % of
  // the 40 Gbps NIC (under the sockets' 39 Gb/s); Simple first fills 4 MiB at each GPU's half.
  Scenario alone_s = load("nic-sharing.yaml");
  alone_s.timeline.clear();
  RunResult alone = ops::run_scenario(alone_s);
  TrainingJobStatus solo = status_of(alone, "job-a");
  const double S = 419430400.0;
  const double tree = 2 * 0.92 * 0.5 * 0.9;
  const double eff = default_net_params().nccl.net_bandwidth_efficiency;
  const double solo_rate = 40e9 / 8 * eff, shared_rate = 20e9 / 8 * eff;
  const double solo_s = S / (solo_rate * tree) + 4194304.0 / (solo_rate / 2);
  EXPECT_NEAR(solo.comm_time_s, solo_s, 0.001);
  EXPECT_NEAR(solo.busbw_gbytes_per_s, 1.5 * S / solo_s / 1e9, 0.05);
  // job-b ran entirely beside job-a: half of each NIC (20 Gb/s).
  const double shared_s = S / (shared_rate * tree) + 4194304.0 / (shared_rate / 2);
  EXPECT_NEAR(b.comm_time_s, shared_s, 0.002);
  EXPECT_NEAR(b.busbw_gbytes_per_s, 1.5 * S / shared_s / 1e9, 0.03);
  EXPECT_GT(b.step_time_s, solo.step_time_s);
  // job-a: alone, shared, alone again: in between.
  EXPECT_GT(a.step_time_s, solo.step_time_s);
  EXPECT_LT(a.step_time_s, b.step_time_s);
  auto changes = events(run, "TrainingStepTime");
  EXPECT_EQ(std::count_if(changes.begin(), changes.end(),
                          [](const k8s::Event* e) { return e->object.name == "job-a"; }),
            2);
}

}  // namespace
}  // namespace eksim::net
