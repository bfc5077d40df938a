#include "sim/cli/check_command.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "models/invariants/invariant_checker.hpp"
#include "sim/cli/container_log_reader.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/report/expectations.hpp"
#include "sim/ops/runner.hpp"

namespace eksim::cli {

namespace {

namespace fs = std::filesystem;

bool looks_like_scenario(const fs::path& p) {
  auto ext = p.extension().string();
  if (ext != ".yaml" && ext != ".yml" && ext != ".json") return false;
  try {
    YAML::Node doc = YAML::LoadFile(p.string());
    return doc.IsMap() && doc["kind"] && doc["kind"].IsScalar() && doc["kind"].Scalar() == "Scenario";
  } catch (const YAML::Exception&) {
    return true;  // malformed: let the loader report where
  }
}

struct Outcome {
  std::string file;
  bool invalid = false;
  bool violated = false;  // an invariant (--check-invariants)
  std::string error;
  std::vector<report::ExpectationResult> results;
  double sim_seconds = 0;
};

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string junit(const std::vector<Outcome>& outcomes) {
  int tests = 0, failures = 0, errors = 0;
  std::string cases;
  for (const auto& o : outcomes) {
    if (o.invalid || o.violated) {
      ++tests;
      ++errors;
      cases += fmt::format("    <testcase classname=\"{}\" name=\"load\">\n      <error message=\"{}\"/>\n    </testcase>\n",
                           xml_escape(o.file), xml_escape(o.error));
      continue;
    }
    for (const auto& r : o.results) {
      ++tests;
      cases += fmt::format("    <testcase classname=\"{}\" name=\"{}\"", xml_escape(o.file), xml_escape(r.description));
      if (r.passed) {
        cases += "/>\n";
      } else {
        ++failures;
        cases += fmt::format(">\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n", xml_escape(r.detail),
                             xml_escape(r.where.str() + ": " + r.detail));
      }
    }
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"eksim check\" tests=\"{}\" "
      "failures=\"{}\" errors=\"{}\">\n{}  </testsuite>\n</testsuites>\n",
      tests, failures, errors, cases);
}

}  // namespace

std::vector<std::string> collect_scenarios(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (const auto& entry : fs::recursive_directory_iterator(p, ec))
        if (entry.is_regular_file() && looks_like_scenario(entry.path())) out.push_back(entry.path().lexically_normal().string());
    } else {
      out.push_back(fs::path(p).lexically_normal().string());  // named explicitly: load it even if odd
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int check_command(const CheckArgs& args) {
  auto files = collect_scenarios(args.paths);
  if (files.empty()) {
    std::fprintf(stderr, "error: no scenario files under the given paths\n");
    return 2;
  }
  std::vector<Outcome> outcomes(files.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      Outcome& o = outcomes[i];
      o.file = files[i];
      try {
        scenario::Scenario s = scenario::load_scenario(files[i]);
        ops::RunOptions options;
        options.keep_all_occurrences = false;
        options.check_invariants = args.check_invariants;
        ops::RunResult run = ops::run_scenario(s, options);
        o.results = report::check_expectations(run, container_log_reader());
        o.sim_seconds = run.end.to_seconds();
      } catch (const scenario::InputError& e) {
        o.invalid = true;
        o.error = e.what();
      } catch (const invariants::Violation& e) {
        o.violated = true;
        o.error = o.file + ": " + e.what();
      } catch (const std::exception& e) {
        // An exception escaping a worker thread would terminate the process; report it as
        // that file's error instead (the last-resort wording of cli::main).
        o.invalid = true;
        o.error = "eksim: error: " + o.file + ": " + e.what();
      }
    }
  };
  int jobs = std::max(1, std::min<int>(args.jobs, static_cast<int>(files.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < jobs; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  int failed = 0, invalid = 0, violated = 0;
  for (const auto& o : outcomes) {
    if (o.violated) {
      ++violated;
      std::fprintf(stderr, "%s\n", o.error.c_str());
      std::printf("INVARIANT %s\n", o.file.c_str());
      continue;
    }
    if (o.invalid) {
      ++invalid;
      std::fprintf(stderr, "%s\n", o.error.c_str());
      std::printf("ERROR %s\n", o.file.c_str());
      continue;
    }
    bool ok = std::all_of(o.results.begin(), o.results.end(), [](const auto& r) { return r.passed; });
    failed += !ok;
    std::printf("%s %s (%zu expectations)\n", ok ? "PASS" : "FAIL", o.file.c_str(), o.results.size());
    for (const auto& r : o.results)
      if (!r.passed) std::printf("  %s: FAIL %s: %s\n", r.where.str().c_str(), r.description.c_str(), r.detail.c_str());
  }
  std::printf("%zu scenario(s): %zu passed, %d failed, %d invalid", files.size(), files.size() - failed - invalid - violated,
              failed, invalid);
  if (args.check_invariants) std::printf(", %d violated an invariant", violated);
  std::printf("\n");
  if (!args.junit_file.empty()) write_output_file(args.junit_file, junit(outcomes));
  if (violated) return invariants::kInvariantExitCode;
  if (invalid) return 2;
  return failed ? 1 : 0;
}

}  // namespace eksim::cli
