#include "sim/report/run_facts.hpp"

namespace eksim::report {

std::vector<JobFacts> job_facts(const scenario::RunResult& run) {
  std::vector<JobFacts> out;
  auto& api = run.cluster->api;
  for (const auto& job : api.jobs()) {
    JobFacts f;
    f.ns = job.meta.ns.empty() ? "default" : job.meta.ns;
    f.name = job.meta.name;
    f.status = job.condition.empty() ? (job.active > 0 ? "Running" : "Pending") : job.condition;
    f.reason = job.condition_reason;
    f.finished_at = job.completed_at;
    out.push_back(f);
  }
  return out;
}

std::string node_group_of_asg(const scenario::RunResult& run, const std::string& asg) {
  if (const aws::ManagedNodegroup* ng = run.cluster->eks.by_asg(asg)) return ng->spec.name;
  return asg;
}

double total_cost_usd(const scenario::RunResult& run) {
  return run.cluster->billing().total_usd() + run.cluster->cross_az_transfer_usd;
}

}  // namespace eksim::report
