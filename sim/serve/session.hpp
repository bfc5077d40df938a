#pragma once
// One served simulation: the scenario's run (started, advanced in slices), the API objects the
// server answers from, and the clock. Everything runs on the server's one thread: requests read
// the store between slices, and changes the user makes are scheduled into the simulation at the
// current instant, exactly like timeline actions, then the clock runs up to that instant.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include "sim/scenario/run_record.hpp"
#include "sim/ops/runner.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/serve/clock.hpp"
#include "sim/serve/object_store.hpp"

namespace eksim::serve {

class Session {
 public:
  Session(std::unique_ptr<scenario::Scenario> scenario, std::optional<std::uint64_t> seed, ClockSpeed speed);

  Cluster& cluster() { return *run_.cluster; }
  const scenario::Scenario& scenario() const { return *scenario_; }
  ObjectStore& store() { return store_; }
  engine::SimTime now() const { return run_.cluster->sim.now(); }
  std::uint64_t seed() const { return run_.seed; }

  // Fires every event up to t. While someone watches, in slices of one simulated second with the
  // store synced after each slice in which something happened (watchers see Pending ->
  // ContainerCreating -> Running); otherwise in one go (a simulated day of a lab in well under a
  // second).
  void advance_to(engine::SimTime t);
  // Advances until the condition holds or `limit` of simulated time passed; true if it holds.
  bool advance_until(const UntilCondition& c, engine::Duration limit);
  // Goes to simulated time t: forward by advancing; back (a replay only) by re-simulating the
  // deterministic run from its start, so the store shows the cluster as it was at t (watchers see
  // the difference as changes, resourceVersions keep growing).
  void go_to(engine::SimTime t);
  // Serves a recorded run: read-only, may go back in time; `until` is where the recording ended,
  // and its requests are sent again at their simulated instants whenever time passes them.
  void replay_of(engine::Duration until, std::vector<scenario::RecordedRequest> requests = {}) {
    replay_ = true;
    recorded_until_ = until;
    replayed_ = std::move(requests);
    next_replayed_ = 0;
    run_until(now());  // requests made at 0s
    sync();
  }
  // A live run records every change users make (`eksim serve --record`); `recorded` is called
  // after each, to write the record.
  void record_requests(std::function<void(const std::vector<scenario::RecordedRequest>&)> recorded) {
    on_recorded_ = std::move(recorded);
  }
  bool recording() const { return static_cast<bool>(on_recorded_); }
  void record(scenario::RecordedRequest request) {
    recorded_.push_back(std::move(request));
    on_recorded_(recorded_);
  }
  bool replay() const { return replay_; }
  engine::Duration recorded_until() const { return recorded_until_; }
  // Runs `change` inside the simulation at the current instant (as a timeline action would) and
  // brings the store up to date.
  void apply_now(const std::function<void(Cluster&)>& change);

  // The store's clock (the scenario's start time as simulated time 0), in unix microseconds.
  std::int64_t store_now_us() const { return sim0_unix_us_ + now().us; }
  // What to add to store timestamps so that simulated now reads as the wall clock's now.
  std::int64_t wall_delta_us() const;
  std::int64_t wall_sim0_unix_us() const { return sim0_unix_us_ + wall_delta_us(); }

  ClockSpeed speed;
  // How many watches are open: only while someone watches do the intermediate states of an
  // advance need rendering. `eksim ctl status` shows the count.
  std::function<std::size_t()> open_watches;
  // Called after every advance of simulated time, so watches can end when their simulated
  // timeout passes.
  std::function<void()> advanced;
  // When a watch opened now ends, in simulated time, as kube-apiserver decides it: after the
  // request's timeoutSeconds, else after a random time between --min-request-timeout (1800 s)
  // and twice that (handlers/get.go: minRequestTimeout * (rand.Float64() + 1.0)), drawn from the
  // run's "serve/watch-timeout" stream so a replay ends its watches at the same instants.
  engine::SimTime watch_ends_at(std::optional<std::int64_t> timeout_seconds);

 private:
  void sync();
  // ops::advance_run to t, sending the replayed requests due on the way at their instants.
  void run_until(engine::SimTime t);

  std::unique_ptr<scenario::Scenario> scenario_;
  ops::RunResult run_;
  ObjectStore store_;
  std::int64_t sim0_unix_us_ = 0;
  bool replay_ = false;
  engine::Duration recorded_until_;
  std::vector<scenario::RecordedRequest> replayed_;
  std::size_t next_replayed_ = 0;
  std::vector<scenario::RecordedRequest> recorded_;
  std::function<void(const std::vector<scenario::RecordedRequest>&)> on_recorded_;
};

}  // namespace eksim::serve
