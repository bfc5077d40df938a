#pragma once
#include <string>

#include "sim/engine/time.hpp"

namespace eksim::aws {

// An AWS-side record: an Auto Scaling scaling activity, an EKS update, an EC2 API error.
struct Activity {
  engine::SimTime start;
  engine::SimTime end;
  std::string service;   // "autoscaling", "eks", "ec2"
  std::string resource;  // ASG or node group name
  std::string status;    // Successful, Failed, InProgress, Cancelled
  std::string description;
  std::string cause;
  std::string status_message;
};

}  // namespace eksim::aws
