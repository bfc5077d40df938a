#pragma once
// Headline numbers of one finished run, as a sweep compares runs: how long workload pods waited
// for a node, how many GPU-hours were paid for and how many of them pods held, what it cost.
#include <cstddef>
#include <vector>

#include "sim/report/expectations.hpp"
#include "sim/ops/runner.hpp"

namespace eksim::report {

struct Percentiles {
  double p50 = 0, p95 = 0, max = 0;
};

struct RunHeadline {
  std::size_t pods = 0;              // workload pods (not DaemonSet or kube-system pods)
  std::size_t pods_unscheduled = 0;  // never bound to a node by the end
  std::size_t pods_failed = 0;
  Percentiles pending_seconds;       // creation -> scheduled; still pending counts until the end
  double gpu_hours_provisioned = 0;  // GPUs of running instances x hours
  double gpu_hours_allocated = 0;    // GPUs requested by bound pods x hours
  double gpu_hours_idle = 0;         // provisioned - allocated
  double cost_usd = 0;
  std::size_t expectations_failed = 0;
  std::size_t jobs = 0, jobs_complete = 0, jobs_failed = 0;
  Percentiles job_seconds;           // creation -> completion of completed Jobs
  std::size_t nodes_launched = 0;    // instances that reached running
};

// Nearest-rank percentile of values (p in [0, 1]); 0 for an empty list.
double percentile(std::vector<double> values, double p);
Percentiles percentiles(const std::vector<double>& values);

// True for pods a planner counts as workload (not DaemonSet pods, not kube-system).
bool is_workload_pod(const k8s::Pod& pod);

RunHeadline run_headline(const ops::RunResult& run, const std::vector<ExpectationResult>& results);

}  // namespace eksim::report
