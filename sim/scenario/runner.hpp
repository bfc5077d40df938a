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
#include "sim/scenario/scenario.hpp"

namespace eksim::scenario {

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
  // Called between slices of the run (every 1/256 of its length, simulated) with the simulated
  // time reached and the events fired so far; must only read. `eksim run`'s progress line.
  std::function<void(engine::SimTime reached, engine::SimTime end, std::uint64_t events)> progress;
};

// When a pod entered a phase (or a reason such as CrashLoopBackOff), for `by`/`at` checks.
struct PodPhaseChange {
  engine::SimTime time;
  std::string ns, name;
  std::string phase;
  std::string reason;
};

struct RunResult {
  const Scenario* scenario = nullptr;
  std::uint64_t seed = 1;
  engine::SimTime end;
  std::unique_ptr<Cluster> cluster;
  // Every pod's, or with keep_all_occurrences off only those of the pods an expectation names.
  std::vector<PodPhaseChange> pod_history;
};

RunResult run_scenario(const Scenario& scenario, const RunOptions& options = {});

}  // namespace eksim::scenario
