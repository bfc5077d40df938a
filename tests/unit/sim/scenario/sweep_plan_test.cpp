#include "sim/scenario/sweep_plan.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <fstream>

namespace eksim::scenario {
namespace {

class SweepPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("eksim-sweep-plan-test-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    write("base.yaml",
          "apiVersion: eksim/v1\nkind: Scenario\nmetadata: {name: base}\nduration: 10m\ncluster:\n  region: ap-northeast-2\n"
          "  quotas: {onDemand: {G: 8}}\n  nodeGroups:\n    gpu:\n      instance_types: [g5.xlarge]\n      max_size: 2\n"
          "      labels: {nvidia.com/gpu: \"true\"}\n");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& rel, const std::string& text) {
    std::ofstream(dir_ / rel) << text;
    return (dir_ / rel).string();
  }
  std::string plan(const std::string& body) {
    return write("plan.yaml", "apiVersion: eksim/v1\nkind: SweepPlan\nmetadata: {name: p}\nscenario: base.yaml\n" + body);
  }
  std::filesystem::path dir_;
};

TEST_F(SweepPlanTest, GridIsTheProductWithTheLastParameterFastest) {
  SweepPlan p = load_sweep_plan(plan("seeds: 3\ngrid:\n  - {path: cluster.nodeGroups.gpu.max_size, values: [1, 2]}\n"
                                     "  - {path: cluster.quotas.onDemand.G, range: {from: 4, to: 12, step: 4}}\n"));
  ASSERT_EQ(p.points.size(), 6u);
  EXPECT_EQ(p.run_count(), 18u);
  EXPECT_EQ(p.seeds, (std::vector<std::uint64_t>{1, 2, 3}));
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& pt : p.points) got.emplace_back(pt.assignments[0].value_yaml, pt.assignments[1].value_yaml);
  std::vector<std::pair<std::string, std::string>> want{{"1", "4"}, {"1", "8"}, {"1", "12"}, {"2", "4"}, {"2", "8"}, {"2", "12"}};
  EXPECT_EQ(got, want);
  SweepRun r = sweep_run(p, 7);
  EXPECT_EQ(r.point, 2u);
  EXPECT_EQ(r.seed, 2u);
}

TEST_F(SweepPlanTest, SeedsFromCountAndList) {
  EXPECT_EQ(load_sweep_plan(plan("seeds: {from: 100, count: 3}\n")).seeds, (std::vector<std::uint64_t>{100, 101, 102}));
  EXPECT_EQ(load_sweep_plan(plan("seeds: [7, 3]\n")).seeds, (std::vector<std::uint64_t>{7, 3}));
  SweepPlan one = load_sweep_plan(plan(""));
  EXPECT_EQ(one.points.size(), 1u);
  EXPECT_EQ(one.run_count(), 1u);
}

TEST_F(SweepPlanTest, ExplicitPointsTimesGrid) {
  SweepPlan p = load_sweep_plan(plan("points:\n  - {cluster.nodeGroups.gpu.instance_types: [g5.xlarge]}\n"
                                     "  - {cluster.nodeGroups.gpu.instance_types: [g5.2xlarge]}\n"
                                     "grid: [{path: cluster.quotas.onDemand.G, values: [8, 16]}]\n"));
  ASSERT_EQ(p.points.size(), 4u);
  EXPECT_EQ(p.points[1].assignments[0].value_yaml, "[g5.xlarge]");
  EXPECT_EQ(p.points[1].assignments[1].value_yaml, "16");
  EXPECT_EQ(p.points[2].assignments[0].value_yaml, "[g5.2xlarge]");
}

TEST_F(SweepPlanTest, UnknownKeyIsLocatedWithSuggestion) {
  try {
    load_sweep_plan(plan("seed: 3\n"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 5);
    EXPECT_NE(std::string(e.what()).find("did you mean \"seeds\""), std::string::npos) << e.what();
  }
}

TEST_F(SweepPlanTest, WrongKindAndBadGridEntries) {
  write("k.yaml", "apiVersion: eksim/v1\nkind: Scenario\nscenario: base.yaml\n");
  EXPECT_THROW(load_sweep_plan((dir_ / "k.yaml").string()), InputError);
  EXPECT_THROW(load_sweep_plan(plan("grid: [{path: a.b}]\n")), InputError);
  EXPECT_THROW(load_sweep_plan(plan("grid: [{path: a.b, values: []}]\n")), InputError);
  EXPECT_THROW(load_sweep_plan(plan("seeds: 0\n")), InputError);
}

std::string plan_error(const std::function<void()>& load) {
  try {
    load();
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

// A plan's size is checked before it is expanded: seeds or a grid in the billions are one located
// error at once, not gigabytes of points. The same seed twice would write two identical run lines.
TEST_F(SweepPlanTest, PlansBeyondAMillionRunsAndRepeatedSeedsAreRefused) {
  const std::string file = (dir_ / "plan.yaml").string();
  EXPECT_EQ(plan_error([&] { load_sweep_plan(plan("seeds: 4000000000\n")); }),
            file + ":5:8: error: expected a number of seeds from 1 to 1000000, got 4000000000");
  EXPECT_EQ(plan_error([&] { load_sweep_plan(plan("seeds: {from: 1, count: 1000001}\n")); }),
            file + ":5:25: error: expected a number of seeds from 1 to 1000000, got 1000001");
  std::string grid = "seeds: 1000\ngrid:\n";
  for (const char* path : {"a", "b", "c"}) grid += std::string("  - {path: ") + path + ", range: {from: 1, to: 11}}\n";
  EXPECT_EQ(plan_error([&] { load_sweep_plan(plan(grid)); }),
            file + ":1:1: error: this sweep plan has more than 1000000 runs (points x seeds); split it into several plans");
  EXPECT_EQ(plan_error([&] { load_sweep_plan(plan("seeds: [1, 7, 1]\n")); }), file + ":5:15: error: seed 1 is listed twice");
  EXPECT_EQ(load_sweep_plan(plan("seeds: 1000\ngrid: [{path: a, range: {from: 1, to: 1000}}]\n")).run_count(), 1000000u);
}

TEST_F(SweepPlanTest, PointsEditTheBaseTree) {
  SweepPlan p = load_sweep_plan(plan("grid:\n  - {path: cluster.nodeGroups.gpu.max_size, values: [5]}\n"
                                     "  - {path: cluster.quotas.onDemand.P, values: [96]}\n"
                                     "  - {path: cluster.nodeGroups.gpu.labels.nvidia.com/gpu, values: [\"false\"]}\n"));
  YAML::Node t = point_tree(p, 0);
  EXPECT_EQ(t["cluster"]["nodeGroups"]["gpu"]["max_size"].as<int>(), 5);
  EXPECT_EQ(t["cluster"]["quotas"]["onDemand"]["P"].as<int>(), 96);
  EXPECT_EQ(t["cluster"]["quotas"]["onDemand"]["G"].as<int>(), 8);  // untouched
  EXPECT_EQ(t["cluster"]["nodeGroups"]["gpu"]["labels"]["nvidia.com/gpu"].as<std::string>(), "false");
  Scenario s = load_point_scenario(p, 0);
  EXPECT_EQ(s.cluster.node_groups.at(0).max_size, 5);
  EXPECT_EQ(s.file, (dir_ / "base.yaml").lexically_normal().string());
}

TEST_F(SweepPlanTest, AssignPathIntoListsAndErrors) {
  YAML::Node root = YAML::Load("a: {list: [x, y], s: 1}");
  Location at{"plan.yaml", 3, 5};
  assign_path(root, "a.list.1", YAML::Load("z"), at);
  EXPECT_EQ(root["a"]["list"][1].as<std::string>(), "z");
  try {
    assign_path(root, "a.list.x", YAML::Load("1"), at);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(std::string(e.what()).find("is a list"), std::string::npos);
  }
  EXPECT_THROW(assign_path(root, "a.list.5", YAML::Load("1"), at), InputError);
  EXPECT_THROW(assign_path(root, "a.s.t", YAML::Load("1"), at), InputError);
}

TEST(SweepShardTest, ParseShard) {
  EXPECT_EQ(parse_shard("0/4"), (std::optional<std::pair<std::size_t, std::size_t>>{{0, 4}}));
  EXPECT_EQ(parse_shard("3/4"), (std::optional<std::pair<std::size_t, std::size_t>>{{3, 4}}));
  for (const char* bad : {"4/4", "1/0", "a/2", "1", "-1/2", "1/2/3", "", "/2"}) EXPECT_FALSE(parse_shard(bad)) << bad;
}

TEST(SweepShardTest, ShardsPartitionTheRuns) {
  for (std::size_t n : {1u, 2u, 3u, 7u, 200u}) {
    std::vector<int> seen(180, 0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t r : shard_runs(180, i, n)) ++seen[r];
    for (int c : seen) EXPECT_EQ(c, 1) << n;
  }
  EXPECT_EQ(shard_runs(10, 1, 3), (std::vector<std::size_t>{1, 4, 7}));
}

}  // namespace
}  // namespace eksim::scenario
