#pragma once
// `eksim sweep PLAN --out FILE [--jobs N] [--shard i/N] [--resume]` and
// `eksim sweep merge SHARD... --out FILE`.
//
// The out file holds one JSON line per run (schema eksim.sweep-run/v1), sorted by run index once
// the sweep ends; while it runs, lines are appended whole and flushed as runs finish, so a killed
// sweep leaves every finished run on disk (and at most one torn last line, which --resume drops).
// Nothing in a line depends on --jobs, the shard or the machine, so an unsharded run, any --jobs,
// and merged shards give the same bytes.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "sim/report/run_metrics.hpp"
#include "sim/scenario/sweep_plan.hpp"

namespace eksim::cli {

struct SweepArgs {
  std::vector<std::string> args;  // PLAN, or "merge" SHARD...
  std::string out;
  int jobs = 0;  // 0: one per hardware thread
  std::string shard;
  bool resume = false;
  bool quiet = false;  // no summary table
};

// 0 every run finished (expectation failures are results, not errors); 1 merge found missing
// runs; 2 invalid input.
int sweep_command(const SweepArgs& args);

// --- pieces, exposed for tests ----------------------------------------------------------------

// The JSON line (with its newline) for one run.
std::string sweep_run_line(const scenario::SweepPlan& plan, const scenario::SweepRun& run,
                           const report::RunHeadline& h, double sim_seconds);
// The "params" object of a point, as written in run lines (compact JSON).
std::string sweep_point_params(const scenario::SweepPlan& plan, std::size_t point);

struct ResultFile {
  std::map<std::size_t, std::string> lines;  // run index -> line with its newline
  std::size_t kept_bytes = 0;                // length of the whole lines (a torn tail is after this)
  bool torn = false;                         // the text ended inside a line
};
// Parses a results file's text. A last line without a newline is torn and dropped; a complete line
// that is not a run line, or a run twice with different contents, throws InputError (file:line).
ResultFile parse_result_lines(const std::string& text, const std::string& file);

// Per-point summary (mean, p50 and p95 across seeds of the run headline numbers) as a text table.
std::string sweep_summary_table(const std::map<std::size_t, std::string>& lines);

}  // namespace eksim::cli
