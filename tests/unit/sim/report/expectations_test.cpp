// The expectation checks against real runs (issue 41 item 13, issue 42 item 5): the stored count
// of an Event after the spam filter, a container's log, a Karpenter object's age and its
// conditions at a time, a deleted pod's phase, and times past the run's end.
#include "sim/report/expectations.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/cli/container_log_reader.hpp"
#include "sim/ops/runner.hpp"

namespace eksim::report {
namespace {

using engine::Duration;
using engine::SimTime;
using scenario::Expectation;

scenario::Scenario load(const std::string& file) {
  return scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/" + file);
}

SimTime at(Duration d) { return SimTime{} + d; }

Expectation condition(const std::string& subject, const std::string& name, const std::string& type,
                      const std::string& status) {
  Expectation e;
  e.subject = subject;
  e.name = name;
  e.condition_type = type;
  e.condition_status = status;
  return e;
}

Expectation age(const std::string& name, Duration d, SimTime when) {
  Expectation e;
  e.subject = "nodePool";
  e.name = name;
  e.age = d;
  e.at = when;
  return e;
}

std::vector<ExpectationResult> check(scenario::Scenario& s, std::vector<Expectation> expect,
                                     const ContainerLogReader& logs = {}, ops::RunOptions options = {}) {
  s.expectations = std::move(expect);
  ops::RunResult run = ops::run_scenario(s, options);
  return check_expectations(run, logs);
}

// Lab 002: the NodePool applied at 2m with its new EC2NodeClass is READY False at 5 s and AGE 5s;
// it turns Ready once the class is resolved, 6 s after the apply.
TEST(Expectations, NodePoolConditionAndAgeAtATime) {
  scenario::Scenario s = load("karpenter/lab002-nodepool-ready-age.yaml");
  s.duration = Duration::minutes(3);
  const SimTime t5 = at(Duration::seconds(125));
  Expectation ready_false = condition("nodePool", "gpu-pool", "Ready", "False");
  ready_false.at = t5;
  Expectation ready_true_at_5s = condition("nodePool", "gpu-pool", "Ready", "True");
  ready_true_at_5s.at = t5;
  Expectation ready_true_by = condition("nodePool", "gpu-pool", "Ready", "True");
  ready_true_by.by = at(Duration::seconds(130));
  Expectation ready_true_by_early = ready_true_by;
  ready_true_by_early.by = at(Duration::millis(125900));
  Expectation class_unknown = condition("nodeClass", "default", "Ready", "Unknown");
  class_unknown.at = t5;
  auto r = check(s, {ready_false, ready_true_at_5s, ready_true_by, ready_true_by_early, class_unknown,
                     age("gpu-pool", Duration::seconds(5), t5), age("gpu-pool", Duration::seconds(6), t5),
                     age("gpu-pool", Duration::seconds(5), at(Duration::minutes(1)))});
  ASSERT_EQ(r.size(), 8u);
  EXPECT_TRUE(r[0].passed) << r[0].detail;
  EXPECT_FALSE(r[1].passed) << r[1].detail;
  EXPECT_TRUE(r[2].passed) << r[2].detail;
  EXPECT_EQ(r[2].detail, "Ready=True reason Ready at 2m6s");
  EXPECT_FALSE(r[3].passed) << r[3].detail;
  EXPECT_TRUE(r[4].passed) << r[4].detail;
  EXPECT_TRUE(r[5].passed) << r[5].detail;
  EXPECT_EQ(r[5].detail, "AGE 5s at 2m5s (created at 2m0s), expected 5s");
  EXPECT_FALSE(r[6].passed);
  EXPECT_FALSE(r[7].passed);
  EXPECT_EQ(r[7].detail, "created only at 2m0s");
}

// Lab 001: the restarting nvidia-smi pod. The kubelet emitted more BackOff occurrences than the
// Event object counts (the spam filter held some back); storedCount reads the Event's.
TEST(Expectations, StoredCountIsTheEventObjectsNotTheOccurrences) {
  scenario::Scenario s = load("karpenter/lab001-auto-mode-gpu-pool.yaml");
  ops::RunResult run = ops::run_scenario(s);
  int stored = -1;
  for (const auto& e : run.cluster->log.copy_series())
    if (e.reason == "BackOff" && e.object.str() == "Pod/default/gpu-pod") stored = e.count;
  std::int64_t occurrences = 0;
  for (const auto& e : run.cluster->log.events())
    occurrences += e.reason == "BackOff" && e.object.str() == "Pod/default/gpu-pod";
  ASSERT_GT(stored, 0);
  ASSERT_NE(occurrences, stored);  // what makes the two forms differ

  Expectation e;
  e.subject = "event";
  e.event_reason = "BackOff";
  e.object = "Pod/default/gpu-pod";
  e.stored_count = stored;
  Expectation wrong = e;
  wrong.stored_count = occurrences;
  Expectation early = e;
  early.at = at(Duration::minutes(5));  // before the pod ran
  auto r = check(s, {e, wrong, early});
  EXPECT_TRUE(r[0].passed) << r[0].detail;
  EXPECT_FALSE(r[1].passed) << r[1].detail;
  EXPECT_FALSE(r[2].passed);
  EXPECT_EQ(r[2].detail, "no matching event by 5m0s");
}

TEST(Expectations, ContainerLogContainsText) {
  scenario::Scenario s = load("karpenter/lab001-auto-mode-gpu-pool.yaml");
  Expectation e;
  e.subject = "log";
  e.ns = "default";
  e.name = "gpu-pod";
  e.message_contains = "Driver Version: 570.195.03";
  Expectation absent = e;
  absent.absent = true;
  Expectation other = e;
  other.message_contains = "Driver Version: 535";
  Expectation no_container = e;
  no_container.log_container = "sidecar";
  auto r = check(s, {e, absent, other, no_container}, cli::container_log_reader());
  EXPECT_TRUE(r[0].passed) << r[0].detail;
  EXPECT_NE(r[0].detail.find("found: | NVIDIA-SMI 570.195.03"), std::string::npos) << r[0].detail;
  EXPECT_FALSE(r[1].passed);
  EXPECT_FALSE(r[2].passed);
  EXPECT_FALSE(r[3].passed);
  EXPECT_EQ(r[3].detail, "no container sidecar in pod default/gpu-pod");
  auto without_reader = check(s, {e});
  EXPECT_FALSE(without_reader[0].passed);
}

// A pod deleted at 1m is in no phase at 9m; before its deletion it was Running.
TEST(Expectations, DeletedPodIsNotRunningLater) {
  const auto dir = std::filesystem::temp_directory_path() / ("eksim-expect-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "s.yaml";
  std::ofstream(file) << R"(apiVersion: eksim/v1
kind: Scenario
metadata: {name: deleted}
duration: 10m
cluster:
  region: us-east-1
  nodeGroups: {ng: {instance_types: [m5.large], desired_size: 1, min_size: 1, max_size: 1}}
manifests:
  - {apiVersion: v1, kind: Pod, metadata: {name: x}, spec: {containers: [{name: c, image: busybox, command: [sleep, "3600"]}]}}
timeline:
  - {at: 2m, action: kubectl.delete, kind: Pod, name: x, namespace: default}
)";
  scenario::Scenario s = scenario::load_scenario(file.string());
  std::filesystem::remove_all(dir);
  Expectation running_at_9m;
  running_at_9m.subject = "pod";
  running_at_9m.ns = "default";
  running_at_9m.name = "x";
  running_at_9m.phase = "Running";
  running_at_9m.at = at(Duration::minutes(9));
  Expectation running_by_9m = running_at_9m;
  running_by_9m.at.reset();
  running_by_9m.by = at(Duration::minutes(9));
  auto r = check(s, {running_at_9m, running_by_9m});
  EXPECT_FALSE(r[0].passed) << r[0].detail;
  EXPECT_EQ(r[0].detail.rfind("was deleted at 9m0s (since 2m", 0), 0u) << r[0].detail;
  EXPECT_TRUE(r[1].passed) << r[1].detail;
}

// `--until` ending the run before an expectation's time: it fails, saying so.
TEST(Expectations, TimeAfterTheRunsEndFails) {
  scenario::Scenario s = load("karpenter/lab002-nodepool-ready-age.yaml");
  Expectation e = condition("nodePool", "gpu-pool", "Ready", "False");
  e.at = at(Duration::seconds(125));
  ops::RunOptions options;
  options.until = Duration::minutes(1);
  auto r = check(s, {e}, {}, options);
  EXPECT_FALSE(r[0].passed);
  EXPECT_EQ(r[0].detail, "the run ended at 1m0s, before \"at\" 2m5s");
}

}  // namespace
}  // namespace eksim::report
