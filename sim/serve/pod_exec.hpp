#pragma once
// `kubectl exec POD -- COMMAND` in a simulated container: eksim runs no processes, so only what
// the labs run is answered (nvidia-smi, the GPU check); anything else exits 127 saying so.
#include <optional>
#include <string>
#include <vector>

#include "sim/serve/api_handler.hpp"

namespace eksim::serve {

struct ExecResult {
  std::optional<HttpResponse> refused;  // set: answer this instead of upgrading the connection
  std::string out, err;
  int exit_code = 0;
};

ExecResult exec_in_pod(Session& session, const ApiPath& p, const std::vector<std::string>& command,
                       const std::string& container);
// Every command= value of an exec request target, in order (the query map keeps only one).
std::vector<std::string> exec_command(const std::string& target);

}  // namespace eksim::serve
