#pragma once
// Facts about a finished run that the JSON report, the expectations and sweeps all read, computed
// in one place so they cannot disagree.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/ops/runner.hpp"

namespace eksim::report {

struct JobFacts {
  std::string ns, name;
  std::string status;  // Running | Complete | Failed | Pending
  std::string reason;
  std::optional<engine::SimTime> finished_at;
  double algbw_gbps = 0, busbw_gbps = 0;
  // Training jobs (models/net/training_controller.hpp); absent for other Jobs.
  std::optional<double> step_time_s;
  double comm_share = 0;         // all-reduce share of a step
  double steps_per_second = 0;
  double steps_done = 0;
  int training_attempts = 0;     // gangs that formed
  std::string training_phase;    // Waiting | Hung | Training | Succeeded | Failed
};

// One Job at a time, in the order the API lists them: a week of a fleet has 100,000 Jobs.
void for_each_job_facts(const ops::RunResult& run, const std::function<void(const JobFacts&)>& fn);
// Node group name of an ASG, or the ASG name itself when it is not a managed node group's.
std::string node_group_of_asg(const ops::RunResult& run, const std::string& asg);
double total_cost_usd(const ops::RunResult& run);

}  // namespace eksim::report
