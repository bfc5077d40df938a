#include "sim/scenario/workloads.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "models/cluster/cluster.hpp"
#include "sim/ops/runner.hpp"
#include "sim/ops/workload_arrivals.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::scenario {
namespace {

// Reading generators here; their arrivals (sim/ops/workload_arrivals.hpp) and a run with them.
using ops::draw_arrivals;
using ops::RunOptions;
using ops::RunResult;
using ops::run_scenario;

class WorkloadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("eksim-workloads-test-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& rel, const std::string& text) {
    std::ofstream(dir_ / rel) << text;
    return (dir_ / rel).string();
  }
  Scenario scenario(const std::string& workloads) {
    return load_scenario(write("s.yaml",
                               "apiVersion: eksim/v1\nkind: Scenario\nmetadata: {name: w}\nduration: 10h\n"
                               "cluster:\n  region: ap-northeast-2\n  vpc:\n    subnets: [{id: a, az: ap-northeast-2a, cidr: 10.0.0.0/24}]\n"
                               "workloads:\n" + workloads));
  }
  std::filesystem::path dir_;
};

TEST_F(WorkloadsTest, PoissonArrivalsAreDeterministicPerSeedAndNearTheRate) {
  Scenario s = scenario("  training: {arrival: poisson, ratePerHour: 6, gpus: 2, duration: 20m}\n");
  ASSERT_EQ(s.workloads.size(), 1u);
  Cluster a(s.cluster, 1), b(s.cluster, 1), c(s.cluster, 2);
  auto end = engine::SimTime{} + engine::Duration::hours(10);
  auto xa = draw_arrivals(s.workloads[0], a, end), xb = draw_arrivals(s.workloads[0], b, end),
       xc = draw_arrivals(s.workloads[0], c, end);
  ASSERT_EQ(xa.size(), xb.size());
  for (std::size_t i = 0; i < xa.size(); ++i) EXPECT_EQ(xa[i].at, xb[i].at);
  EXPECT_NE(xa.size() == xc.size() && xa[0].at == xc[0].at, true);
  // 60 expected; a Poisson count lies within +-4 sigma (31) of it.
  EXPECT_GT(xa.size(), 29u);
  EXPECT_LT(xa.size(), 91u);
  EXPECT_EQ(xa[0].name, "training-0001");
  EXPECT_EQ(xa[0].gpus, 2);
  EXPECT_EQ(xa[0].duration, engine::Duration::minutes(20));
  for (std::size_t i = 1; i < xa.size(); ++i) EXPECT_LE(xa[i - 1].at, xa[i].at);
}

TEST_F(WorkloadsTest, DiurnalRateFollowsTheHourOfDay) {
  Scenario s = scenario("  web: {arrival: diurnal, kind: Deployment, ratePerHour: 20, peakHour: 12, amplitude: 1, until: 40h}\n");
  Cluster c(s.cluster, 3);
  auto xs = draw_arrivals(s.workloads[0], c, engine::SimTime{} + engine::Duration::hours(48));
  int near_peak = 0, near_trough = 0;
  double start_h = static_cast<double>(c.start_epoch_seconds() % 86400) / 3600.0;
  for (const auto& x : xs) {
    double h = std::fmod(start_h + x.at.to_seconds() / 3600.0, 24.0);
    EXPECT_LT(x.at.to_seconds(), 40 * 3600.0);
    if (std::abs(h - 12) < 2) ++near_peak;
    if (h < 2 || h > 22) ++near_trough;
  }
  EXPECT_EQ(xs.empty() ? "" : xs[0].kind, "Deployment");
  // 4 hours around the peak against 4 around the trough, over 40 hours: about 120 against 1.
  EXPECT_GT(near_peak, 5 * (near_trough + 1));
}

TEST_F(WorkloadsTest, TraceReplayAndLocatedCsvErrors) {
  write("t.csv", "time,kind,name,gpus,duration\n# comment\n90s,Job,train-a,1,10m\n0,Deployment,serve-a,2,1h\n");
  Scenario s = scenario("  replay: {arrival: trace, file: t.csv, maxArrivals: 5}\n");
  Cluster c(s.cluster, 1);
  auto xs = draw_arrivals(s.workloads[0], c, engine::SimTime{} + engine::Duration::hours(10));
  ASSERT_EQ(xs.size(), 2u);
  EXPECT_EQ(xs[0].name, "serve-a");
  EXPECT_EQ(xs[0].gpus, 2);
  EXPECT_EQ(xs[1].at, engine::SimTime{} + engine::Duration::seconds(90));

  write("bad.csv", "time,kind,name,gpus,duration\n1m,Job,x,many,5m\n");
  try {
    scenario("  replay: {arrival: trace, file: bad.csv}\n");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, (dir_ / "bad.csv").string());
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.where().column, 10);
  }
}

TEST_F(WorkloadsTest, StrictKeys) {
  try {
    scenario("  training: {arrival: poisson, ratePerHour: 6, gpu: 1}\n");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean \"gpus\""), std::string::npos) << e.what();
  }
  EXPECT_THROW(scenario("  training: {arrival: poison, ratePerHour: 6}\n"), InputError);
  EXPECT_THROW(scenario("  training: {arrival: poisson}\n"), InputError);
  EXPECT_THROW(scenario("  Bad_Name: {arrival: poisson, ratePerHour: 1}\n"), InputError);
}

TEST_F(WorkloadsTest, ArrivalsCreateJobsThroughTheController) {
  Scenario s = scenario("  training: {arrival: poisson, ratePerHour: 12, gpus: 1, duration: 5m, maxArrivals: 3}\n");
  RunOptions o;
  o.until = engine::Duration::hours(2);
  RunResult r = run_scenario(s, o);
  auto& jobs = r.cluster->api.jobs();
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].meta.name, "training-0001");
  EXPECT_EQ(jobs[0].tmpl->meta.annotations.at("eksim.io/duration"), "5m0s");
  EXPECT_EQ(jobs[0].tmpl->spec.containers[0].limits.get(k8s::kNvidiaGpu), 1);
  EXPECT_GE(r.cluster->api.pod_slots(), 3u);  // each Job made its pod (no GPU node: they stay Pending)
}

}  // namespace
}  // namespace eksim::scenario
