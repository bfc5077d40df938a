// Issue 46, item 2: the engine's no-progress guard on a real run. A zero-delay loop between
// two components (injected here: a "controller" that re-emits an event and reschedules itself at
// once, as the ReplicaSet and kubelet did before their loop took simulated time) ends the run with
// a Violation that names the component, the reason and the objects, instead of hanging.
#include <gtest/gtest.h>

#include <string>

#include "models/invariants/invariant_checker.hpp"
#include "models/invariants/stall_report.hpp"
#include "sim/ops/runner.hpp"

namespace eksim::invariants {
namespace {

using engine::Duration;
using engine::SimTime;

ops::RunResult start(std::uint64_t stall_limit) {
  static const scenario::Scenario s =
      scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/examples/two-nodegroups.yaml");
  ops::RunOptions o;
  o.stall_limit = stall_limit;
  return ops::start_run(s, o);
}

// From 3 minutes on, something answers itself at zero delay forever. It outlives the run's
// pending events (declared after the run), which hold only `this`.
struct ZeroTimeLoop {
  Cluster& c;
  int n = 0;
  explicit ZeroTimeLoop(Cluster& cluster) : c(cluster) {
    c.sim.schedule(Duration::minutes(3), [this] { fire(); });
  }
  void fire() {
    ++n;
    c.api.emit(k8s::EventType::Warning, "UnexpectedAdmissionError", {"Pod", "default", "looper-" + std::to_string(n % 4)},
               "Allocate failed", "kubelet");
    c.sim.schedule(Duration{}, [this] { fire(); });
  }
};

TEST(StallReport, ZeroTimeLoopEndsTheRunWithWhatWasWritten) {
  ops::RunResult run = start(5000);
  ZeroTimeLoop loop(*run.cluster);
  try {
    ops::advance_run(run, SimTime{} + Duration::minutes(10));
    FAIL() << "the run should have stopped at the stall";
  } catch (const Violation& v) {
    const std::string what = v.what();
    EXPECT_EQ(v.at, SimTime{} + Duration::minutes(3));
    EXPECT_EQ(what.rfind("eksim: invariant violated at 00:03:00.000: 5001 events fired without simulated time advancing", 0), 0u)
        << what;
    EXPECT_NE(what.find("\n  kubelet UnexpectedAdmissionError on Pod x"), std::string::npos) << what;
    EXPECT_NE(what.find("(Pod/default/looper-1, Pod/default/looper-2, Pod/default/looper-3, ...)"), std::string::npos)
        << what;
  }
  EXPECT_EQ(run.cluster->sim.now(), SimTime{} + Duration::minutes(3));
}

TEST(StallReport, OrdinaryRunsNeverTripTheDefaultGuard) {
  ops::RunResult run = start(kDefaultStallLimit);
  EXPECT_NO_THROW(ops::advance_run(run, SimTime{} + Duration::hours(2)));
  EXPECT_EQ(run.cluster->sim.now(), SimTime{} + Duration::hours(2));
}

}  // namespace
}  // namespace eksim::invariants
