#pragma once
// Facts about a finished run that the JSON report, the expectations and sweeps all read, computed
// in one place so they cannot disagree.
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/runner.hpp"

namespace eksim::report {

struct JobFacts {
  std::string ns, name;
  std::string status;  // Running | Complete | Failed | Pending
  std::string reason;
  std::optional<engine::SimTime> finished_at;
  double algbw_gbps = 0, busbw_gbps = 0;
};

std::vector<JobFacts> job_facts(const scenario::RunResult& run);
// Node group name of an ASG, or the ASG name itself when it is not a managed node group's.
std::string node_group_of_asg(const scenario::RunResult& run, const std::string& asg);
double total_cost_usd(const scenario::RunResult& run);

}  // namespace eksim::report
