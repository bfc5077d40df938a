// Issue 16, item 4: the timeline shows only what the real cluster and AWS would show, when they
// would show it. eksim's own remarks go to HINTS (text), `hints` (JSON) and {hint: KIND}
// expectations; an EKS update shows InProgress at its start and its outcome at its end.
#include <gtest/gtest.h>

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sim/report/expectations.hpp"
#include "sim/report/json_report.hpp"
#include "sim/report/timeline.hpp"
#include "sim/ops/runner.hpp"

namespace eksim::report {
namespace {

scenario::Scenario lab(const std::string& file) {
  return scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/labs/" + file);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

const char* kSubnetsHint =
    "terraform-aws-modules/eks silently ignores unknown key \"subnets\" in eks_managed_node_groups.gpu; subnet_ids "
    "is unset, so the node group uses the cluster's subnets: private-a (ap-northeast-2a), private-b "
    "(ap-northeast-2b), private-c (ap-northeast-2c)";

TEST(Hints, SubnetsTypoIsAHintAndNoEvent) {
  scenario::Scenario s = lab("000-subnets-typo.yaml");
  ops::RunResult run = ops::run_scenario(s);
  const k8s::EventLog& log = run.cluster->log;
  for (const auto& e : log.events()) {
    EXPECT_NE(e.source, "eksim") << e.reason;
    EXPECT_NE(e.reason, "IgnoredNodeGroupKey");
  }
  for (const auto& e : log.copy_series()) EXPECT_NE(e.source, "eksim") << e.reason;
  ASSERT_EQ(log.hints().size(), 1u);
  const k8s::Hint& h = log.hints()[0];
  EXPECT_EQ(h.time, engine::SimTime{});
  EXPECT_EQ(h.kind, "IgnoredNodeGroupKey");
  EXPECT_EQ(h.object.str(), "Nodegroup/gpu");
  EXPECT_EQ(h.message, kSubnetsHint);

  std::string timeline = format_timeline(run);
  EXPECT_EQ(timeline.find("IgnoredNodeGroupKey"), std::string::npos);
  EXPECT_EQ(timeline.find("silently ignores"), std::string::npos);
  EXPECT_EQ(format_hints(run), std::string("\nHINTS\n") +
                                   "TIME          KIND                OBJECT        MESSAGE\n"
                                   "00:00:00.000  IgnoredNodeGroupKey Nodegroup/gpu " + kSubnetsHint + "\n");

  nlohmann::json j = nlohmann::json::parse(json_report(run, check_expectations(run)));
  ASSERT_TRUE(j.contains("hints"));
  ASSERT_EQ(j["hints"].size(), 1u);
  EXPECT_EQ(j["hints"][0]["time"], 0.0);
  EXPECT_EQ(j["hints"][0]["kind"], "IgnoredNodeGroupKey");
  EXPECT_EQ(j["hints"][0]["object"], "Nodegroup/gpu");
  EXPECT_EQ(j["hints"][0]["message"], kSubnetsHint);
  for (const auto& e : j["events"]) EXPECT_NE(e["source"], "eksim");
}

TEST(Hints, NoHintsNoSectionAndAnEmptyArray) {
  scenario::Scenario s = scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/examples/two-nodegroups.yaml");
  ops::RunOptions o;
  o.until = engine::Duration::minutes(2);
  ops::RunResult run = ops::run_scenario(s, o);
  EXPECT_EQ(format_hints(run), "");
  nlohmann::json j = nlohmann::json::parse(json_report(run, {}));
  ASSERT_TRUE(j.contains("hints"));
  EXPECT_TRUE(j["hints"].is_array());
  EXPECT_TRUE(j["hints"].empty());
}

TEST(Hints, TerraformDesiredSizeIsAHintAtTheApply) {
  scenario::Scenario s = lab("000-gpu-nodegroup-scale.yaml");
  ops::RunResult run = ops::run_scenario(s);
  for (const auto& e : run.cluster->log.events()) EXPECT_NE(e.reason, "DesiredSizeIgnored");
  ASSERT_EQ(run.cluster->log.hints().size(), 1u);
  const k8s::Hint& h = run.cluster->log.hints()[0];
  EXPECT_EQ(h.time, engine::SimTime{} + engine::Duration::minutes(5));
  EXPECT_EQ(h.kind, "DesiredSizeIgnored");
  EXPECT_EQ(h.object.str(), "Nodegroup/gpu");
  EXPECT_EQ(h.message,
            "terraform apply left desired_size at 0 (requested 2): the module ignores changes to "
            "scaling_config[0].desired_size on an existing node group; use aws eks update-nodegroup-config "
            "--nodegroup-name gpu --scaling-config desiredSize=2");
  EXPECT_EQ(format_timeline(run).find("DesiredSizeIgnored"), std::string::npos);
}

TEST(Hints, HintExpectationsCountKindObjectMessageAndTime) {
  scenario::Scenario s = lab("000-gpu-nodegroup-scale.yaml");
  auto add = [&](std::string kind, std::string object, std::string contains, std::int64_t count,
                 std::optional<engine::SimTime> by) {
    scenario::Expectation e;
    e.subject = "hint";
    e.description = kind;
    e.hint_kind = std::move(kind);
    e.object = std::move(object);
    e.message_contains = std::move(contains);
    e.count = count;
    e.by = by;
    s.expectations = {e};
  };
  auto passed = [&] {
    ops::RunOptions o;
    o.until = engine::Duration::minutes(6);
    ops::RunResult run = ops::run_scenario(s, o);
    auto results = check_expectations(run);
    return results.at(0).passed;
  };
  add("DesiredSizeIgnored", "Nodegroup/gpu", "desiredSize=2", 1, std::nullopt);
  EXPECT_TRUE(passed());
  add("DesiredSizeIgnored", "Nodegroup/gpu", "desiredSize=3", 1, std::nullopt);
  EXPECT_FALSE(passed());
  add("DesiredSizeIgnored", "Nodegroup/primary", "", 1, std::nullopt);
  EXPECT_FALSE(passed());
  add("DesiredSizeIgnored", "", "", 1, engine::SimTime{} + engine::Duration::minutes(4));
  EXPECT_FALSE(passed());  // made at 5m
  add("IgnoredNodeGroupKey", "", "", 0, std::nullopt);
  EXPECT_TRUE(passed());
}

TEST(Hints, FailedEksUpdateShowsInProgressAtItsStartAndFailedAtItsEnd) {
  scenario::Scenario s = lab("004-managed-upgrade.yaml");
  ops::RunResult run = ops::run_scenario(s);
  std::vector<std::string> rows;
  for (const auto& l : lines(format_timeline(run)))
    if (l.find("eks/app") != std::string::npos && l.find("VersionUpdate") != std::string::npos) rows.push_back(l);
  // The first update (blocked by the PDB, PodEvictionFailure after 15 minutes of retries), then
  // the --force retry at 50m.
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_TRUE(starts_with(rows[0], "00:05:00.000  AWS      InProgress ")) << rows[0];
  EXPECT_EQ(rows[0].find("PodEvictionFailure"), std::string::npos) << rows[0];
  EXPECT_TRUE(starts_with(rows[1], "00:22:25.000  AWS      Failed ")) << rows[1];
  EXPECT_NE(rows[1].find("PodEvictionFailure: Reached max retries while trying to evict pods from nodes in node group app"),
            std::string::npos)
      << rows[1];
  EXPECT_TRUE(starts_with(rows[2], "00:50:00.000  AWS      InProgress ")) << rows[2];
  EXPECT_TRUE(starts_with(rows[3], "01:09:30.000  AWS      Successful ")) << rows[3];
  // The failure row comes after the event that reports it at the same instant.
  std::string timeline = format_timeline(run);
  EXPECT_LT(timeline.find("Warning  PodEvictionFailure"), timeline.find("00:22:25.000  AWS      Failed"));

  // The JSON keeps one record per update with its start and end (CONTRACT's activities).
  nlohmann::json j = nlohmann::json::parse(json_report(run, {}));
  int updates = 0;
  for (const auto& g : j["nodeGroups"])
    for (const auto& a : g["activities"])
      if (a["service"] == "eks" && a["description"].get<std::string>().rfind("VersionUpdate", 0) == 0) {
        if (updates++ == 0) {
          EXPECT_EQ(a["time"], 300.0);
          EXPECT_EQ(a["endTime"], 1345.0);
          EXPECT_EQ(a["status"], "Failed");
        }
      }
  EXPECT_EQ(updates, 2);
}

TEST(Hints, InstantConfigUpdateStaysOneRow) {
  scenario::Scenario s = lab("000-subnets-typo.yaml");
  ops::RunResult run = ops::run_scenario(s);
  int rows = 0;
  for (const auto& l : lines(format_timeline(run)))
    if (l.find("ConfigUpdate") != std::string::npos) {
      ++rows;
      EXPECT_TRUE(starts_with(l, "00:05:00.000  AWS      Successful ")) << l;
    }
  EXPECT_EQ(rows, 1);
}

// An action whose `instance:` pick matches nothing makes no AWS call: eksim says so as a hint.
TEST(Hints, AnActionThatPicksNoInstanceIsAHint) {
  std::string file = std::string(EKSIM_SOURCE_DIR) + "/scenarios/failures/terminate-instance.yaml";
  YAML::Node root = YAML::LoadFile(file);
  YAML::Node a = YAML::Load(
      "{at: 20m, action: autoscaling.terminate-instance-in-auto-scaling-group, nodegroup: workers, instance: 7, "
      "shouldDecrementDesiredCapacity: false}");
  root["timeline"].push_back(a);
  scenario::Scenario s = scenario::load_scenario(root, file);
  ops::RunResult run = ops::run_scenario(s);
  for (const auto& e : run.cluster->log.events()) {
    EXPECT_NE(e.source, "eksim");
    EXPECT_NE(e.reason, "NoInstanceTarget");
  }
  ASSERT_EQ(run.cluster->log.hints().size(), 1u);
  const k8s::Hint& h = run.cluster->log.hints()[0];
  EXPECT_EQ(h.time, engine::SimTime{} + engine::Duration::minutes(20));
  EXPECT_EQ(h.kind, "NoInstanceTarget");
  EXPECT_EQ(h.object.str(), "AutoScalingGroup/workers");
  EXPECT_TRUE(starts_with(h.message,
                          "autoscaling.terminate-instance-in-auto-scaling-group: no in-service instance \"7\" in node "
                          "group workers ("))
      << h.message;
}

// No shipped scenario leaves an event of eksim's own making in its timeline.
TEST(Hints, NoShippedScenarioHasAnEksimSourceEvent) {
  int ran = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(EKSIM_SOURCE_DIR) + "/scenarios")) {
    if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
    if (entry.path().string().find("/manifests/") != std::string::npos) continue;
    std::optional<scenario::Scenario> s;
    try {
      s = scenario::load_scenario(entry.path().string());
    } catch (const std::exception&) {
      continue;  // a sweep plan or a price file, not a scenario
    }
    ops::RunOptions o;
    o.until = std::min(s->duration, engine::Duration::hours(2));
    ops::RunResult run = ops::run_scenario(*s, o);
    ++ran;
    for (const auto& e : run.cluster->log.copy_series())
      EXPECT_NE(e.source, "eksim") << entry.path() << ": " << e.reason << " " << e.message;
  }
  EXPECT_GE(ran, 40);
}

}  // namespace
}  // namespace eksim::report
