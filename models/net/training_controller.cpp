// The training controller: which Jobs it tracks and their pods, what ends a run when a worker is
// lost, and the status it reports; its phases live in training_gang.cpp, training_nccl_init.cpp
// and training_progress.cpp (training_controller_impl.hpp).
#include "models/net/training_controller_impl.hpp"

#include <algorithm>
#include <cstdio>

#include "models/k8s/api/pod_factory.hpp"
#include "models/net/collectives.hpp"

namespace eksim::net {

using engine::Duration;
using k8s::EventType;
using engine::SimTime;
using namespace training_detail;

namespace training_detail {

std::string gbps_text(double gbytes_per_s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f GB/s", gbytes_per_s);
  return buf;
}

std::string seconds_text(double s) { return engine::format_duration(Duration::from_seconds(s)); }

}  // namespace training_detail

const char* training_phase_name(TrainingPhase p) {
  switch (p) {
    case TrainingPhase::Waiting: return "Waiting";
    case TrainingPhase::Hung: return "Hung";
    case TrainingPhase::Training: return "Training";
    case TrainingPhase::Succeeded: return "Succeeded";
    case TrainingPhase::Failed: return "Failed";
  }
  return "?";
}

TrainingController::Impl::Impl(Cluster& cluster, NetParams p) : c(cluster), params(std::move(p)) {
  if (c.kubelet) c.kubelet->on_container_started.push_back([this](k8s::PodId id) { on_started(id); });
  c.api.on_pod_phase.push_back([this](k8s::PodId id) {
    auto ph = c.api.pod(id).pod.status.phase;
    if (ph == k8s::PodPhase::Succeeded || ph == k8s::PodPhase::Failed) on_lost(id);
  });
  c.api.on_pod_deleted.push_back([this](k8s::PodId id) { on_lost(id); });
}

k8s::ObjectRef TrainingController::Impl::job_ref(const Tracked& t) const {
  const k8s::Job& j = c.api.jobs()[t.job];
  return {"Job", j.meta.ns, j.meta.name};
}

std::optional<std::size_t> TrainingController::Impl::owner_job(k8s::PodId id) const {
  const k8s::Pod& p = c.api.pod(id).pod;
  for (const auto& o : p.meta.owner_references) {
    if (o.kind != "Job") continue;
    const auto& all = c.api.jobs();
    for (std::size_t i = all.size(); i-- > 0;)
      if (!all[i].deleted && all[i].meta.name == o.name && all[i].meta.ns == p.meta.ns) return i;
  }
  return std::nullopt;
}

TrainingController::Impl::Tracked* TrainingController::Impl::tracked(std::size_t job) {
  auto it = by_job.find(job);
  if (it != by_job.end()) return it->second < 0 ? nullptr : &jobs[static_cast<std::size_t>(it->second)];
  const k8s::Job& j = c.api.jobs()[job];
  if (!j.tmpl.has_value()) {  // finished and dropped: it never trained, or it would be tracked
    by_job[job] = -1;
    return nullptr;
  }
  std::string error;
  auto spec = training_spec(*j.tmpl, &error);
  if (!spec) {
    by_job[job] = -1;
    if (!error.empty())
      c.api.emit(EventType::Warning, "InvalidTrainingSpec", {"Job", j.meta.ns, j.meta.name},
                 "not run as a training job: " + error, kSource);
    return nullptr;
  }
  Tracked t;
  t.job = job;
  t.spec = *spec;
  t.status.ns = j.meta.ns;
  t.status.name = j.meta.name;
  jobs.push_back(std::move(t));
  by_job[job] = static_cast<int>(jobs.size() - 1);
  return &jobs.back();
}

TrainingController::Impl::Tracked* TrainingController::Impl::tracked_of_pod(k8s::PodId id) {
  auto job = owner_job(id);
  return job ? tracked(*job) : nullptr;
}

void TrainingController::Impl::on_lost(k8s::PodId id) {
  if (ending.count(id.v)) return;
  cancel_resolving(id);
  if (!in_runs.count(id.v)) return;
  Tracked* t = tracked_of_pod(id);
  if (!t || !t->run || t->run->over || !t->run->training) return;
  Run& r = *t->run;
  if (std::find(r.pods.begin(), r.pods.end(), id) == r.pods.end()) return;
  advance(*t);
  c.sim.cancel(r.finish);
  r.training = false;  // out of the NIC sharing
  reshare();
  const Duration after = Duration::millis(r.params.watchdog_timeout_ms + r.params.watchdog_overshoot_ms);
  const std::uint64_t seq = static_cast<std::uint64_t>(t->status.steps_done) + 1;
  Tracked* tp = t;
  Run* rp = &r;
  r.timers.push_back(c.sim.schedule(after, [this, tp, rp, seq] {
    if (rp->over || tp->run.get() != rp) return;
    auto text = [&](int rank) {
      return watchdog_timeout_text(rank, seq, "ALLREDUCE", rp->input.numel, rp->input.numel,
                                   rp->params.watchdog_timeout_ms,
                                   rp->params.watchdog_timeout_ms + rp->params.watchdog_overshoot_ms);
    };
    for (std::size_t i = 0; i < rp->pods.size(); ++i)
      if (k8s::pod_active(c.api.pod(rp->pods[i])))
        emit_line(*rp, {Duration{}, static_cast<int>(i) * tp->spec.gpus_per_pod, "ProcessGroupNCCL",
                        text(static_cast<int>(i) * tp->spec.gpus_per_pod), ""});
    fail_run(*tp, text, text(0));
  }));
}

TrainingJobStatus TrainingController::Impl::snapshot(const Tracked& t) const {
  TrainingJobStatus s = t.status;
  double steps = t.status.steps_done, total_step = t.total_step_s, total_comm = t.total_comm_s;
  if (active(t)) {
    const Run& r = *t.run;
    double d = r.step_s > 0 ? (c.sim.now() - r.progress_at).to_seconds() / r.step_s : 0;
    d = std::max(0.0, std::min(d, static_cast<double>(t.spec.steps) - steps));
    steps += d;
    total_step += d * r.step_s;
    total_comm += d * r.comm_s;
    s.steps_done = steps;
    if (steps <= 0) {  // nothing run yet: the current figures
      steps = 1;
      total_step = r.step_s;
      total_comm = r.comm_s;
    }
  }
  if (steps > 0 && total_step > 0) {
    s.step_time_s = total_step / steps;
    s.comm_time_s = total_comm / steps;
    s.compute_time_s = t.spec.step_compute.to_seconds();
    s.comm_share = s.comm_time_s / s.step_time_s;
    s.steps_per_second = 1.0 / s.step_time_s;
    if (total_comm > 0) {
      s.algbw_gbytes_per_s = t.spec.gradient_bytes * steps / total_comm / 1e9;
      s.busbw_gbytes_per_s = s.algbw_gbytes_per_s * busbw_factor(Collective::AllReduce, std::max(1, s.ranks));
    }
  }
  return s;
}

TrainingController::TrainingController(Cluster& cluster, NetParams params)
    : impl_(std::make_unique<Impl>(cluster, std::move(params))) {}

TrainingController::~TrainingController() = default;

std::vector<TrainingJobStatus> TrainingController::statuses() const {
  std::vector<TrainingJobStatus> out;
  for (const auto& t : impl_->jobs) out.push_back(impl_->snapshot(t));
  return out;
}

std::optional<TrainingJobStatus> TrainingController::find(const std::string& ns, const std::string& name) const {
  for (const auto& t : impl_->jobs)
    if (t.status.ns == ns && t.status.name == name) return impl_->snapshot(t);
  return std::nullopt;
}

std::vector<TrainingController::NcclDebugInit> TrainingController::nccl_debug_inits(k8s::PodId pod) const {
  auto it = impl_->debug_inits.find(pod.v);
  return it == impl_->debug_inits.end() ? std::vector<NcclDebugInit>{} : it->second;
}

std::unique_ptr<TrainingController> make_training_controller(Cluster& cluster) {
  return std::make_unique<TrainingController>(cluster);
}

}  // namespace eksim::net
