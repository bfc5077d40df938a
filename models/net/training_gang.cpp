// Training Job gang formation: every index's worker started, each resolving the rendezvous host
// through CoreDNS (c10d's retries and deadline, rendezvous.hpp) and reaching the c10d store on
// the host's node through the security groups; then the NCCL init (training_nccl_init.cpp).
#include "models/net/training_controller_impl.hpp"

#include <algorithm>

#include "models/cluster/dns_access.hpp"
#include "models/k8s/api/pod_factory.hpp"
#include "models/net/links.hpp"
#include "models/net/rendezvous.hpp"

namespace eksim::net {

using engine::Duration;
using k8s::EventType;
using engine::SimTime;
using namespace training_detail;

void TrainingController::Impl::on_started(k8s::PodId id) {
  Tracked* t = tracked_of_pod(id);
  if (!t || !resolves_rendezvous(*t, id)) return;
  if (t->run && !t->run->over) return;
  try_form_gang(*t);
}

bool TrainingController::Impl::resolves_rendezvous(Tracked& t, k8s::PodId id) {
  const k8s::PodRecord& rec = c.api.pod(id);
  if (rec.pod.spec.containers.empty() || !rec.node.valid()) return true;
  auto endpoint = rendezvous_endpoint(rec.pod.spec.containers.front());
  if (!endpoint || !needs_dns(endpoint->host)) return true;
  const std::string why = coredns_unreachable_reason(c, rec.node);
  if (why.empty()) return true;
  if (dns_hinted.insert(t.job).second)
    c.hint("CorednsUnreachable", k8s::ApiServer::ref(rec.pod),
           "cannot resolve rendezvous host " + endpoint->host + ": " + why);
  const ResolutionFailure failure = resolution_failure(*endpoint);
  Resolving& res = resolving[id.v];
  const SimTime started = c.sim.now();
  Tracked* tp = &t;
  for (std::size_t i = 0; i < failure.attempts.size(); ++i) {
    const ResolutionAttempt a = failure.attempts[i];
    const bool last = i + 1 == failure.attempts.size();
    res.timers.push_back(c.sim.schedule_at(started + a.fails_at, [this, tp, id, a, last] {
      emit_log(id, a.text);
      if (last || !coredns_reachable(c, c.api.pod(id).node)) return;
      cancel_resolving(id);  // the next getaddrinfo, after the back-off, gets an answer
      resolving[id.v].timers.push_back(c.sim.schedule(kStoreConnectBackoff, [this, tp, id] {
        cancel_resolving(id);
        if (!k8s::pod_active(c.api.pod(id)) || (tp->run && !tp->run->over)) return;
        try_form_gang(*tp);
      }));
    }));
  }
  res.timers.push_back(c.sim.schedule_at(started + failure.fails_at, [this, tp, id, failure] {
    fail_worker(*tp, id, failure.final_lines);
  }));
  return false;
}

void TrainingController::Impl::fail_worker(Tracked& t, k8s::PodId id, const std::vector<std::string>& lines) {
  cancel_resolving(id);
  for (const std::string& line : lines) emit_log(id, line);
  t.status.failure_text = lines.back();
  t.status.failed_at = c.sim.now();
  k8s::PodRecord& r = c.api.pod(id);
  if (!k8s::pod_active(r)) return;
  r.pod.status.message = lines.back();
  r.pod.status.finished_at = c.sim.now();
  ending.insert(id.v);
  c.api.set_pod_phase(id, k8s::PodPhase::Failed, "Error");
  ending.erase(id.v);
}

bool TrainingController::Impl::store_reachable(Tracked& t, const std::vector<k8s::PodId>& pods) {
  const k8s::PodRecord& first = c.api.pod(pods.front());
  if (first.pod.spec.containers.empty()) return true;
  auto endpoint = rendezvous_endpoint(first.pod.spec.containers.front());
  if (!endpoint) return true;
  std::size_t host = static_cast<std::size_t>(store_host_index(endpoint->host, c.api.jobs()[t.job].meta.name));
  if (host >= pods.size()) host = 0;
  const k8s::NodeId host_node = c.api.pod(pods[host]).node;
  std::string ip;
  const aws::Eni to = eni_of(host_node, &ip);
  bool all = true;
  for (k8s::PodId id : pods) {
    const k8s::PodRecord& r = c.api.pod(id);
    if (r.node == host_node) continue;
    const aws::Eni from = eni_of(r.node, &ip);
    if (from.groups.empty() || to.groups.empty() || c.security_groups.reachable(from, to, "tcp", endpoint->port))
      continue;
    all = false;
    const SimTime deadline = r.pod.status.started_at.value_or(c.sim.now()) + endpoint->store_timeout;
    Tracked* tp = &t;
    const std::vector<std::string> lines = store_timeout_lines(*endpoint);
    resolving[id.v].timers.push_back(c.sim.schedule_at(std::max(deadline, c.sim.now()), [this, tp, id, lines] {
      fail_worker(*tp, id, lines);
    }));
  }
  return all;
}

void TrainingController::Impl::cancel_resolving(k8s::PodId id) {
  auto it = resolving.find(id.v);
  if (it == resolving.end()) return;
  for (auto timer : it->second.timers) c.sim.cancel(timer);
  resolving.erase(it);
}

void TrainingController::Impl::emit_log(k8s::PodId id, const std::string& text) {
  const k8s::PodRecord& rec = c.api.pod(id);
  if (rec.deleted) return;
  c.api.emit(EventType::Warning, "ContainerLog", k8s::ApiServer::ref(rec.pod), text, kSource);
}

void TrainingController::Impl::try_form_gang(Tracked& t) {
  const k8s::Job& job = c.api.jobs()[t.job];
  if (!job.condition.empty()) return;
  const bool indexed = job.completion_mode == "Indexed";
  const int n = indexed ? job.completions : job.parallelism;
  if (n <= 0) return;
  std::vector<k8s::PodId> by_index(static_cast<std::size_t>(n));
  int seq = 0;
  for (k8s::PodId p : c.jobs->pods(t.job)) {
    const k8s::PodRecord& r = c.api.pod(p);
    if (!k8s::pod_active(r) || in_runs.count(p.v) || resolving.count(p.v) || !r.node.valid()) continue;
    if (r.pod.status.phase != k8s::PodPhase::Running || r.pod.status.reason == "CrashLoopBackOff") continue;
    int index = seq++;
    if (indexed) {
      auto a = r.pod.meta.annotations.find(k8s::kAnnotationCompletionIndex);
      if (a == r.pod.meta.annotations.end()) continue;
      index = std::atoi(a->second.c_str());
    }
    if (index < 0 || index >= n) continue;
    by_index[static_cast<std::size_t>(index)] = p;  // the newest pod of an index wins
  }
  for (k8s::PodId p : by_index)
    if (!p.valid()) return;  // torchrun's rendezvous waits for every rank
  if (!store_reachable(t, by_index)) return;
  start_run(t, std::move(by_index));
}

aws::Eni TrainingController::Impl::eni_of(k8s::NodeId node, std::string* ip) const {
  aws::Eni eni;
  const std::string& instance_id = c.api.node(node).instance_id;
  for (const auto& inst : c.ec2.instances()) {
    if (inst.id != instance_id) continue;
    *ip = inst.private_ip;
    eni.ip = engine::parse_ipv4(inst.private_ip).value_or(0);
    eni.groups = inst.security_groups;
    return eni;
  }
  *ip = "";
  return eni;
}

}  // namespace eksim::net
