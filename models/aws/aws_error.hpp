#pragma once
// An AWS API error as the CLI and the console show it: an error code and AWS's own message.
// Every AWS-side refusal in the simulator (EC2, Auto Scaling, EKS) is one of these, built in the
// model that owns the rule, so its wording can be compared with the real service.
#include <string>

namespace eksim::aws {

struct AwsError {
  std::string code;     // VcpuLimitExceeded, InsufficientInstanceCapacity, ValidationError, ...
  std::string message;  // AWS's text, word for word
  // "VcpuLimitExceeded: You have requested more vCPU capacity ..." (the CLI's "api error" form)
  std::string str() const { return code + ": " + message; }
  bool operator==(const AwsError&) const = default;
};

}  // namespace eksim::aws
