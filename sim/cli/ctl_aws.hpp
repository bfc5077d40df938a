#pragma once
// `eksim ctl aws SERVICE COMMAND --flag value ...`: the aws CLI commands the labs run, with the
// aws CLI's command and flag names, sent to `eksim serve`'s /eksim/v1/aws endpoint; the answer is
// printed as the aws CLI prints it (JSON output, or "An error occurred (CODE) when calling the
// OPERATION operation: MESSAGE" and exit 254).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace eksim::cli {

// The request body for /eksim/v1/aws, or an empty object with the reason in *error.
// args start after "aws": {"eks", "update-nodegroup-config", "--cluster-name", "myeks", ...}.
nlohmann::json parse_aws_command(const std::vector<std::string>& args, std::string* error);

struct CtlOutput {
  int exit_code = 0;
  std::string out, err;
};
// What the CLI prints for the endpoint's answer (HTTP status and body).
CtlOutput format_aws_answer(int http_status, const std::string& body);

// Parses, calls the server and prints; the exit code.
int ctl_aws(const std::string& server, const std::vector<std::string>& args);

}  // namespace eksim::cli
