#include "sim/report/run_metrics.hpp"

#include <algorithm>
#include <cmath>

#include "sim/report/run_facts.hpp"

namespace eksim::report {

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

Percentiles percentiles(const std::vector<double>& values) {
  return Percentiles{percentile(values, 0.5), percentile(values, 0.95), percentile(values, 1.0)};
}

bool is_workload_pod(const k8s::Pod& pod) {
  if (pod.meta.ns == "kube-system") return false;
  for (const auto& o : pod.meta.owner_references)
    if (o.kind == "DaemonSet") return false;
  return true;
}

RunHeadline run_headline(const ops::RunResult& run, const std::vector<ExpectationResult>& results) {
  Cluster& c = *run.cluster;  // ApiServer::jobs() has no const overload
  RunHeadline h;
  std::vector<double> pending;
  for (std::size_t i = 0; i < c.api.pod_slots(); ++i) {
    const k8s::Pod& p = c.api.pod(k8s::PodId{static_cast<std::uint32_t>(i)}).pod;
    if (!is_workload_pod(p)) continue;
    ++h.pods;
    if (p.status.phase == k8s::PodPhase::Failed) ++h.pods_failed;
    engine::SimTime bound = p.status.scheduled_at.value_or(run.end);
    if (!p.status.scheduled_at) ++h.pods_unscheduled;
    pending.push_back((bound - p.meta.creation_timestamp).to_seconds());
    if (p.status.scheduled_at) {
      std::int64_t gpus = k8s::pod_requests(p.spec).get(k8s::kNvidiaGpu);
      engine::SimTime until = std::min(p.status.finished_at.value_or(run.end), run.end);
      if (until > bound) h.gpu_hours_allocated += static_cast<double>(gpus) * (until - bound).to_seconds() / 3600.0;
    }
  }
  h.pending_seconds = percentiles(pending);
  for (const auto& inst : c.ec2.instances()) {
    if (!inst.running_at) continue;
    ++h.nodes_launched;
    engine::SimTime until = std::min(inst.terminated_at.value_or(run.end), run.end);
    if (until > *inst.running_at)
      h.gpu_hours_provisioned += inst.type->gpu.count * (until - *inst.running_at).to_seconds() / 3600.0;
  }
  h.gpu_hours_idle = std::max(0.0, h.gpu_hours_provisioned - h.gpu_hours_allocated);
  h.cost_usd = total_cost_usd(run);
  for (const auto& r : results) h.expectations_failed += !r.passed;
  std::vector<double> job_seconds;
  for (const auto& job : c.api.jobs()) {
    ++h.jobs;
    if (job.condition == "Complete") {
      ++h.jobs_complete;
      if (job.completed_at) job_seconds.push_back((*job.completed_at - job.meta.creation_timestamp).to_seconds());
    } else if (job.condition == "Failed") {
      ++h.jobs_failed;
    }
  }
  h.job_seconds = percentiles(job_seconds);
  return h;
}

}  // namespace eksim::report
