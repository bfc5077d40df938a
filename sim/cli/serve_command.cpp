#include "sim/cli/serve_command.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

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

// A SCENARIO or --replay, and what a replay cannot take; true once the error is printed.
bool serve_usage_error(const ServeArgs& args) {
  bool replay = !args.replay.empty();
  if (replay == !args.scenario.empty()) {
    std::fprintf(stderr, "error: serve takes a SCENARIO file or --replay RECORD, not %s\n", replay ? "both" : "neither");
    return true;
  }
  if (replay && !args.record.empty()) {
    std::fprintf(stderr, "error: --record: a replay changes nothing to record\n");
    return true;
  }
  if (replay && args.seed) {
    std::fprintf(stderr, "error: --seed: a replay runs with the recorded seed\n");
    return true;
  }
  return false;
}

// The scenario served: the file's, or the recorded run's with its seed.
struct Served {
  std::unique_ptr<scenario::Scenario> scenario;
  std::optional<std::uint64_t> seed;
  std::optional<scenario::RunRecord> record;
};

Served load_served(const ServeArgs& args) {
  Served s;
  s.seed = args.seed;
  if (!args.replay.empty()) {
    s.record = scenario::load_record(args.replay);
    s.scenario = std::make_unique<scenario::Scenario>(scenario::record_scenario(*s.record));
    s.seed = s.record->seed;
  } else {
    s.scenario = std::make_unique<scenario::Scenario>(scenario::load_scenario(args.scenario));
  }
  return s;
}

// --record: the scenario, the seed and every change users make, rewritten after each change so
// that the file is a complete record whenever the server stops.
struct Recording {
  const ServeArgs& args;
  serve::Session& session;
  scenario::RunRecord record;

  void write(const std::vector<scenario::RecordedRequest>& requests) {
    record.until = engine::Duration{session.now().us};
    record.requests = requests;
    replace_output_file(args.record, scenario::record_text(record));
  }
  void start() {
    std::error_code ec;
    auto absolute = std::filesystem::absolute(args.scenario, ec);
    record.scenario_file = ec ? args.scenario : absolute.lexically_normal().string();
    record.scenario_text = scenario::read_input_file(args.scenario, scenario::Location{args.scenario});
    record.seed = session.seed();
    write({});
    session.record_requests([this](const std::vector<scenario::RecordedRequest>& requests) { write(requests); });
  }
};

// The kubeconfig that points kubectl at url; its path, or nullopt once the error is printed.
std::optional<std::string> write_kubeconfig(const ServeArgs& args, std::uint16_t port, const std::string& url,
                                            const std::string& cluster_name) {
  std::string path = args.kubeconfig.empty() ? serve::default_kubeconfig_path(port) : args.kubeconfig;
  std::error_code ec;
  if (auto dir = std::filesystem::path(path).parent_path(); !dir.empty()) std::filesystem::create_directories(dir, ec);
  try {
    write_output_file(path, serve::kubeconfig_text(url, cluster_name));
  } catch (const scenario::InputError& e) {
    std::fprintf(stderr, "error: --kubeconfig: %s\n", e.message().c_str());
    return std::nullopt;
  }
  return path;
}

std::string server_url(const ServeArgs& args, std::uint16_t port) {
  std::string host = args.address.find(':') != std::string::npos ? "[" + args.address + "]" : args.address;
  if (args.address == "0.0.0.0") host = "127.0.0.1";
  return "http://" + host + ":" + std::to_string(port);
}

}  // namespace

int serve_command(const ServeArgs& args) {
  if (serve_usage_error(args)) return 2;
  std::string error;
  auto speed = serve::parse_speed(args.speed.empty() ? (!args.replay.empty() ? "paused" : "60") : args.speed, &error);
  if (!speed) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  Served served = load_served(args);
  std::string cluster_name = served.scenario->cluster.name.empty() ? "cluster" : served.scenario->cluster.name;
  serve::Session session(std::move(served.scenario), served.seed, *speed);
  if (served.record) session.replay_of(served.record->until, served.record->requests);
  Recording recording{args, session, {}};
  if (!args.record.empty()) recording.start();
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
  std::string url = server_url(args, server->port());
  auto kubeconfig = write_kubeconfig(args, server->port(), url, cluster_name);
  if (!kubeconfig) return 2;
  std::printf("eksim serve: %s (seed %llu) at %s, simulated time at speed %s\n", session.scenario().name.c_str(),
              static_cast<unsigned long long>(session.seed()), url.c_str(), serve::speed_text(session.speed).c_str());
  if (served.record)
    std::printf("replaying a recorded run of %s (read-only); look at any moment with: eksim ctl at DURATION\n",
                engine::format_duration(served.record->until).c_str());
  std::printf("export KUBECONFIG=%s\n", kubeconfig->c_str());
  std::fflush(stdout);
  g_server = server.get();
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  server->run();
  g_server = nullptr;
  if (!args.record.empty()) recording.write(recording.record.requests);  // until: where the clock stopped
  return 0;
}

namespace {

// --server, else $EKSIM_SERVER, else $KUBECONFIG's server, else the default port on loopback.
std::string ctl_server(const CtlArgs& args) {
  std::string server = args.server;
  if (server.empty())
    if (const char* env = std::getenv("EKSIM_SERVER"); env && *env) server = env;
  if (server.empty())
    if (const char* kc = std::getenv("KUBECONFIG"); kc && *kc) server = serve::server_from_kubeconfig(kc);
  if (server.empty()) server = "http://127.0.0.1:6443";
  return server;
}

// The clock request a verb sends (status sends none: an empty body), or nullopt once the usage
// error is printed.
std::optional<nlohmann::json> clock_request(const CtlArgs& args) {
  using nlohmann::json;
  const std::string& verb = args.args[0];
  auto need = [&](std::size_t n, const char* usage) {
    if (args.args.size() == n) return true;
    std::fprintf(stderr, "error: ctl %s\n", usage);
    return false;
  };
  if (verb == "advance") {
    if (!need(2, "advance DURATION (e.g. 5m)")) return std::nullopt;
    return json{{"action", "advance"}, {"by", args.args[1]}};
  }
  if (verb == "until") {
    if (!need(2, "until 'KIND/NAME STATE' (quoted, e.g. 'pod/gpu-pod Running')")) return std::nullopt;
    return json{{"action", "until"}, {"condition", args.args[1]}, {"timeout", args.timeout}};
  }
  if (verb == "pause" || verb == "resume") {
    if (!need(1, (verb + " takes no arguments").c_str())) return std::nullopt;
    return json{{"action", verb}};
  }
  if (verb == "at") {
    if (!need(2, "at DURATION (simulated time since the start, e.g. 12m)")) return std::nullopt;
    return json{{"action", "at"}, {"time", args.args[1]}};
  }
  if (verb == "speed") {
    if (!need(2, "speed FACTOR|max|paused")) return std::nullopt;
    return json{{"action", "speed"}, {"speed", args.args[1]}};
  }
  if (verb != "status") {
    std::fprintf(stderr, "error: ctl: unknown command \"%s\"; expected advance, until, at, pause, resume, speed, status or aws\n", verb.c_str());
    return std::nullopt;
  }
  return json();
}

}  // namespace

int ctl_command(const CtlArgs& args) {
  using nlohmann::json;
  if (args.args.empty()) {
    std::fprintf(stderr, "error: ctl: expected advance DURATION, until 'KIND/NAME STATE', pause, resume, speed N, at DURATION, status or aws SERVICE COMMAND ...\n");
    return 2;
  }
  const std::string server = ctl_server(args);
  const std::string& verb = args.args[0];
  if (verb == "aws") return ctl_aws(server, std::vector<std::string>(args.args.begin() + 1, args.args.end()));
  auto body = clock_request(args);
  if (!body) return 2;
  serve::HttpResult r;
  try {
    r = verb == "status" ? serve::http_call(server, "GET", "/eksim/v1/clock")
                         : serve::http_call(server, "POST", "/eksim/v1/clock", body->dump());
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
