#include "sim/cli/app.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <new>
#include <optional>
#include <string_view>

#include "models/aws/instance_catalog.hpp"
#include "sim/cli/check_command.hpp"
#include "sim/cli/nccl_command.hpp"
#include "sim/cli/run_command.hpp"
#include "sim/cli/serve_command.hpp"
#include "sim/cli/sweep_command.hpp"
#include "sim/engine/numbers.hpp"
#include "sim/report/catalog_table.hpp"
#include "sim/scenario/input_error.hpp"

#ifndef EKSIM_VERSION
#define EKSIM_VERSION "0.0.0"
#endif

namespace eksim::cli {

namespace {

constexpr const char* kFooter = R"(Examples:
  eksim run scenarios/labs/000-gpu-nodegroup-scale.yaml
  eksim run scenarios/labs/000-gpu-nodegroup-scale.yaml --seed 7 --json report.json --quiet
  eksim check scenarios/ --jobs 2 --junit results.xml
  eksim sweep scenarios/planning/lab000-sweep.yaml --out runs.jsonl --jobs 2
  eksim sweep scenarios/planning/lab000-sweep.yaml --out shard-0.jsonl --shard 0/2
  eksim sweep merge shard-0.jsonl shard-1.jsonl --out runs.jsonl
  eksim nccl --instance g5.xlarge --nodes 2 --cross-az
  eksim nccl --instance g5.xlarge --nodes 2 --scenario scenarios/nccl/sg-block-restore.yaml --security-groups node-sg
  eksim catalog --region ap-northeast-2
  eksim serve scenarios/karpenter/lab001-auto-mode-gpu-pool.yaml --speed 60
  eksim ctl advance 5m
  eksim ctl until 'pod/gpu-pod Running'
  eksim run scenarios/labs/000-gpu-pod-no-toleration.yaml --record lab000.record.json
  eksim serve --replay lab000.record.json   then   eksim ctl at 12m
  eksim ctl aws eks update-nodegroup-config --cluster-name myeks --nodegroup-name gpu --scaling-config desiredSize=1

Exit codes: 0 ok; 1 an expectation failed; 2 invalid input.)";

// CLI11 turns "-1" into 2^64-1 and clamps a seed beyond 2^64; a seed is checked as written.
const CLI::Validator kSeedCheck(
    [](std::string& text) -> std::string {
      if (engine::parse_integer<std::uint64_t>(text).ok()) return "";
      return "expected a seed from 0 to 18446744073709551615, got \"" + text + "\"";
    },
    "SEED");

// An integer flag within its real range, checked as written: CLI11 alone turns "-1" into 2^64-1
// for an unsigned flag and lets a product of two in-range ints wrap later ("-2 ranks").
CLI::Validator integer_in(std::int64_t lo, std::int64_t hi, const std::string& why) {
  return CLI::Validator(
      [lo, hi, why](std::string& text) -> std::string {
        auto v = engine::parse_integer<std::int64_t>(text);
        if (v.ok() && v.value >= lo && v.value <= hi) return "";
        return "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + why + ", got \"" +
               text + "\"";
      },
      "INT");
}

// Each subcommand's arguments and, once parsed, whether it was the one given.
struct Subcommands {
  RunArgs run_args;
  CheckArgs check_args;
  SweepArgs sweep_args;
  NcclArgs nccl_args;
  report::CatalogFilter catalog_filter;
  std::string catalog_output = "table";
  ServeArgs serve_args;
  CtlArgs ctl_args;
  CLI::App* run = nullptr;
  CLI::App* check = nullptr;
  CLI::App* sweep = nullptr;
  CLI::App* nccl = nullptr;
  CLI::App* catalog = nullptr;
  CLI::App* serve = nullptr;
  CLI::App* ctl = nullptr;
};

CLI::App* add_run(CLI::App& app, RunArgs& a) {
  auto* run = app.add_subcommand("run", "Simulate one scenario and print its timeline");
  run->add_option("scenario", a.scenario, "Scenario file (YAML or JSON)")->required();
  run->add_option("--seed", a.seed, "Random seed (overrides the scenario's)")->check(kSeedCheck);
  run->add_option("--until", a.until, "Simulated time to stop at, e.g. 2h (overrides duration)");
  run->add_option("--json", a.json_file, "Write the JSON report here");
  run->add_option("--trace", a.trace_file, "Write a Chrome/Perfetto trace here");
  run->add_option("--record", a.record_file, "Write a run record here, for eksim serve --replay");
  run->add_option("--metrics", a.metrics_file, "Write a CSV time series here");
  run->add_option("--metrics-interval", a.metrics_interval, "Simulated time between metrics samples (default 1m)");
  run->add_flag("--quiet", a.quiet, "Print no timeline");
  run->add_flag("--check-invariants", a.check_invariants,
                "Check the simulator's invariants after every event (exit 3 on a violation)");
  return run;
}

CLI::App* add_check(CLI::App& app, CheckArgs& a) {
  auto* check = app.add_subcommand("check", "Run every scenario under the paths with its expectations");
  check->add_option("paths", a.paths, "Scenario files or directories")->required();
  check->add_option("--junit", a.junit_file, "Write JUnit XML here");
  check->add_option("--jobs,-j", a.jobs, "Scenarios run in parallel")->check(CLI::Range(1, 256));
  check->add_flag("--check-invariants", a.check_invariants,
                  "Check the simulator's invariants after every event of every scenario (exit 3 on a violation)");
  return check;
}

CLI::App* add_sweep(CLI::App& app, SweepArgs& a) {
  auto* sweep = app.add_subcommand("sweep", "Run a sweep plan (or: sweep merge SHARD... --out FILE)");
  sweep->add_option("args", a.args, "PLAN file, or: merge SHARD...")->required();
  sweep->add_option("--out,-o", a.out, "Results file (one JSON line per run)")->required();
  sweep->add_option("--jobs,-j", a.jobs, "Runs in parallel (default: hardware threads)")->check(CLI::Range(1, 256));
  sweep->add_option("--shard", a.shard, "Run only shard i of N (i/N, 0 <= i < N), e.g. $JOB_COMPLETION_INDEX/4");
  sweep->add_flag("--resume", a.resume, "Keep the runs already in --out and run the rest");
  sweep->add_flag("--quiet", a.quiet, "Print no summary table");
  return sweep;
}

CLI::App* add_nccl(CLI::App& app, NcclArgs& a) {
  auto* nccl = app.add_subcommand("nccl", "Print an nccl-tests table (all_reduce_perf, --op for others) for a topology");
  nccl->add_option("--instance", a.instance, "Instance type, e.g. g5.xlarge")->required();
  nccl->add_option("--nodes", a.nodes, "Number of nodes")
      ->check(integer_in(1, 100000, " (EKS's largest cluster is 100,000 nodes)"));
  nccl->add_option("--gpus-per-node", a.gpus_per_node, "GPUs per node (default: all of the type's)")
      ->check(integer_in(1, 64, ""));
  nccl->add_flag("--cross-az", a.cross_az, "Put consecutive nodes in different AZs");
  nccl->add_flag("--burst", a.burst, "Let \"up to\" network types run at their burst rate");
  // nccl-tests reads sizes into a size_t and counts elements in an int64; a factor below 2 never grows.
  const auto bytes = integer_in(1, INT64_MAX, "");
  nccl->add_option("--min-bytes,-b", a.min_bytes, "Smallest message size")->check(bytes);
  nccl->add_option("--max-bytes,-e", a.max_bytes, "Largest message size")->check(bytes);
  nccl->add_option("--step-factor,-f", a.step_factor, "Multiply the size by this between rows")
      ->check(integer_in(2, INT64_MAX, ""));
  nccl->add_option("--security-groups", a.security_groups,
                   "Security groups on every node's ENI (comma-separated), defined in --scenario")
      ->delimiter(',');
  nccl->add_option("--scenario", a.scenario, "Scenario whose VPC and security groups apply");
  nccl->add_option("--op", a.op, "Collective: all_reduce (default), all_gather, reduce_scatter, broadcast, reduce, alltoall")
      ->check(CLI::IsMember({"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall"}));
  nccl->add_option("--net", a.net, "NCCL's network: efa (default where the type has EFA) or socket (NCCL_NET=Socket)")
      ->check(CLI::IsMember({"efa", "socket"}));
  nccl->add_option("--nccl-version", a.nccl_version,
                   "NCCL whose tuner and connect failures apply, e.g. 2.21.5 (PyTorch 2.5) or 2.27.3 (default)");
  return nccl;
}

CLI::App* add_catalog(CLI::App& app, report::CatalogFilter& filter, std::string& output) {
  auto* catalog = app.add_subcommand("catalog", "List the instance types the simulator knows");
  catalog->add_option("--region", filter.region,
                      "Region for prices (us-east-1 and GovCloud for every type, ap-northeast-2 for some)");
  catalog->add_option("--family", filter.family, "Only this instance family (g5, m7g, ...)");
  catalog->add_flag("--gpu", filter.gpu, "Only types with GPUs");
  catalog->add_option("--arch", filter.arch, "Only this architecture")->check(CLI::IsMember({"amd64", "arm64"}));
  catalog->add_option("--min-vcpu", filter.min_vcpu, "Only types with at least this many vCPUs")
      ->check(CLI::NonNegativeNumber);
  catalog->add_option("-o,--output", output, "table or json")->check(CLI::IsMember({"table", "json"}));
  return catalog;
}

CLI::App* add_serve(CLI::App& app, ServeArgs& a) {
  auto* serve = app.add_subcommand("serve", "Serve a scenario's cluster as a Kubernetes API for kubectl");
  serve->add_option("scenario", a.scenario, "Scenario file (YAML or JSON); or --replay");
  serve->add_option("--record", a.record, "Write a run record here (every kubectl and ctl aws change, at its simulated time)");
  serve->add_option("--replay", a.replay, "Serve a run recorded by eksim run --record (read-only; eksim ctl at 12m)");
  serve->add_option("--port", a.port, "Port to listen on (default 6443; 0 picks a free one)");
  serve->add_option("--address", a.address, "Address to bind (default 127.0.0.1: loopback only)");
  serve->add_option("--speed", a.speed, "Simulated seconds per second (default 60; paused with --replay), max, or paused");
  serve->add_option("--seed", a.seed, "Random seed (overrides the scenario's)")->check(kSeedCheck);
  serve->add_option("--kubeconfig", a.kubeconfig, "Write the kubeconfig here (default: ~/.cache/eksim/)");
  return serve;
}

CLI::App* add_ctl(CLI::App& app, CtlArgs& a) {
  auto* ctl = app.add_subcommand("ctl", "Control a running eksim serve: advance 5m | until 'pod/gpu-pod Running' | pause | resume | speed N | status | aws SERVICE COMMAND ...");
  ctl->add_option("command", a.args, "advance DURATION | until 'KIND/NAME STATE' | pause | resume | speed N | status")->required();
  ctl->add_option("--server", a.server, "eksim serve URL (default: $EKSIM_SERVER, then $KUBECONFIG's server)");
  ctl->add_option("--timeout", a.timeout, "until: give up after this much simulated time (default 1h)");
  return ctl;
}

// `--json ""` (an unset $VARIABLE) is an error, not "no --json": every value a flag takes must be
// non-empty, so that no output silently goes missing.
const CLI::Validator kNonEmpty(
    [](std::string& text) -> std::string { return text.empty() ? "expected a value, got an empty string" : ""; },
    "");

void add_subcommands(CLI::App& app, Subcommands& s) {
  s.run = add_run(app, s.run_args);
  s.check = add_check(app, s.check_args);
  s.sweep = add_sweep(app, s.sweep_args);
  s.nccl = add_nccl(app, s.nccl_args);
  s.catalog = add_catalog(app, s.catalog_filter, s.catalog_output);
  s.serve = add_serve(app, s.serve_args);
  s.ctl = add_ctl(app, s.ctl_args);
  for (CLI::App* sub : {s.run, s.check, s.sweep, s.nccl, s.catalog, s.serve, s.ctl})
    for (CLI::Option* opt : sub->get_options())
      if (opt->get_type_size() != 0 && !opt->get_positional()) opt->check(kNonEmpty);
}

// `ctl [--server URL] aws ...` takes the aws CLI's own flags (--cluster-name, --group-id, ...),
// which are not ctl's: everything after "aws" goes to it unparsed.
std::optional<CtlArgs> ctl_aws_args(int argc, char** argv) {
  if (argc < 3 || std::string_view(argv[1]) != "ctl") return std::nullopt;
  CtlArgs aws_args;
  int i = 2;
  for (; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--server" && i + 1 < argc) aws_args.server = argv[++i];
    else if (a.rfind("--server=", 0) == 0) aws_args.server = std::string(a.substr(9));
    else break;
  }
  if (i >= argc || std::string_view(argv[i]) != "aws") return std::nullopt;
  aws_args.args.assign(argv + i, argv + argc);
  return aws_args;
}

// The exit code when parsing ends the program (help, version, a usage error).
std::optional<int> parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return std::nullopt;
}

int run_given(const Subcommands& s) {
  if (*s.run) return run_command(s.run_args);
  if (*s.check) return check_command(s.check_args);
  if (*s.sweep) return sweep_command(s.sweep_args);
  if (*s.nccl) return nccl_command(s.nccl_args);
  if (*s.serve) return serve_command(s.serve_args);
  if (*s.ctl) return ctl_command(s.ctl_args);
  if (*s.catalog) {
    const auto& cat = aws::InstanceCatalog::builtin();
    std::fputs((s.catalog_output == "json" ? report::format_catalog_json(cat, s.catalog_filter)
                                           : report::format_catalog_table(cat, s.catalog_filter))
                   .c_str(),
               stdout);
  }
  return 0;
}

// Every failure a subcommand lets out is one error line and exit 2.
int run_guarded(const Subcommands& s) {
  try {
    return run_given(s);
  } catch (const scenario::InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "eksim: error: out of memory\n");
    return 2;
  } catch (const std::exception& e) {
    // Last resort: input should never get here (every reader gives a located InputError), but
    // if a library's exception escapes, the contract is still one error line and exit 2, never
    // an abort with a stack trace.
    std::fprintf(stderr, "eksim: error: %s\n", e.what());
    return 2;
  } catch (...) {
    std::fprintf(stderr, "eksim: error: unexpected failure\n");
    return 2;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"eksim: a discrete-event simulator of Amazon EKS clusters with GPU nodes", "eksim"};
  app.footer(kFooter);
  app.set_version_flag("--version", std::string("eksim ") + EKSIM_VERSION);
  app.require_subcommand(1);
  Subcommands subcommands;
  add_subcommands(app, subcommands);
  if (auto aws = ctl_aws_args(argc, argv)) return ctl_command(*aws);
  if (auto exit_code = parse(app, argc, argv)) return *exit_code;
  return run_guarded(subcommands);
}

}  // namespace eksim::cli
