#include "sim/serve/session.hpp"

#include <algorithm>

#include "models/autoscaling/cluster_autoscaler.hpp"
#include "models/autoscaling/karpenter/controller.hpp"
#include "sim/scenario/input_limits.hpp"
#include "sim/serve/api_handler.hpp"

namespace eksim::serve {

Session::Session(std::unique_ptr<scenario::Scenario> scenario, std::optional<std::uint64_t> seed, ClockSpeed s)
    : speed(s), scenario_(std::move(scenario)) {
  ops::RunOptions options;
  options.seed = seed;
  run_ = ops::start_run(*scenario_, options);
  // Karpenter's controller log has a reader here (kubectl logs); a batch run keeps none.
  if (autoscaling::karpenter::Controller* k = run_.cluster->controllers.karpenter.get())
    k->controller_log().enable();
  // So is Cluster Autoscaler's status ConfigMap (kubectl get/describe configmap).
  if (autoscaling::ClusterAutoscaler* ca = run_.cluster->controllers.cluster_autoscaler.get())
    ca->enable_status_config_map();
  sim0_unix_us_ = run_.cluster->start_epoch_seconds() * 1000000;
  // t=0 itself: the manifests applied, the nodes that exist when the lab starts.
  advance_to(engine::SimTime{});
}

void Session::run_until(engine::SimTime t) {
  while (next_replayed_ < replayed_.size() && engine::SimTime{} + replayed_[next_replayed_].at <= t) {
    const scenario::RecordedRequest& r = replayed_[next_replayed_++];
    ops::advance_run(run_, engine::SimTime{} + r.at);
    sync();
    apply_recorded(*this, r);
  }
  ops::advance_run(run_, t);
}

void Session::sync() { store_.sync(*run_.cluster, TimeBase{sim0_unix_us_}); }

void Session::advance_to(engine::SimTime t) {
  Cluster& c = *run_.cluster;
  if (!open_watches || open_watches() == 0) {
    run_until(t);
    sync();
    if (advanced) advanced();
    return;
  }
  constexpr std::int64_t kSlice = 1000000;
  bool first = true;
  while (first || c.sim.now() < t) {
    engine::SimTime next{std::min(t.us, (c.sim.now().us / kSlice + 1) * kSlice)};
    if (first) next = std::min(next, t);
    first = false;
    std::uint64_t fired = c.sim.fired_count();
    run_until(next);
    // Node heartbeats and lease renewals are rendered from the clock itself, so they only need a
    // sync now and then; anything that fired may have changed an object.
    if (c.sim.fired_count() != fired || next.us % (10 * kSlice) == 0) sync();
  }
  if (advanced) advanced();
}

bool Session::advance_until(const UntilCondition& cond, engine::Duration limit) {
  // One simulated second at a time, so that "until Running" stops within a second of it.
  engine::SimTime end = now() + limit;
  while (!condition_met(cond, store_, store_now_us())) {
    if (now() >= end) return false;
    engine::SimTime next{std::min(end.us, now().us + 1000000)};
    std::uint64_t fired = run_.cluster->sim.fired_count();
    run_until(next);
    if (run_.cluster->sim.fired_count() != fired || next.us % 10'000'000 == 0) sync();
    if (advanced) advanced();
  }
  return true;
}

void Session::go_to(engine::SimTime t) {
  if (t < now()) {
    ops::RunOptions options;
    options.seed = run_.seed;
    run_ = ops::start_run(*scenario_, options);
    next_replayed_ = 0;
  }
  advance_to(t);
}

void Session::apply_now(const std::function<void(Cluster&)>& change) {
  Cluster& c = *run_.cluster;
  c.sim.schedule_at(c.sim.now(), [&c, change] { change(c); });
  ops::advance_run(run_, c.sim.now());
  sync();
}

engine::SimTime Session::watch_ends_at(std::optional<std::int64_t> timeout_seconds) {
  constexpr double kMinRequestTimeoutSeconds = 1800;  // kube-apiserver --min-request-timeout default
  double seconds = timeout_seconds ? static_cast<double>(*timeout_seconds)
                                   : kMinRequestTimeoutSeconds * (run_.cluster->rng.get("serve/watch-timeout").uniform() + 1.0);
  seconds = std::min(seconds, static_cast<double>(scenario::kMaxSimulatedTime.us) / 1e6);
  return now() + engine::Duration{static_cast<std::int64_t>(seconds * 1e6)};
}

std::int64_t Session::wall_delta_us() const {
  auto wall = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch());
  return wall.count() - store_now_us();
}

}  // namespace eksim::serve
