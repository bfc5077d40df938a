#pragma once
// `eksim serve SCENARIO` and `eksim ctl advance|until|pause|resume|speed|status|aws ...`.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace eksim::cli {

struct ServeArgs {
  std::string scenario;
  std::uint16_t port = 6443;
  std::string address = "127.0.0.1";
  std::string speed;        // "" = 60, or paused with --replay
  std::string replay;       // a run record (eksim run --record) to serve read-only
  std::string record;       // write a run record here: the scenario, the seed and every change users make
  std::optional<std::uint64_t> seed;
  std::string kubeconfig;  // default under the user's cache directory
};
int serve_command(const ServeArgs& args);

struct CtlArgs {
  std::vector<std::string> args;  // advance 5m | until 'pod/gpu-pod Running' [--timeout 1h] | pause | resume | speed N | status
  std::string server;             // default: $EKSIM_SERVER, the current KUBECONFIG's server, http://127.0.0.1:6443
  std::string timeout = "1h";
};
int ctl_command(const CtlArgs& args);

}  // namespace eksim::cli
