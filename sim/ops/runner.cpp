#include "sim/ops/runner.hpp"

#include "models/invariants/invariant_checker.hpp"
#include "models/invariants/stall_report.hpp"
#include "sim/ops/actions.hpp"
#include "sim/ops/workload_arrivals.hpp"
#include "sim/scenario/nvidia_plugin_config_yaml.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>

namespace eksim::ops {

using namespace scenario;  // the typed input this layer acts on

RunResult start_run(const Scenario& scenario, const RunOptions& options) {
  RunResult result;
  result.scenario = &scenario;
  result.seed = options.seed.value_or(scenario.seed);
  result.cluster = std::make_unique<Cluster>(scenario.cluster, result.seed);
  Cluster& c = *result.cluster;
  c.addons->parse_plugin_config = parse_nvidia_plugin_config;

  // Phase history: every transition, plus the reason column of `kubectl get pods` when it changes
  // inside a phase (ContainerCreating, CrashLoopBackOff).
  // The last entry of each pod, by pod slot, so a change is compared with the pod's own previous
  // state without walking back through the history.
  // Without keep_all_occurrences (a long run), only the pods a pod expectation names are followed.
  auto history = result.pod_history.get();
  auto last = std::make_shared<std::vector<std::size_t>>();
  static constexpr std::size_t kNone = SIZE_MAX;
  std::shared_ptr<std::set<std::pair<std::string, std::string>>> followed;
  if (!options.keep_all_occurrences) {
    followed = std::make_shared<std::set<std::pair<std::string, std::string>>>();
    for (const auto& e : scenario.expectations)
      if (e.subject == "pod") followed->emplace(e.ns, e.name);
  }
  auto record = [history, last, followed, &c](k8s::PodId id) {
    const k8s::Pod& p = c.api.pod(id).pod;
    if (followed && (followed->empty() || !followed->count({p.meta.ns, p.meta.name}))) return;
    std::string phase = k8s::to_string(p.status.phase);
    if (last->size() <= id.v) last->resize(id.v + 1, kNone);
    std::size_t& prev = (*last)[id.v];
    if (prev != kNone) {
      const PodPhaseChange& h = (*history)[prev];
      if (h.phase == phase && h.reason == p.status.reason) return;
    }
    prev = history->size();
    history->push_back(PodPhaseChange{c.sim.now(), p.meta.ns, p.meta.name, phase, p.status.reason});
  };
  c.api.on_pod_added.push_back(record);
  c.api.on_pod_phase.push_back(record);
  c.api.on_pod_bound.push_back(record);
  // Its deletion ends the pod's history: a pod deleted at 1m is not Running at 9m.
  c.api.on_pod_deleted.push_back([history, last, &c](k8s::PodId id) {
    if (last->size() <= id.v || (*last)[id.v] == kNone) return;  // not followed
    const k8s::Pod& p = c.api.pod(id).pod;
    history->push_back(PodPhaseChange{c.sim.now(), p.meta.ns, p.meta.name, "", "", true});
    (*last)[id.v] = kNone;
  });

  if (!options.keep_all_occurrences) {
    auto reasons = std::make_shared<std::set<std::string, std::less<>>>();
    for (const auto& e : scenario.expectations) {
      if (!e.event_reason.empty()) reasons->insert(e.event_reason);
      // A training worker's log lines are ContainerLog events on its pod (sim/serve/container_logs.cpp).
      if (e.subject == "log") reasons->insert("ContainerLog");
    }
    c.log.keep_occurrences_if([reasons](std::string_view reason) { return reasons->contains(reason); });
  }
  c.log.spill_series(options.spill_events_in_batches_of);
  // Before start(): the instances and binds of t=0 are checked too.
  assemble_controllers(c, AssemblyOptions{.check_invariants = options.check_invariants});
  invariants::install_stall_guard(c, options.stall_limit);
  c.jobs->drop_finished_templates(options.drop_finished_job_templates);
  c.start();
  // The terraform module ignores node group keys it does not know (modelled on purpose under
  // nodeGroupKeys: terraform-module). The real apply is silent, so eksim says so as a hint, never
  // as an event.
  for (const auto& ng : scenario.cluster.node_groups) {
    for (const auto& key : ng.ignored_keys) {
      std::string fallback;
      if (key == "subnets" && ng.subnet_ids.empty()) {
        for (const auto& s : scenario.cluster.subnets) fallback += (fallback.empty() ? "" : ", ") + s.id + " (" + s.az + ")";
        fallback = "; subnet_ids is unset, so the node group uses the cluster's subnets: " + fallback;
      }
      c.hint("IgnoredNodeGroupKey", {"Nodegroup", "", ng.name},
             "terraform-aws-modules/eks silently ignores unknown key \"" + key + "\" in eks_managed_node_groups." +
                 ng.name + fallback);
    }
    for (const auto& why : ng.ignored_user_data) c.hint("IgnoredUserData", {"Nodegroup", "", ng.name}, why);
  }
  apply_manifests(c, scenario.manifests);
  for (const auto& action : scenario.timeline) {
    const Action* a = &action;
    c.sim.schedule_at(action.at, [&c, a] { apply_action(c, *a); });
  }
  engine::Duration length = options.until.value_or(scenario.duration);
  result.end = engine::SimTime{} + length;
  schedule_workloads(c, scenario.workloads, result.end);
  // Samplers run after everything else scheduled for the same instant was set up, and only read.
  if (options.sample && options.sample_interval.us > 0)
    c.sim.every(options.sample_interval, engine::Duration{}, [&c, fn = options.sample] { fn(c); });
  return result;
}

void advance_run(RunResult& run, engine::SimTime until) { run.cluster->sim.run_until(until); }

RunResult run_scenario(const Scenario& scenario, const RunOptions& options) {
  RunResult result = start_run(scenario, options);
  if (!options.progress) {
    advance_run(result, result.end);
  } else {
    // Running in slices fires exactly the same events in the same order as one run_until.
    std::int64_t length = result.end.us;
    std::int64_t slice = std::max<std::int64_t>(length / 256, 1000000);
    for (engine::SimTime t{}; t < result.end;) {
      t = engine::SimTime{std::min(result.end.us, t.us + slice)};
      advance_run(result, t);
      options.progress(t, result.end, result.cluster->sim.fired_count());
    }
  }
  if (auto* checker = result.cluster->controllers.invariants.get()) checker->sweep();
  return result;
}

}  // namespace eksim::ops
