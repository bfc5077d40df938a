#include "sim/cli/serve_command.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "sim/cli/ctl_aws.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/scenario/input_file.hpp"
#include "sim/scenario/run_record.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/serve/http_client.hpp"
#include "sim/serve/http_server.hpp"
#include "sim/serve/kubeconfig.hpp"

namespace eksim::cli {

namespace {

serve::HttpServer* g_server = nullptr;

void on_signal(int) {
  if (g_server) g_server->stop();
}

}  // namespace

int serve_command(const ServeArgs& args) {
  std::string error;
  bool replay = !args.replay.empty();
  if (replay == !args.scenario.empty()) {
    std::fprintf(stderr, "error: serve takes a SCENARIO file or --replay RECORD, not %s\n", replay ? "both" : "neither");
    return 2;
  }
  if (replay && !args.record.empty()) {
    std::fprintf(stderr, "error: --record: a replay changes nothing to record\n");
    return 2;
  }
  if (replay && args.seed) {
    std::fprintf(stderr, "error: --seed: a replay runs with the recorded seed\n");
    return 2;
  }
  auto speed = serve::parse_speed(args.speed.empty() ? (replay ? "paused" : "60") : args.speed, &error);
  if (!speed) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  std::unique_ptr<scenario::Scenario> scenario;
  std::optional<std::uint64_t> seed = args.seed;
  std::optional<scenario::RunRecord> record;
  if (replay) {
    record = scenario::load_record(args.replay);
    scenario = std::make_unique<scenario::Scenario>(scenario::record_scenario(*record));
    seed = record->seed;
  } else {
    scenario = std::make_unique<scenario::Scenario>(scenario::load_scenario(args.scenario));
  }
  std::string cluster_name = scenario->cluster.name.empty() ? "cluster" : scenario->cluster.name;
  serve::Session session(std::move(scenario), seed, *speed);
  if (record) session.replay_of(record->until, record->requests);
  // --record: the scenario, the seed and every change users make, rewritten after each change so
  // that the file is a complete record whenever the server stops.
  scenario::RunRecord recording;
  auto write_recording = [&](const std::vector<scenario::RecordedRequest>& requests) {
    recording.until = engine::Duration{session.now().us};
    recording.requests = requests;
    replace_output_file(args.record, scenario::record_text(recording));
  };
  if (!args.record.empty()) {
    std::error_code ec;
    auto absolute = std::filesystem::absolute(args.scenario, ec);
    recording.scenario_file = ec ? args.scenario : absolute.lexically_normal().string();
    recording.scenario_text = scenario::read_input_file(args.scenario, scenario::Location{args.scenario});
    recording.seed = session.seed();
    write_recording({});
    session.record_requests(write_recording);
  }
  serve::ServerOptions options;
  options.address = args.address;
  options.port = args.port;
  std::unique_ptr<serve::HttpServer> server;
  try {
    server = std::make_unique<serve::HttpServer>(session, options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  std::string host = args.address.find(':') != std::string::npos ? "[" + args.address + "]" : args.address;
  if (args.address == "0.0.0.0") host = "127.0.0.1";
  std::string url = "http://" + host + ":" + std::to_string(server->port());
  std::string path = args.kubeconfig.empty() ? serve::default_kubeconfig_path(server->port()) : args.kubeconfig;
  std::error_code ec;
  if (auto dir = std::filesystem::path(path).parent_path(); !dir.empty()) std::filesystem::create_directories(dir, ec);
  std::ofstream out(path);
  out << serve::kubeconfig_text(url, cluster_name);
  if (!out) {
    std::fprintf(stderr, "error: --kubeconfig: cannot write %s\n", path.c_str());
    return 2;
  }
  out.close();
  std::printf("eksim serve: %s (seed %llu) at %s, simulated time at speed %s\n", session.scenario().name.c_str(),
              static_cast<unsigned long long>(session.seed()), url.c_str(), serve::speed_text(session.speed).c_str());
  if (record)
    std::printf("replaying a recorded run of %s (read-only); look at any moment with: eksim ctl at DURATION\n",
                engine::format_duration(record->until).c_str());
  std::printf("export KUBECONFIG=%s\n", path.c_str());
  std::fflush(stdout);
  g_server = server.get();
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  server->run();
  g_server = nullptr;
  if (!args.record.empty()) write_recording(recording.requests);  // until: where the clock stopped
  return 0;
}

int ctl_command(const CtlArgs& args) {
  using nlohmann::json;
  if (args.args.empty()) {
    std::fprintf(stderr, "error: ctl: expected advance DURATION, until 'KIND/NAME STATE', pause, resume, speed N, at DURATION, status or aws SERVICE COMMAND ...\n");
    return 2;
  }
  std::string server = args.server;
  if (server.empty())
    if (const char* env = std::getenv("EKSIM_SERVER"); env && *env) server = env;
  if (server.empty())
    if (const char* kc = std::getenv("KUBECONFIG"); kc && *kc) server = serve::server_from_kubeconfig(kc);
  if (server.empty()) server = "http://127.0.0.1:6443";
  const std::string& verb = args.args[0];
  if (verb == "aws") {
    return ctl_aws(server, std::vector<std::string>(args.args.begin() + 1, args.args.end()));
  }
  json body;
  auto need = [&](std::size_t n, const char* usage) {
    if (args.args.size() == n) return true;
    std::fprintf(stderr, "error: ctl %s\n", usage);
    return false;
  };
  if (verb == "advance") {
    if (!need(2, "advance DURATION (e.g. 5m)")) return 2;
    body = {{"action", "advance"}, {"by", args.args[1]}};
  } else if (verb == "until") {
    if (!need(2, "until 'KIND/NAME STATE' (quoted, e.g. 'pod/gpu-pod Running')")) return 2;
    body = {{"action", "until"}, {"condition", args.args[1]}, {"timeout", args.timeout}};
  } else if (verb == "pause" || verb == "resume") {
    if (!need(1, (verb + " takes no arguments").c_str())) return 2;
    body = {{"action", verb}};
  } else if (verb == "at") {
    if (!need(2, "at DURATION (simulated time since the start, e.g. 12m)")) return 2;
    body = {{"action", "at"}, {"time", args.args[1]}};
  } else if (verb == "speed") {
    if (!need(2, "speed FACTOR|max|paused")) return 2;
    body = {{"action", "speed"}, {"speed", args.args[1]}};
  } else if (verb != "status") {
    std::fprintf(stderr, "error: ctl: unknown command \"%s\"; expected advance, until, at, pause, resume, speed, status or aws\n", verb.c_str());
    return 2;
  }
  serve::HttpResult r;
  try {
    r = verb == "status" ? serve::http_call(server, "GET", "/eksim/v1/clock")
                         : serve::http_call(server, "POST", "/eksim/v1/clock", body.dump());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  json answer = json::parse(r.body, nullptr, false);
  if (r.status != 200) {
    std::fprintf(stderr, "error: %s\n", answer.is_object() ? answer.value("message", r.body).c_str() : r.body.c_str());
    return 1;
  }
  std::printf("simulated time %s (speed %s)\n", answer.value("now", "?").c_str(), answer.value("speed", "?").c_str());
  if (verb == "status") {
    std::printf("open watches: %lld\n", answer.value("openWatches", 0LL));
    if (answer.value("replay", false))
      std::printf("replaying a recorded run of %s (read-only)\n", answer.value("recordedUntil", "?").c_str());
  }
  return 0;
}

}  // namespace eksim::cli
