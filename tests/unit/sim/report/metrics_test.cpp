#include "sim/report/metrics.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "sim/report/run_facts.hpp"
#include "sim/report/run_metrics.hpp"
#include "sim/report/trace.hpp"
#include "sim/ops/runner.hpp"

namespace eksim::report {
namespace {

scenario::Scenario example() {
  return scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/examples/two-nodegroups.yaml");
}

TEST(MetricsTest, SamplesEveryIntervalFromZeroToTheEnd) {
  scenario::Scenario s = example();
  MetricsRecorder rec;
  ops::RunOptions o;
  o.until = engine::Duration::minutes(10);
  o.sample_interval = engine::Duration::minutes(2);
  o.sample = [&rec](const Cluster& c) { rec.sample(c); };
  ops::RunResult run = ops::run_scenario(s, o);
  const auto& xs = rec.samples();
  ASSERT_EQ(xs.size(), 6u);  // 0, 2, 4, 6, 8, 10 minutes
  EXPECT_EQ(xs.front().time_s, 0);
  EXPECT_EQ(xs.back().time_s, 600);
  for (std::size_t i = 1; i < xs.size(); ++i) EXPECT_GE(xs[i].cost_usd, xs[i - 1].cost_usd);
  // At 4 minutes both groups' nodes are up and the GPU was advertised (the example's expectations).
  EXPECT_EQ(xs[2].nodes_by_group.at("system:on-demand"), 2);
  EXPECT_EQ(xs[2].nodes_by_group.at("gpu:on-demand"), 1);
  EXPECT_EQ(xs[2].gpus_allocatable, 1);
  EXPECT_EQ(xs[2].gpus_allocated + xs[2].gpus_idle, 1);
  EXPECT_NEAR(xs.back().cost_usd, total_cost_usd(run), 1e-9);

  std::string csv = rec.csv();
  std::istringstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header,
            "time_s,nodes,nodes_ready,pods_pending,pods_running,gpus_allocatable,gpus_allocated,gpus_idle,cost_usd,"
            "nodes:gpu:on-demand,nodes:system:on-demand");
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first.substr(0, 2), "0,");
}

TEST(MetricsTest, SamplingDoesNotChangeTheRun) {
  scenario::Scenario s = example();
  ops::RunOptions plain, sampled;
  MetricsRecorder rec;
  sampled.sample_interval = engine::Duration::seconds(7);
  sampled.sample = [&rec](const Cluster& c) { rec.sample(c); };
  auto a = ops::run_scenario(s, plain), b = ops::run_scenario(s, sampled);
  ASSERT_EQ(a.cluster->log.events().size(), b.cluster->log.events().size());
  for (std::size_t i = 0; i < a.cluster->log.events().size(); ++i) {
    EXPECT_EQ(a.cluster->log.events()[i].time, b.cluster->log.events()[i].time);
    EXPECT_EQ(a.cluster->log.events()[i].message, b.cluster->log.events()[i].message);
  }
}

TEST(RunHeadlineTest, PercentilesAndGpuHours) {
  EXPECT_EQ(percentile({}, 0.5), 0);
  EXPECT_EQ(percentile({3, 1, 2}, 0.5), 2);
  EXPECT_EQ(percentile({1, 2, 3, 4}, 0.5), 2);
  EXPECT_EQ(percentile({1, 2, 3, 4}, 0.95), 4);
  std::vector<double> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  EXPECT_EQ(percentile(hundred, 0.95), 95);

  scenario::Scenario s = example();
  auto run = ops::run_scenario(s);
  auto h = run_headline(run, check_expectations(run));
  EXPECT_EQ(h.pods, 2u);  // web and gpu-pod; DaemonSet pods do not count
  EXPECT_EQ(h.pods_unscheduled, 0u);
  EXPECT_EQ(h.expectations_failed, 0u);
  EXPECT_NEAR(h.gpu_hours_provisioned, 0.5, 0.02);  // one g5.xlarge for the 30-minute run
  EXPECT_GT(h.gpu_hours_allocated, 300.0 / 3600);  // gpu-pod holds its GPU at least its 300 s
  EXPECT_NEAR(h.gpu_hours_idle, h.gpu_hours_provisioned - h.gpu_hours_allocated, 1e-12);
  EXPECT_GT(h.pending_seconds.max, 0);
}

TEST(TraceTest, ChromeTraceHasProcessesTracksAndSlices) {
  scenario::Scenario s = example();
  auto run = ops::run_scenario(s);
  std::string t = chrome_trace(run);
  EXPECT_EQ(t.rfind("{\"displayTimeUnit\":\"ms\"", 0), 0u);
  EXPECT_NE(t.find("\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"args\":{\"name\":\"node group system\"}"),
            std::string::npos);
  EXPECT_NE(t.find("\"name\":\"Ready\",\"cat\":\"node\",\"ph\":\"X\""), std::string::npos);
  EXPECT_NE(t.find("\"name\":\"default/gpu-pod\",\"cat\":\"pod\",\"ph\":\"X\""), std::string::npos);
  EXPECT_NE(t.find("\"name\":\"FailedScheduling\",\"cat\":\"warning\",\"ph\":\"i\""), std::string::npos);
}

}  // namespace
}  // namespace eksim::report
