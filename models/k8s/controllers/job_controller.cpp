#include "models/k8s/controllers/job_controller.hpp"

#include <algorithm>

#include "models/k8s/controllers/garbage_collector.hpp"
#include "models/k8s/kubelet/kubelet.hpp"
#include "models/k8s/api/pod_factory.hpp"

namespace eksim::k8s {

namespace {
using engine::Duration;
using k8s::EventType;
constexpr const char* kJobController = "job-controller";
}  // namespace

JobController::JobController(ApiServer& api, Kubelet* kubelet) : api_(api), kubelet_(kubelet) {
  api_.on_pod_phase.push_back([this](PodId id) {
    auto phase = api_.pod(id).pod.status.phase;
    if (phase == PodPhase::Succeeded || phase == PodPhase::Failed) pod_finished(id);
  });
  api_.on_pod_deleted.push_back([this](PodId id) { pod_finished(id); });
  // podReplacementPolicy defaults to TerminatingOrFailed (GA in 1.34) when the Job has no
  // podFailurePolicy: a terminating pod no longer counts as active and is replaced at once; it
  // counts as failed only once it is gone.
  api_.on_pod_terminating.push_back([this](PodId id) {
    if (auto idx = owner_of(id)) enqueue(*idx);
  });
  if (kubelet_)
    kubelet_->on_container_started.push_back([this](PodId id) {
      if (api_.pod(id).pod.status.restart_count > 0)
        if (auto idx = owner_of(id)) enqueue(*idx);
    });
}

std::optional<std::size_t> JobController::owner_of(PodId id) const {
  const Pod& p = api_.pod(id).pod;
  for (const auto& o : p.meta.owner_references) {
    if (o.kind != "Job") continue;
    if (auto it = by_name_.find(p.meta.ns + "/" + o.name); it != by_name_.end()) return it->second;
  }
  return std::nullopt;
}

void JobController::pod_finished(PodId id) {
  auto idx = owner_of(id);
  if (!idx) return;
  State& st = state_[*idx];
  if (st.counted.count(id.v)) return;
  const PodRecord& r = api_.pod(id);
  Job& job = api_.jobs()[*idx];
  st.counted.insert(id.v);
  if (r.pod.status.phase == PodPhase::Succeeded) {
    ++job.succeeded;
    if (auto it = st.index_of.find(id.v); it != st.index_of.end()) st.done_indexes.insert(it->second);
  } else if (job.condition.empty()) {
    // Failed, or deleted before it finished (node gone, evicted): a failure for the Job.
    ++job.failed;
    ++st.pod_failures;
    st.last_failure = api_.now();
  }
  enqueue(*idx);
}

std::size_t JobController::apply(Job job) {
  if (job.meta.ns.empty()) job.meta.ns = "default";
  if (job.meta.uid.empty()) job.meta.uid = api_.new_uid();
  job.meta.creation_timestamp = api_.now();
  api_.jobs().push_back(std::move(job));
  std::size_t idx = api_.jobs().size() - 1;
  // A later Job of the same name (applied after the first was deleted) owns the new pods; the
  // scan this replaces returned the first match, which is the same Job while names are unique.
  by_name_.try_emplace(api_.jobs()[idx].meta.ns + "/" + api_.jobs()[idx].meta.name, idx);
  state_.resize(idx + 1);
  reconcile(idx);
  return idx;
}

bool JobController::remove(const std::string& ns, const std::string& name) {
  auto it = by_name_.find(ns + "/" + name);
  if (it == by_name_.end() || api_.jobs()[it->second].deleted) return false;
  const std::size_t index = it->second;
  // A Job applied later under the same name is a new object owning new pods.
  by_name_.erase(it);
  api_.jobs()[index].deleted = true;
  State& st = state_[index];
  api_.sim().cancel(st.timer);
  delete_dependents(api_, kubelet_, st.pods);
  return true;
}

std::vector<PodId> JobController::pods(std::size_t index) const {
  return index < state_.size() ? state_[index].pods : std::vector<PodId>{};
}

void JobController::enqueue(std::size_t index, Duration delay) {
  State& st = state_[index];
  if (api_.sim().is_pending(st.timer)) {
    if (api_.sim().time_of(st.timer) <= api_.now() + delay) return;
    api_.sim().cancel(st.timer);
  }
  st.timer = api_.sim().schedule(delay, [this, index] { reconcile(index); });
}

void JobController::finished(Job& job) {
  if (drop_finished_templates_) job.tmpl.reset();
}

void JobController::reconcile(std::size_t index) {
  Job& job = api_.jobs()[index];
  State& st = state_[index];
  if (job.deleted || !job.condition.empty()) return;
  k8s::ObjectRef ref{"Job", job.meta.ns, job.meta.name};
  std::vector<PodId> active;
  std::int32_t restarts = 0;
  for (PodId p : st.pods) {
    const PodRecord& r = api_.pod(p);
    if (pod_active(r)) active.push_back(p);
    if (job.tmpl->spec.restart_policy == "OnFailure") restarts += r.pod.status.restart_count;
  }
  job.active = static_cast<std::int32_t>(active.size());
  std::int32_t failures = st.pod_failures + restarts;
  if (failures > job.backoff_limit) {
    job.condition = "Failed";
    job.condition_reason = "BackoffLimitExceeded";
    api_.emit(EventType::Warning, "BackoffLimitExceeded", ref, "Job has reached the specified backoff limit", kJobController);
    for (PodId p : active) {
      api_.emit(EventType::Normal, "SuccessfulDelete", ref, "Deleted pod: " + api_.pod(p).pod.meta.name, kJobController);
      if (kubelet_) kubelet_->delete_pod(p);
      else api_.remove_pod(p);
    }
    job.active = 0;
    finished(job);
    return;
  }
  bool indexed = job.completion_mode == "Indexed";
  std::int32_t done = indexed ? static_cast<std::int32_t>(st.done_indexes.size()) : job.succeeded;
  if (done >= job.completions) {
    job.condition = "Complete";
    job.completed_at = api_.now();
    api_.emit(EventType::Normal, "Completed", ref, "Job completed", kJobController);
    finished(job);
    return;
  }
  // Pod failure back-off before creating replacements: 10 s * 2^(failures-1), at most 6 min.
  if (st.pod_failures > 0) {
    Duration delay = Duration::seconds(10);
    for (int i = 1; i < st.pod_failures && delay < Duration::minutes(6); ++i) delay = delay * 2;
    if (delay > Duration::minutes(6)) delay = Duration::minutes(6);
    engine::SimTime ready = st.last_failure + delay;
    if (api_.now() < ready) {
      enqueue(index, ready - api_.now());
      return;
    }
  }
  std::int32_t want = std::min(job.parallelism, job.completions - done) - job.active;
  std::set<std::int32_t> busy = st.done_indexes;
  for (PodId p : active)
    if (auto it = st.index_of.find(p.v); it != st.index_of.end()) busy.insert(it->second);
  std::int32_t next_index = 0;
  for (std::int32_t i = 0; i < want; ++i) {
    std::int32_t completion_index = -1;
    std::string prefix = job.meta.name + "-";
    if (indexed) {
      while (busy.count(next_index)) ++next_index;
      if (next_index >= job.completions) break;
      completion_index = next_index++;
      prefix += std::to_string(completion_index) + "-";
    }
    Pod p = pod_from_template(api_, *job.tmpl, job.meta.ns, prefix, {"Job", job.meta.name, true});
    p.meta.labels[kLabelJobName] = job.meta.name;
    p.meta.labels["job-name"] = job.meta.name;
    p.meta.labels["controller-uid"] = job.meta.uid;
    if (indexed) {
      p.meta.annotations[kAnnotationCompletionIndex] = std::to_string(completion_index);
      p.meta.labels[kAnnotationCompletionIndex] = std::to_string(completion_index);
    }
    std::string name = p.meta.name;
    PodId id = api_.create_pod(std::move(p));
    st.pods.push_back(id);
    if (indexed) st.index_of[id.v] = completion_index;
    ++job.active;
    api_.emit(EventType::Normal, "SuccessfulCreate", ref, "Created pod: " + name, kJobController);
  }
}

}  // namespace eksim::k8s
