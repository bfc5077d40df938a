#include "sim/cli/sweep_command.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace eksim::cli {
namespace {

std::string line_for(std::size_t run) {
  return "{\"schema\":\"eksim.sweep-run/v1\",\"plan\":\"p\",\"run\":" + std::to_string(run) +
         ",\"of\":4,\"point\":" + std::to_string(run / 2) + ",\"seed\":" + std::to_string(run % 2 + 1) +
         ",\"params\":{\"cluster.quotas.onDemand.G\":" + std::to_string(8 * (run / 2 + 1)) +
         "},\"pods\":3,\"podsUnscheduled\":" + std::to_string(run % 2) +
         ",\"podsFailed\":0,\"pendingSeconds\":{\"p50\":1.0,\"p95\":" + std::to_string(10 * (run + 1)) +
         ",\"max\":50.0},\"gpuHours\":{\"provisioned\":2.0,\"allocated\":1.5,\"idle\":0.5},\"costUSD\":" +
         std::to_string(run + 1) + ",\"nodesLaunched\":2,\"simSeconds\":600.0,\"jobs\":{\"total\":1}" +
         ",\"expectationsFailed\":0}\n";
}

// line_for(run) with FROM replaced by TO (FROM must occur).
std::string edited(std::size_t run, const std::string& from, const std::string& to) {
  std::string line = line_for(run);
  auto at = line.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return line.replace(at, from.size(), to);
}

std::string result_error(const std::string& text) {
  try {
    parse_result_lines(text, "out.jsonl");
  } catch (const scenario::InputError& e) {
    return e.what();
  }
  return "accepted";
}

// Every field that merge, the summary table and --resume read is checked when the file is read,
// so a hand-edited or foreign line is a located error, never an exception out of nlohmann::json.
TEST(SweepResultsTest, LinesWithMissingOrMistypedFieldsAreLocatedErrors) {
  const std::string first = line_for(0);
  EXPECT_EQ(result_error(first + edited(1, "\"costUSD\":2", "\"costUSD\":\"2\"")),
            "out.jsonl:2:1: error: \"costUSD\" must be a number");
  EXPECT_EQ(result_error(edited(0, "\"p95\":10", "\"p96\":10")),
            "out.jsonl:1:1: error: \"pendingSeconds.p95\" must be a number");
  EXPECT_EQ(result_error(edited(0, "\"plan\":\"p\"", "\"plan\":7")), "out.jsonl:1:1: error: \"plan\" must be a string");
  EXPECT_EQ(result_error(edited(0, "\"pods\":3", "\"pods\":-3")),
            "out.jsonl:1:1: error: \"pods\" must be a non-negative integer");
  EXPECT_EQ(result_error(edited(0, "\"of\":4", "\"of\":1000000000")),
            "out.jsonl:1:1: error: \"of\" must be between 1 and 1000000 runs");
  EXPECT_EQ(result_error(edited(3, "\"of\":4", "\"of\":3")), "out.jsonl:1:1: error: \"run\" must be less than \"of\"");
  EXPECT_EQ(result_error(edited(0, "\"schema\":\"eksim.sweep-run/v1\",", "")),
            "out.jsonl:1:1: error: not a sweep run line (no \"schema\": \"eksim.sweep-run/v1\")");
  EXPECT_EQ(result_error(std::string(100000, '[') + "\n"), "out.jsonl:1:1: error: not a sweep run line (nested too deeply)");
  EXPECT_EQ(result_error(first + "[1,2]\n"), "out.jsonl:2:1: error: not a sweep run line");
}

TEST(SweepResultsTest, TornLastLineIsDropped) {
  std::string text = line_for(0) + line_for(1) + line_for(2).substr(0, 40);
  ResultFile rf = parse_result_lines(text, "out.jsonl");
  EXPECT_TRUE(rf.torn);
  EXPECT_EQ(rf.lines.size(), 2u);
  EXPECT_EQ(rf.kept_bytes, line_for(0).size() + line_for(1).size());
  EXPECT_EQ(rf.lines.at(1), line_for(1));
}

TEST(SweepResultsTest, CompleteFileIsNotTorn) {
  ResultFile rf = parse_result_lines(line_for(3) + line_for(0), "out.jsonl");
  EXPECT_FALSE(rf.torn);
  ASSERT_EQ(rf.lines.size(), 2u);
  EXPECT_EQ(rf.lines.begin()->first, 0u);  // sorted by run
}

TEST(SweepResultsTest, CorruptOrConflictingLinesAreErrors) {
  try {
    parse_result_lines(line_for(0) + "garbage\n" + line_for(1), "out.jsonl");
    FAIL();
  } catch (const scenario::InputError& e) {
    EXPECT_EQ(e.where().line, 2);
  }
  std::string other = line_for(0);
  other.replace(other.find("\"pods\":3"), 8, "\"pods\":4");
  EXPECT_THROW(parse_result_lines(line_for(0) + other, "out.jsonl"), scenario::InputError);
  EXPECT_NO_THROW(parse_result_lines(line_for(0) + line_for(0), "out.jsonl"));  // same run twice, same bytes
}

TEST(SweepResultsTest, SummaryTableAggregatesAcrossSeeds) {
  std::map<std::size_t, std::string> lines;
  for (std::size_t r = 0; r < 4; ++r) lines[r] = line_for(r);
  std::string table = sweep_summary_table(lines);
  std::istringstream in(table);
  std::string header, row0, row1;
  std::getline(in, header);
  std::getline(in, row0);
  std::getline(in, row1);
  EXPECT_NE(header.find("G"), std::string::npos) << table;
  EXPECT_NE(header.find("pending p95 s (mean/p50/p95)"), std::string::npos);
  // point 0: p95 pending 10 and 20 -> mean 15, p50 10, p95 20; cost 1 and 2.
  EXPECT_NE(row0.find("15.0 / 10.0 / 20.0"), std::string::npos) << table;
  EXPECT_NE(row0.find("1.50 / 1.00 / 2.00"), std::string::npos) << table;
  EXPECT_EQ(row0.substr(0, 1), "0");
  EXPECT_NE(row1.find("16"), std::string::npos);
}

class SweepCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("eksim-sweep-cmd-test-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& rel) const { return (dir_ / rel).string(); }
  void write(const std::string& rel, const std::string& text) { std::ofstream(dir_ / rel, std::ios::binary) << text; }
  std::string read(const std::string& rel) const {
    std::ifstream in(dir_ / rel, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::filesystem::path dir_;
};

TEST_F(SweepCommandTest, MergeJoinsShardsInRunOrderAndReportsMissingRuns) {
  write("a.jsonl", line_for(0) + line_for(2));
  write("b.jsonl", line_for(3) + line_for(1));
  SweepArgs args;
  args.args = {"merge", path("b.jsonl"), path("a.jsonl")};
  args.out = path("all.jsonl");
  args.quiet = true;
  ASSERT_EQ(sweep_command(args), 0);
  EXPECT_EQ(read("all.jsonl"), line_for(0) + line_for(1) + line_for(2) + line_for(3));
  args.args = {"merge", path("a.jsonl")};
  args.out = path("partial.jsonl");
  EXPECT_EQ(sweep_command(args), 1);
  EXPECT_FALSE(std::filesystem::exists(path("partial.jsonl")));
}

TEST_F(SweepCommandTest, MergeRefusesATornShard) {
  write("a.jsonl", line_for(0) + line_for(2).substr(0, 10));
  SweepArgs args;
  args.args = {"merge", path("a.jsonl")};
  args.out = path("all.jsonl");
  EXPECT_EQ(sweep_command(args), 2);
}

TEST_F(SweepCommandTest, ResumeGivesTheSameFileAsAnUninterruptedSweep) {
  std::string base = std::string(EKSIM_SOURCE_DIR) + "/scenarios/examples/two-nodegroups.yaml";
  write("plan.yaml", "apiVersion: eksim/v1\nkind: SweepPlan\nmetadata: {name: t}\nscenario: " + base +
                         "\nuntil: 6m\nseeds: 2\ngrid: [{path: cluster.nodeGroups.gpu.max_size, values: [1, 2]}]\n");
  SweepArgs args;
  args.args = {path("plan.yaml")};
  args.out = path("full.jsonl");
  args.jobs = 2;
  args.quiet = true;
  ASSERT_EQ(sweep_command(args), 0);
  std::string full = read("full.jsonl");
  ResultFile rf = parse_result_lines(full, "full.jsonl");
  ASSERT_EQ(rf.lines.size(), 4u);
  EXPECT_FALSE(rf.torn);

  // Killed after one and a half runs: the first line whole, the second torn.
  write("resumed.jsonl", rf.lines.at(0) + rf.lines.at(1).substr(0, rf.lines.at(1).size() / 2));
  args.out = path("resumed.jsonl");
  args.resume = true;
  args.jobs = 1;
  ASSERT_EQ(sweep_command(args), 0);
  EXPECT_EQ(read("resumed.jsonl"), full);

  // Two shards merged give the same bytes.
  args.resume = false;
  args.shard = "0/2";
  args.out = path("s0.jsonl");
  ASSERT_EQ(sweep_command(args), 0);
  args.shard = "1/2";
  args.out = path("s1.jsonl");
  ASSERT_EQ(sweep_command(args), 0);
  SweepArgs m;
  m.args = {"merge", path("s0.jsonl"), path("s1.jsonl")};
  m.out = path("merged.jsonl");
  m.quiet = true;
  ASSERT_EQ(sweep_command(m), 0);
  EXPECT_EQ(read("merged.jsonl"), full);

  // A results file from another plan is not resumed into.
  write("other.jsonl", line_for(0));
  args.shard.clear();
  args.resume = true;
  args.out = path("other.jsonl");
  EXPECT_THROW(sweep_command(args), scenario::InputError);
}

}  // namespace
}  // namespace eksim::cli
