// Run records (`eksim run --record`): what re-makes a run, read back with located errors.
#include "sim/scenario/run_record.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/input_file.hpp"

namespace eksim::scenario {
namespace {

namespace fs = std::filesystem;

std::string write_temp(const std::string& name, const std::string& text) {
  fs::path p = fs::temp_directory_path() / ("eksim-run-record-test-" + name);
  std::ofstream(p) << text;
  return p.string();
}

std::string load_error(const std::string& name, const std::string& text) {
  try {
    (void)load_record(write_temp(name, text));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(RunRecord, RoundTripsAndLoadsTheScenarioAsRunDoes) {
  std::string file = std::string(EKSIM_SOURCE_DIR) + "/scenarios/labs/000-gpu-pod-no-toleration.yaml";
  RunRecord r;
  r.scenario_file = file;
  r.scenario_text = read_input_file(file, Location{file});
  r.seed = 18446744073709551615ULL;  // beyond what a JSON double keeps exact
  r.until = engine::Duration::minutes(30);
  r.requests.push_back({engine::Duration{301'500'000}, "PATCH", "/api/v1/nodes/n1", {{"fieldManager", "kubectl-cordon"}},
                        "application/strategic-merge-patch+json", R"({"spec":{"unschedulable":true}})"});
  r.requests.push_back({engine::Duration::minutes(6), "DELETE", "/api/v1/namespaces/default/pods/gpu-pod", {}, "", ""});
  std::string path = write_temp("roundtrip.json", record_text(r));
  RunRecord back = load_record(path);
  EXPECT_EQ(back.scenario_file, file);
  EXPECT_EQ(back.scenario_text, r.scenario_text);
  EXPECT_EQ(back.seed, r.seed);
  EXPECT_EQ(back.until, r.until);
  ASSERT_EQ(back.requests.size(), 2u);
  EXPECT_EQ(back.requests[0].at.us, 301'500'000);
  EXPECT_EQ(back.requests[0].query.at("fieldManager"), "kubectl-cordon");
  EXPECT_EQ(back.requests[0].body, R"({"spec":{"unschedulable":true}})");
  EXPECT_EQ(back.requests[1].method, "DELETE");
  EXPECT_EQ(back.requests[1].body, "");
  Scenario s = record_scenario(back);
  EXPECT_EQ(s.name, "000-gpu-pod-no-toleration");
  EXPECT_EQ(s.cluster.name, "myeks5w");
  fs::remove(path);
}

// Issue 42 item 2: `serve --replay` read the recorded scenario with a bare YAML::Load, and an
// alias inside the node it names recursed until memory ran out; it goes through the pre-pass.
TEST(RunRecord, RecordedScenarioGoesThroughTheYamlPrePass) {
  RunRecord r;
  r.scenario_file = "recorded.yaml";
  r.scenario_text = "apiVersion: eksim/v1\nkind: Scenario\nmetadata: &m {name: x, labels: *m}\n";
  std::string what;
  try {
    (void)record_scenario(r);
  } catch (const InputError& e) {
    what = e.what();
  }
  EXPECT_EQ(what, "recorded.yaml:3:32: error: alias *m refers to a node that contains it (a cycle)");
}

TEST(RunRecord, NotARecordIsALocatedError) {
  std::string e = load_error("scenario.json", R"({"apiVersion": "eksim/v1", "kind": "Scenario"})");
  EXPECT_NE(e.find(":1:"), std::string::npos) << e;
  EXPECT_NE(e.find("kind must be \"RunRecord\""), std::string::npos) << e;
  e = load_error("typo.json", "{\"apiVersion\": \"eksim/v1\", \"kind\": \"RunRecord\", \"scenarioFile\": \"x\",\n"
                              " \"seed\": \"1\", \"until\": \"30m\", \"scenario\": \"a: 1\", \"sede\": 2}");
  EXPECT_NE(e.find(":2:"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key \"sede\""), std::string::npos) << e;
  e = load_error("seed.json", R"({"apiVersion": "eksim/v1", "kind": "RunRecord", "scenarioFile": "x", "seed": "-1", "until": "30m", "scenario": ""})");
  EXPECT_NE(e.find("seed must be a whole number"), std::string::npos) << e;
}

}  // namespace
}  // namespace eksim::scenario
