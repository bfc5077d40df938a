#include "sim/cli/sweep_command.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "sim/cli/container_log_reader.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/report/expectations.hpp"
#include "sim/report/text_table.hpp"
#include "sim/scenario/input_file.hpp"
#include "sim/scenario/input_limits.hpp"
#include "sim/ops/runner.hpp"

namespace eksim::cli {

namespace {

using Json = nlohmann::ordered_json;

// Rounds to 1/scale (scale a power of ten) so that lines print short decimals, e.g. 6005.565.
double round_to(double x, double scale) { return std::round(x * scale) / scale; }

Json yaml_to_json(const YAML::Node& n) {
  if (n.IsSequence()) {
    Json a = Json::array();
    for (const auto& item : n) a.push_back(yaml_to_json(item));
    return a;
  }
  if (n.IsMap()) {
    Json o = Json::object();
    // The plan's loader read these keys as names; a complex key would print as its YAML.
    for (auto it = n.begin(); it != n.end(); ++it)
      o[it->first.IsScalar() ? it->first.Scalar() : YAML::Dump(it->first)] = yaml_to_json(it->second);
    return o;
  }
  if (!n.IsScalar()) return nullptr;
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") return s;  // quoted in the plan: a string even if it looks like a number
  if (s == "true") return true;
  if (s == "false") return false;
  if (s == "null" || s == "~") return nullptr;
  std::int64_t i = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
  if (ec == std::errc() && p == s.data() + s.size()) return i;
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (!s.empty() && end == s.c_str() + s.size() && std::isfinite(d)) return d;
  return s;
}

Json params_json(const scenario::SweepPlan& plan, std::size_t point) {
  Json o = Json::object();
  for (const auto& a : plan.points[point].assignments) o[a.path] = yaml_to_json(YAML::Load(a.value_yaml));
  return o;
}

// A result file's text; a missing one, or a FIFO or device, is an "eksim: error: cannot open".
std::string read_text(const std::string& path) { return scenario::read_input_file(path, scenario::Location{}); }

std::string duration_text(double seconds) {
  auto s = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  if (s >= 3600) return fmt::format("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

// Progress on stderr: a redrawn bar on a terminal, a line per tenth otherwise. Wall-clock time is
// read here only, for the ETA; it never reaches the results.
class Progress {
 public:
  Progress(std::size_t total, std::size_t already) : total_(total), done_(already), start_done_(already) {
    tty_ = ::isatty(::fileno(stderr)) != 0;
    start_ = std::chrono::steady_clock::now();
    last_tenth_ = total_ ? done_ * 10 / total_ : 10;
    if (tty_) draw();
  }
  void tick() {
    ++done_;
    if (tty_) {
      draw();
    } else if (done_ * 10 / total_ != last_tenth_ || done_ == total_) {
      last_tenth_ = done_ * 10 / total_;
      std::fprintf(stderr, "sweep: %zu/%zu runs (%zu%%), %.2f runs/s, ETA %s\n", done_, total_, done_ * 100 / total_, rate(),
                   duration_text(eta()).c_str());
    }
  }
  void finish() {
    if (tty_) std::fputc('\n', stderr);
  }
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  double rate() const {
    double e = elapsed();
    return e > 0 ? static_cast<double>(done_ - start_done_) / e : 0;
  }

 private:
  double eta() const {
    double r = rate();
    return r > 0 ? static_cast<double>(total_ - done_) / r : 0;
  }
  void draw() {
    constexpr std::size_t kWidth = 30;
    std::size_t filled = total_ ? done_ * kWidth / total_ : kWidth;
    std::string bar(filled, '#');
    bar += std::string(kWidth - filled, '.');
    std::fprintf(stderr, "\r[%s] %zu/%zu %3zu%%  %.2f runs/s  ETA %-10s", bar.c_str(), done_, total_,
                 total_ ? done_ * 100 / total_ : 100, rate(), done_ > start_done_ ? duration_text(eta()).c_str() : "?");
    std::fflush(stderr);
  }

  std::size_t total_, done_, start_done_;
  std::size_t last_tenth_;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
};

void write_sorted(const std::string& out, const std::map<std::size_t, std::string>& lines) {
  std::string text;
  for (const auto& [run, line] : lines) text += line;
  replace_output_file(out, text);
}

// Shortest dotted suffixes that still tell the parameters apart, for table headers.
std::vector<std::string> short_names(const std::vector<std::string>& paths) {
  std::vector<std::string> out(paths.size());
  for (std::size_t depth = 1; depth <= 8; ++depth) {
    for (std::size_t i = 0; i < paths.size(); ++i) {
      const std::string& p = paths[i];
      // The depth-th '.' from the end, if there is one: the name is what follows it. An empty
      // path (a result line may carry one) or one with fewer dots is kept whole.
      std::size_t cut = std::string::npos, from = p.size();
      for (std::size_t d = 0; d < depth && from > 0; ++d) {
        cut = p.rfind('.', from - 1);
        if (cut == std::string::npos) break;
        from = cut;
      }
      out[i] = cut == std::string::npos ? p : p.substr(cut + 1);
    }
    std::set<std::string> seen(out.begin(), out.end());
    if (seen.size() == out.size()) break;
  }
  return out;
}

int merge(const SweepArgs& args) {
  if (args.args.size() < 2) {
    std::fprintf(stderr, "error: sweep merge needs at least one shard file\n");
    return 2;
  }
  if (args.out.empty()) {
    std::fprintf(stderr, "error: sweep merge needs --out FILE\n");
    return 2;
  }
  std::map<std::size_t, std::string> all;
  std::string plan;
  std::int64_t of = -1;
  for (std::size_t i = 1; i < args.args.size(); ++i) {
    const std::string& file = args.args[i];
    ResultFile rf = parse_result_lines(read_text(file), file);
    if (rf.torn) {
      std::fprintf(stderr, "error: %s ends inside a line: that shard did not finish; rerun it with --resume\n", file.c_str());
      return 2;
    }
    for (const auto& [run, line] : rf.lines) {
      Json j = Json::parse(line);
      std::string p = j.value("plan", "");
      std::int64_t n = j.value("of", std::int64_t{-1});
      if (plan.empty() && of < 0) {
        plan = p;
        of = n;
      } else if (p != plan || n != of) {
        std::fprintf(stderr, "error: %s: run %zu belongs to plan \"%s\" with %lld runs, not \"%s\" with %lld\n", file.c_str(),
                     run, p.c_str(), static_cast<long long>(n), plan.c_str(), static_cast<long long>(of));
        return 2;
      }
      auto [it, added] = all.emplace(run, line);
      if (!added && it->second != line) {
        std::fprintf(stderr, "error: %s: run %zu differs from the same run in an earlier shard\n", file.c_str(), run);
        return 2;
      }
    }
  }
  std::vector<std::size_t> missing;
  for (std::int64_t r = 0; r < of; ++r)
    if (!all.count(static_cast<std::size_t>(r))) missing.push_back(static_cast<std::size_t>(r));
  if (!missing.empty()) {
    std::string list;
    for (std::size_t k = 0; k < missing.size() && k < 10; ++k) list += (k ? ", " : "") + std::to_string(missing[k]);
    std::fprintf(stderr, "error: %zu of %lld runs are missing (%s%s); run the shards that hold them\n", missing.size(),
                 static_cast<long long>(of), list.c_str(), missing.size() > 10 ? ", ..." : "");
    return 1;
  }
  write_sorted(args.out, all);
  if (!args.quiet) std::fputs(sweep_summary_table(all).c_str(), stdout);
  std::fprintf(stderr, "sweep merge: %zu runs from %zu file(s) -> %s\n", all.size(), args.args.size() - 1, args.out.c_str());
  return 0;
}

}  // namespace

std::string sweep_point_params(const scenario::SweepPlan& plan, std::size_t point) { return params_json(plan, point).dump(); }

std::string sweep_run_line(const scenario::SweepPlan& plan, const scenario::SweepRun& run, const report::RunHeadline& h,
                           double sim_seconds) {
  auto pct = [](const report::Percentiles& p) {
    return Json{{"p50", round_to(p.p50, 1e3)}, {"p95", round_to(p.p95, 1e3)}, {"max", round_to(p.max, 1e3)}};
  };
  Json j;
  j["schema"] = "eksim.sweep-run/v1";
  j["plan"] = plan.name;
  j["run"] = run.index;
  j["of"] = plan.run_count();
  j["point"] = run.point;
  j["seed"] = run.seed;
  j["params"] = params_json(plan, run.point);
  j["simSeconds"] = sim_seconds;
  j["pods"] = h.pods;
  j["podsUnscheduled"] = h.pods_unscheduled;
  j["podsFailed"] = h.pods_failed;
  j["pendingSeconds"] = pct(h.pending_seconds);
  j["gpuHours"] = Json{{"provisioned", round_to(h.gpu_hours_provisioned, 1e4)},
                       {"allocated", round_to(h.gpu_hours_allocated, 1e4)},
                       {"idle", round_to(h.gpu_hours_idle, 1e4)}};
  j["costUSD"] = round_to(h.cost_usd, 1e4);
  j["nodesLaunched"] = h.nodes_launched;
  j["jobs"] = Json{{"total", h.jobs}, {"complete", h.jobs_complete}, {"failed", h.jobs_failed}, {"seconds", pct(h.job_seconds)}};
  j["expectationsFailed"] = h.expectations_failed;
  return j.dump() + "\n";
}

namespace {

// Deepest [ / { nesting of a JSON text, outside strings. Run lines nest 3 deep; checking before
// parsing keeps a hostile line from the recursive parts of nlohmann (dump, destruction).
int json_nesting_depth(const std::string& text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

// What is wrong with a parsed run line, or "" when every field the merge, the summary table and
// --resume read is there with its type. Lines are eksim's own output; anything else is refused
// here so the readers after this can trust them.
std::string run_line_problem(const Json& j) {
  if (!j.is_object()) return "not a sweep run line";
  if (j.value("schema", Json()) != "eksim.sweep-run/v1") return "not a sweep run line (no \"schema\": \"eksim.sweep-run/v1\")";
  auto has = [&](const Json& obj, const char* key, bool (Json::*is)() const) {
    return obj.is_object() && obj.contains(key) && (obj[key].*is)();
  };
  for (const char* key : {"run", "of", "point", "seed", "pods", "podsUnscheduled", "podsFailed", "nodesLaunched",
                          "expectationsFailed"})
    if (!has(j, key, &Json::is_number_unsigned)) return fmt::format("\"{}\" must be a non-negative integer", key);
  if (!has(j, "plan", &Json::is_string)) return "\"plan\" must be a string";
  if (!has(j, "params", &Json::is_object)) return "\"params\" must be an object";
  for (const char* key : {"simSeconds", "costUSD"})
    if (!has(j, key, &Json::is_number)) return fmt::format("\"{}\" must be a number", key);
  for (const char* key : {"pendingSeconds", "gpuHours", "jobs"})
    if (!has(j, key, &Json::is_object)) return fmt::format("\"{}\" must be an object", key);
  for (const char* key : {"p50", "p95", "max"})
    if (!has(j["pendingSeconds"], key, &Json::is_number)) return fmt::format("\"pendingSeconds.{}\" must be a number", key);
  for (const char* key : {"provisioned", "allocated", "idle"})
    if (!has(j["gpuHours"], key, &Json::is_number)) return fmt::format("\"gpuHours.{}\" must be a number", key);
  const auto of = j["of"].get<std::uint64_t>();
  if (of == 0 || of > scenario::kMaxSweepRuns)
    return fmt::format("\"of\" must be between 1 and {} runs", scenario::kMaxSweepRuns);
  if (j["run"].get<std::uint64_t>() >= of) return "\"run\" must be less than \"of\"";
  return "";
}

}  // namespace

ResultFile parse_result_lines(const std::string& text, const std::string& file) {
  ResultFile rf;
  std::size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    if (nl == std::string::npos) {
      rf.torn = true;  // written whole with a flush, so only an interrupted write ends mid-line
      break;
    }
    ++line_no;
    std::string line = text.substr(pos, nl + 1 - pos);
    pos = nl + 1;
    rf.kept_bytes = pos;
    if (line == "\n") continue;
    if (json_nesting_depth(line) > 8) throw scenario::InputError(scenario::Location{file, line_no, 1}, "not a sweep run line (nested too deeply)");
    const Json j = Json::parse(line, nullptr, false);
    if (j.is_discarded()) throw scenario::InputError(scenario::Location{file, line_no, 1}, "not a sweep run line (not JSON)");
    if (auto problem = run_line_problem(j); !problem.empty())
      throw scenario::InputError(scenario::Location{file, line_no, 1}, problem);
    auto run = j["run"].get<std::size_t>();
    auto [it, added] = rf.lines.emplace(run, line);
    if (!added && it->second != line)
      throw scenario::InputError(scenario::Location{file, line_no, 1}, fmt::format("run {} appears twice with different results", run));
  }
  return rf;
}

namespace {

// One point's runs, as the summary reads them from their lines.
struct PointRuns {
  std::vector<std::pair<std::string, std::string>> params;
  std::vector<double> pending_p95, cost, idle, unscheduled;
  std::size_t failed = 0;
};

// The runs of each point; paths gets the parameters' paths in the order they first appear.
std::map<std::size_t, PointRuns> runs_by_point(const std::map<std::size_t, std::string>& lines,
                                               std::vector<std::string>& paths) {
  std::map<std::size_t, PointRuns> points;
  for (const auto& [run, line] : lines) {
    Json j = Json::parse(line);
    PointRuns& p = points[j.value("point", std::size_t{0})];
    if (p.params.empty())
      for (auto& [k, v] : j["params"].items()) {
        p.params.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
        if (std::find(paths.begin(), paths.end(), k) == paths.end()) paths.push_back(k);
      }
    p.pending_p95.push_back(j["pendingSeconds"]["p95"].get<double>());
    p.cost.push_back(j["costUSD"].get<double>());
    p.idle.push_back(j["gpuHours"]["idle"].get<double>());
    p.unscheduled.push_back(j["podsUnscheduled"].get<double>());
    p.failed += j["expectationsFailed"].get<std::size_t>();
  }
  return points;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// "mean / p50 / p95" across seeds.
std::string mean_p50_p95(const std::vector<double>& v, int decimals) {
  return fmt::format("{:.{}f} / {:.{}f} / {:.{}f}", mean(v), decimals, report::percentile(v, 0.5), decimals,
                     report::percentile(v, 0.95), decimals);
}

std::vector<std::string> summary_row(std::size_t index, const PointRuns& p, const std::vector<std::string>& paths) {
  std::vector<std::string> row{std::to_string(index)};
  for (const auto& path : paths) {
    std::string v = "-";
    for (const auto& [k, val] : p.params)
      if (k == path) v = val;
    row.push_back(v);
  }
  row.push_back(std::to_string(p.cost.size()));
  row.push_back(mean_p50_p95(p.pending_p95, 1));
  row.push_back(mean_p50_p95(p.cost, 2));
  row.push_back(fmt::format("{:.2f}", mean(p.idle)));
  row.push_back(fmt::format("{:.2f}", mean(p.unscheduled)));
  row.push_back(std::to_string(p.failed));
  return row;
}

}  // namespace

std::string sweep_summary_table(const std::map<std::size_t, std::string>& lines) {
  std::vector<std::string> paths;
  const auto points = runs_by_point(lines, paths);
  std::vector<std::string> header{"point"};
  for (const auto& n : short_names(paths)) header.push_back(n);
  for (const char* h : {"runs", "pending p95 s (mean/p50/p95)", "cost USD (mean/p50/p95)", "GPU-h idle (mean)",
                        "unscheduled pods (mean)", "failed expectations"})
    header.push_back(h);
  std::vector<std::vector<std::string>> rows{header};
  for (const auto& [index, p] : points) rows.push_back(summary_row(index, p, paths));
  return report::aligned_rows(rows);
}

namespace {

// A usage error of `sweep PLAN`, printed; false when there is none.
bool plan_usage_error(const SweepArgs& args) {
  if (args.args.size() > 1) {
    std::fprintf(stderr, "error: sweep takes one PLAN file, got %zu arguments\n", args.args.size());
    return true;
  }
  if (args.out.empty()) {
    std::fprintf(stderr, "error: sweep needs --out FILE\n");
    return true;
  }
  return false;
}

// --shard i/N as (i, N), (0, 1) without it; nullopt once the error is printed.
std::optional<std::pair<std::size_t, std::size_t>> shard_of(const SweepArgs& args) {
  if (args.shard.empty()) return std::make_pair(std::size_t{0}, std::size_t{1});
  auto s = scenario::parse_shard(args.shard);
  if (!s) std::fprintf(stderr, "error: --shard: expected i/N with 0 <= i < N, e.g. 0/4, got \"%s\"\n", args.shard.c_str());
  return s;
}

using PointScenarios = std::vector<std::unique_ptr<scenario::Scenario>>;

// Loads every point this shard runs once, up front: a bad value fails before any run starts,
// and the runs of a point share its (read-only) Scenario. False once the error is printed.
bool load_points(const scenario::SweepPlan& plan, const std::vector<std::size_t>& runs, PointScenarios& scenarios) {
  scenarios.resize(plan.points.size());
  for (std::size_t r : runs) {
    std::size_t point = scenario::sweep_run(plan, r).point;
    if (scenarios[point]) continue;
    try {
      scenarios[point] = std::make_unique<scenario::Scenario>(scenario::load_point_scenario(plan, point));
    } catch (const scenario::InputError& e) {
      // One line, as every input error: the point's settings say which run of the plan it was.
      std::string settings;
      for (const auto& a : plan.points[point].assignments)
        settings += fmt::format("{}{} = {}", settings.empty() ? "" : ", ", a.path, a.value_yaml);
      std::fprintf(stderr, "%s (sweep point %zu: %s)\n", e.what(), point, settings.c_str());
      return false;
    }
  }
  return true;
}

// --resume: the runs of this plan and shard already in --out; a run another plan or shard wrote
// is an error.
std::map<std::size_t, std::string> resumed_runs(const SweepArgs& args, const scenario::SweepPlan& plan,
                                                const std::vector<std::size_t>& runs) {
  std::map<std::size_t, std::string> lines;
  std::set<std::size_t> mine(runs.begin(), runs.end());
  // Read back to be extended: --out is this sweep's own output, not one of its inputs.
  ResultFile rf = parse_result_lines(
      scenario::read_input_file(args.out, scenario::Location{}, scenario::InputRole::OwnOutput), args.out);
  for (const auto& [run, line] : rf.lines) {
    Json j = Json::parse(line);
    bool ok = mine.count(run) && j.value("plan", "") == plan.name && j.value("of", std::size_t{0}) == plan.run_count() &&
              j.value("seed", std::uint64_t{0}) == scenario::sweep_run(plan, run).seed &&
              j["params"].dump() == sweep_point_params(plan, scenario::sweep_run(plan, run).point);
    if (!ok)
      throw scenario::InputError(scenario::Location{},
                                 fmt::format("run {} in \"{}\" was not written by this plan and shard; use another --out "
                                             "or start over without --resume", run, args.out));
    lines.emplace(run, line);
  }
  if (rf.torn) std::fprintf(stderr, "sweep: dropped a torn last line from %s\n", args.out.c_str());
  std::fprintf(stderr, "sweep: resuming, %zu of %zu runs already in %s\n", lines.size(), runs.size(), args.out.c_str());
  return lines;
}

// Rewrites what is kept (drops a torn tail) and opens the file to append runs as they finish.
std::FILE* reopen_for_append(const std::string& path, const std::map<std::size_t, std::string>& lines) {
  write_sorted(path, lines);
  std::FILE* out = std::fopen(path.c_str(), "ab");
  if (!out) throw scenario::InputError(scenario::Location{}, "cannot write \"" + path + "\"");
  return out;
}

std::string run_line(const scenario::SweepPlan& plan, const scenario::Scenario& s, const scenario::SweepRun& run) {
  ops::RunOptions options;
  options.seed = run.seed;
  options.until = plan.until;
  options.keep_all_occurrences = false;
  options.spill_events_in_batches_of = ops::kLongRunEventBatch;
  options.drop_finished_job_templates = true;
  ops::RunResult result = ops::run_scenario(s, options);
  auto results = report::check_expectations(result, container_log_reader());
  return sweep_run_line(plan, run, report::run_headline(result, results), result.end.to_seconds());
}

// Runs `todo` on `jobs` threads; each finished line is appended to out (when there is one) and
// kept in lines. The errors, one line each.
std::vector<std::string> run_all(const scenario::SweepPlan& plan, const PointScenarios& scenarios,
                                 const std::vector<std::size_t>& todo, int jobs, std::FILE* out,
                                 const std::string& out_path, std::map<std::size_t, std::string>& lines,
                                 Progress& progress) {
  std::mutex mu;
  std::vector<std::string> errors;
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < todo.size(); i = next++) {
      scenario::SweepRun run = scenario::sweep_run(plan, todo[i]);
      std::string line;
      try {
        line = run_line(plan, *scenarios[run.point], run);
      } catch (const std::exception& e) {
        std::lock_guard lock(mu);
        errors.push_back(fmt::format("error: run {} (point {}, seed {}): {}", run.index, run.point, run.seed, e.what()));
        continue;
      }
      std::lock_guard lock(mu);
      errno = 0;
      if (out && (std::fputs(line.c_str(), out) < 0 || std::fflush(out) != 0) && errors.empty())
        errors.push_back(fmt::format("eksim: error: cannot write \"{}\": {}", out_path, std::strerror(errno ? errno : EIO)));
      lines.emplace(run.index, std::move(line));
      progress.tick();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < jobs; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  return errors;
}

}  // namespace

int sweep_command(const SweepArgs& args) {
  if (args.args.empty()) {
    std::fprintf(stderr, "error: sweep needs a PLAN file (or: sweep merge SHARD... --out FILE)\n");
    return 2;
  }
  if (args.args[0] == "merge") return merge(args);
  if (plan_usage_error(args)) return 2;
  auto shard = shard_of(args);
  if (!shard) return 2;
  scenario::SweepPlan plan = scenario::load_sweep_plan(args.args[0]);
  std::vector<std::size_t> runs = scenario::shard_runs(plan.run_count(), shard->first, shard->second);
  PointScenarios scenarios;
  if (!load_points(plan, runs, scenarios)) return 2;
  refuse_input_as_output(args.out);  // the plan, its scenario or a file they name

  // A FIFO or a device (--out /dev/null) is written once, sorted, at the end: it cannot be read
  // back for --resume nor rewritten after the runs appended to it.
  const bool stream = is_output_stream(args.out);
  std::error_code ec;
  std::map<std::size_t, std::string> lines;
  if (args.resume && !stream && std::filesystem::is_regular_file(args.out, ec)) lines = resumed_runs(args, plan, runs);
  std::FILE* out = stream ? nullptr : reopen_for_append(args.out, lines);

  std::vector<std::size_t> todo;
  for (std::size_t r : runs)
    if (!lines.count(r)) todo.push_back(r);
  int jobs = args.jobs > 0 ? args.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  jobs = std::max(1, std::min<int>(jobs, static_cast<int>(todo.size())));
  Progress progress(runs.size(), lines.size());
  std::vector<std::string> errors = run_all(plan, scenarios, todo, jobs, out, args.out, lines, progress);
  errno = 0;
  if (out && std::fclose(out) != 0 && errors.empty())
    errors.push_back(fmt::format("eksim: error: cannot write \"{}\": {}", args.out, std::strerror(errno ? errno : EIO)));
  progress.finish();
  for (const auto& e : errors) std::fprintf(stderr, "%s\n", e.c_str());
  if (!errors.empty()) return 2;

  write_sorted(args.out, lines);
  if (!args.quiet) std::fputs(sweep_summary_table(lines).c_str(), stdout);
  double secs = progress.elapsed();
  std::fprintf(stderr, "sweep: %zu runs in %.1f s (%.2f runs/s, %d job(s)) -> %s\n", todo.size(), secs,
               secs > 0 ? static_cast<double>(todo.size()) / secs : 0.0, jobs, args.out.c_str());
  return 0;
}

}  // namespace eksim::cli
