#include "sim/report/run_facts.hpp"

#include "models/net/training_controller.hpp"

namespace eksim::report {

void for_each_job_facts(const ops::RunResult& run, const std::function<void(const JobFacts&)>& fn) {
  auto& api = run.cluster->api;
  const net::TrainingController* training = run.cluster->controllers.training.get();
  for (const auto& job : api.jobs()) {
    JobFacts f;
    f.ns = job.meta.ns.empty() ? "default" : job.meta.ns;
    f.name = job.meta.name;
    f.status = job.condition.empty() ? (job.active > 0 ? "Running" : "Pending") : job.condition;
    f.reason = job.condition_reason;
    f.finished_at = job.completed_at;
    if (auto t = training ? training->find(f.ns, f.name) : std::nullopt) {
      f.algbw_gbps = t->algbw_gbytes_per_s;
      f.busbw_gbps = t->busbw_gbytes_per_s;
      if (t->step_time_s > 0) f.step_time_s = t->step_time_s;
      f.comm_share = t->comm_share;
      f.steps_per_second = t->steps_per_second;
      f.steps_done = t->steps_done;
      f.training_attempts = t->attempts;
      f.training_phase = net::training_phase_name(t->phase);
    }
    fn(f);
  }
}

std::string node_group_of_asg(const ops::RunResult& run, const std::string& asg) {
  if (const aws::ManagedNodegroup* ng = run.cluster->eks.by_asg(asg)) return ng->spec.name;
  return asg;
}

double total_cost_usd(const ops::RunResult& run) {
  return run.cluster->billing().total_usd() + run.cluster->cross_az_transfer_usd;
}

}  // namespace eksim::report
