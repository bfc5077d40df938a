#pragma once
// Runs a loaded scenario: builds the Cluster, applies the manifests at t=0, plays the timeline,
// and keeps the histories expectations are checked against.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/invariants/stall_report.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::ops {

// The Event batch `eksim run` and `eksim sweep` spill by: a few tens of MB of Events in memory.
inline constexpr std::size_t kLongRunEventBatch = 32768;

struct RunOptions {
  std::optional<std::uint64_t> seed;       // overrides the scenario's
  std::optional<engine::Duration> until;   // overrides the scenario's duration
  // Called every sample_interval of simulated time from t=0 (metrics time series); must only read.
  std::function<void(const Cluster&)> sample;
  engine::Duration sample_interval = engine::Duration::minutes(1);
  // Keep every event occurrence in the log (tests read them); off, only the occurrences an
  // expectation of the scenario counts are kept, so a long run's memory follows the Event
  // objects, not every repeat.
  bool keep_all_occurrences = true;
  // Keep about twice this many Event objects in memory and move older ones to a temporary file as
  // the run goes (EventLog::spill_series); 0 keeps them all in memory (tests, `eksim serve`).
  std::size_t spill_events_in_batches_of = 0;
  // Drop a finished Job's pod template (JobController::drop_finished_templates): nothing reads it
  // but `kubectl describe job` under `eksim serve`.
  bool drop_finished_job_templates = false;
  // Called between slices of the run (every 1/256 of its length, simulated) with the simulated
  // time reached and the events fired so far; must only read. `eksim run`'s progress line.
  std::function<void(engine::SimTime reached, engine::SimTime end, std::uint64_t events)> progress;
  // Check the invariants after every event and at the end (models/invariants/): a violation
  // throws invariants::Violation out of run_scenario (`eksim run --check-invariants`).
  bool check_invariants = false;
  // The no-progress guard (models/invariants/stall_report.hpp): more events than this at one
  // simulated instant end the run with invariants::Violation naming what was firing, instead of
  // hanging. 0 turns it off.
  std::uint64_t stall_limit = invariants::kDefaultStallLimit;
};

// When a pod entered a phase (or a reason such as CrashLoopBackOff), for `by`/`at` checks.
struct PodPhaseChange {
  engine::SimTime time;
  std::string ns, name;
  std::string phase;
  std::string reason;
  bool deleted = false;  // the pod object went from the API server (no phase from here on)
};

struct RunResult {
  const scenario::Scenario* scenario = nullptr;
  std::uint64_t seed = 1;
  engine::SimTime end;
  std::unique_ptr<Cluster> cluster;
  // Every pod's, or with keep_all_occurrences off only those of the pods an expectation names.
  // On the heap so that the recorder installed by start_run stays valid when the result moves.
  std::unique_ptr<std::vector<PodPhaseChange>> pod_history = std::make_unique<std::vector<PodPhaseChange>>();
};

// The run in two pieces, so that `eksim serve` can advance the clock in slices between requests:
// start_run builds the Cluster and schedules the scenario (manifests at t=0, timeline, workloads,
// samplers) without firing anything; advance_run fires every event up to `until`. run_scenario is
// start_run then advance_run to the end, so both paths fire the same events in the same order.
RunResult start_run(const scenario::Scenario& scenario, const RunOptions& options = {});
void advance_run(RunResult& run, engine::SimTime until);

RunResult run_scenario(const scenario::Scenario& scenario, const RunOptions& options = {});

}  // namespace eksim::ops
