#include "sim/cli/run_command.hpp"

#include <cstdio>

#include "sim/cli/output_file.hpp"
#include "sim/report/json_report.hpp"
#include "sim/report/metrics.hpp"
#include "sim/report/trace.hpp"
#include "sim/report/timeline.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::cli {

int run_command(const RunArgs& args) {
  scenario::RunOptions options;
  options.seed = args.seed;
  options.keep_all_occurrences = false;
  if (!args.until.empty()) {
    auto d = engine::parse_duration(args.until);
    if (!d || d->us <= 0) {
      std::fprintf(stderr, "error: --until: expected a positive duration such as 90s, 15m or 2h, got \"%s\"\n",
                   args.until.c_str());
      return 2;
    }
    options.until = *d;
  }
  if (!args.metrics_interval.empty()) {
    auto d = engine::parse_duration(args.metrics_interval);
    if (!d || d->us <= 0) {
      std::fprintf(stderr, "error: --metrics-interval: expected a positive duration such as 30s or 5m, got \"%s\"\n",
                   args.metrics_interval.c_str());
      return 2;
    }
    options.sample_interval = *d;
  }
  report::MetricsRecorder metrics;
  if (!args.metrics_file.empty()) options.sample = [&metrics](const Cluster& c) { metrics.sample(c); };
  scenario::Scenario s = scenario::load_scenario(args.scenario);
  scenario::RunResult run = scenario::run_scenario(s, options);
  auto results = report::check_expectations(run);
  if (!args.quiet) {
    std::fputs(report::format_timeline(run).c_str(), stdout);
    std::fputs(report::format_expectations(results).c_str(), stdout);
  }
  if (!args.json_file.empty()) write_output_file(args.json_file, report::json_report(run, results));
  if (!args.metrics_file.empty()) write_output_file(args.metrics_file, metrics.csv());
  if (!args.trace_file.empty()) write_output_file(args.trace_file, report::chrome_trace(run));
  for (const auto& r : results)
    if (!r.passed) return 1;
  return 0;
}

}  // namespace eksim::cli
