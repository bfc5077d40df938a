#include "sim/cli/run_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "models/invariants/invariant_checker.hpp"
#include "sim/cli/container_log_reader.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/report/json_report.hpp"
#include "sim/report/metrics.hpp"
#include "sim/report/trace.hpp"
#include "sim/report/timeline.hpp"
#include "sim/scenario/input_file.hpp"
#include "sim/scenario/input_limits.hpp"
#include "sim/scenario/run_record.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::cli {

namespace {

// --until and --metrics-interval into the options; false once the error is printed.
bool read_durations(const RunArgs& args, ops::RunOptions& options) {
  if (!args.until.empty()) {
    auto d = engine::parse_duration(args.until);
    if (!d || d->us <= 0) {
      std::fprintf(stderr, "error: --until: expected a positive duration such as 90s, 15m or 2h, got \"%s\"\n",
                   args.until.c_str());
      return false;
    }
    if (*d > scenario::kMaxSimulatedTime) {
      std::fprintf(stderr, "error: --until: at most %s (one year of simulated time), got \"%s\"\n",
                   engine::format_duration(scenario::kMaxSimulatedTime).c_str(), args.until.c_str());
      return false;
    }
    options.until = *d;
  }
  if (!args.metrics_interval.empty()) {
    auto d = engine::parse_duration(args.metrics_interval);
    if (!d || d->us <= 0) {
      std::fprintf(stderr, "error: --metrics-interval: expected a positive duration such as 30s or 5m, got \"%s\"\n",
                   args.metrics_interval.c_str());
      return false;
    }
    if (*d < scenario::kMinMetricsInterval) {
      std::fprintf(stderr, "error: --metrics-interval: at least %s of simulated time between samples, got \"%s\"\n",
                   engine::format_duration(scenario::kMinMetricsInterval).c_str(), args.metrics_interval.c_str());
      return false;
    }
    options.sample_interval = *d;
  }
  return true;
}

// The samples --metrics keeps (one at 0, then one per interval up to the end) within
// kMaxMetricsSamples; false once the error is printed.
bool metrics_fit(const RunArgs& args, const ops::RunOptions& options, const scenario::Scenario& s) {
  if (args.metrics_file.empty()) return true;
  const engine::Duration end = options.until.value_or(s.duration);
  const engine::Duration every = options.sample_interval;
  if (every.us <= 0 || end.us / every.us + 1 <= scenario::kMaxMetricsSamples) return true;
  std::fprintf(stderr, "error: --metrics-interval: %s over %s is %lld samples; at most %lld (use a longer interval)\n",
               engine::format_duration(every).c_str(), engine::format_duration(end).c_str(),
               static_cast<long long>(end.us / every.us + 1), static_cast<long long>(scenario::kMaxMetricsSamples));
  return false;
}

// Progress on stderr for long runs: a line redrawn in place on a terminal, a plain line every
// 10 s otherwise; nothing for runs shorter than 2 s of wall-clock time.
class ProgressLine {
 public:
  ProgressLine() : started_(Clock::now()), last_print_(started_), tty_(isatty(fileno(stderr)) != 0) {}
  void operator()(engine::SimTime reached, engine::SimTime end, std::uint64_t events) {
    auto now = Clock::now();
    double wall = std::chrono::duration<double>(now - started_).count();
    double since = std::chrono::duration<double>(now - last_print_).count();
    if (wall < 2 || since < (tty_ ? 0.5 : 10.0)) return;
    last_print_ = now;
    printed_ = true;
    double done = reached.to_seconds() / std::max(end.to_seconds(), 1e-9);
    double eta = done > 0 ? wall * (1 - done) / done : 0;
    std::fprintf(stderr, "%sprogress: simulated %s of %s (%.0f%%), %.0f events/s, elapsed %.0fs, ETA %.0fs%s",
                 tty_ ? "\r" : "", engine::format_clock(reached).c_str(), engine::format_clock(end).c_str(),
                 100 * done, static_cast<double>(events) / wall, wall, eta, tty_ ? "\x1b[K" : "\n");
    std::fflush(stderr);
  }
  // Ends a line left open on a terminal.
  void end() const {
    if (printed_ && tty_) std::fputs("\n", stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point started_, last_print_;
  bool tty_;
  bool printed_ = false;
};

// What makes this run again: `eksim serve --replay` re-simulates it to any moment.
void write_record(const RunArgs& args, const scenario::Scenario& s, const ops::RunResult& run,
                  const ops::RunOptions& options) {
  scenario::RunRecord record;
  std::error_code ec;
  auto absolute = std::filesystem::absolute(args.scenario, ec);
  record.scenario_file = ec ? args.scenario : absolute.lexically_normal().string();
  record.scenario_text = scenario::read_input_file(args.scenario, scenario::Location{args.scenario});
  record.seed = run.seed;
  record.until = options.until.value_or(s.duration);
  write_output_file(args.record_file, scenario::record_text(record));
}

void write_outputs(const RunArgs& args, const scenario::Scenario& s, const ops::RunResult& run,
                   const ops::RunOptions& options, const std::vector<report::ExpectationResult>& results,
                   const report::MetricsRecorder& metrics) {
  if (!args.quiet) {
    report::write_timeline(run, [](std::string_view row) { std::fwrite(row.data(), 1, row.size(), stdout); });
    report::write_hints(run, [](std::string_view row) { std::fwrite(row.data(), 1, row.size(), stdout); });
    std::fputs(report::format_expectations(results).c_str(), stdout);
  }
  if (!args.json_file.empty())
    write_output_file(args.json_file, [&](const auto& out) { report::write_json_report(run, results, out); });
  if (!args.metrics_file.empty())
    write_output_file(args.metrics_file, [&](const auto& out) { metrics.write_csv(out); });
  if (!args.trace_file.empty()) write_output_file(args.trace_file, report::chrome_trace(run));
  if (!args.record_file.empty()) write_record(args, s, run, options);
}

}  // namespace

int run_command(const RunArgs& args) {
  ops::RunOptions options;
  options.seed = args.seed;
  options.keep_all_occurrences = false;
  options.spill_events_in_batches_of = ops::kLongRunEventBatch;
  options.drop_finished_job_templates = true;
  options.check_invariants = args.check_invariants;
  if (!read_durations(args, options)) return 2;
  report::MetricsRecorder metrics;
  if (!args.metrics_file.empty()) options.sample = [&metrics](const Cluster& c) { metrics.sample(c); };
  ProgressLine progress;
  if (!args.quiet)
    options.progress = [&progress](engine::SimTime reached, engine::SimTime end, std::uint64_t events) {
      progress(reached, end, events);
    };
  scenario::Scenario s = scenario::load_scenario(args.scenario);
  if (!metrics_fit(args, options, s)) return 2;
  // Before the run: an output naming the scenario or a file it reads fails now, not after it.
  for (const std::string* out : {&args.json_file, &args.trace_file, &args.metrics_file, &args.record_file})
    if (!out->empty()) refuse_input_as_output(*out);
  ops::RunResult run;
  try {
    run = ops::run_scenario(s, options);
  } catch (const invariants::Violation& v) {
    progress.end();
    std::fprintf(stderr, "%s\n", v.what());
    std::fflush(nullptr);
    std::_Exit(invariants::kInvariantExitCode);
  }
  progress.end();
  auto results = report::check_expectations(run, container_log_reader());
  write_outputs(args, s, run, options, results, metrics);
  int rc = 0;
  for (const auto& r : results)
    if (!r.passed) rc = 1;
  // Freeing a week of simulated state object by object costs seconds and gives nothing back to a
  // process that is about to exit: flush and leave. A timeline that could not be written
  // (stdout on a full disk) is a failed run, as for any other output.
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "eksim: error: cannot write the standard output: %s\n",
                 std::strerror(errno ? errno : EIO));
    rc = 2;
  }
  std::fflush(nullptr);
  std::_Exit(rc);
}

}  // namespace eksim::cli
