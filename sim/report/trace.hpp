#pragma once
// `--trace FILE`: the run as Chrome trace JSON (opens in Perfetto and chrome://tracing).
//
// One process per node group or NodePool, a track per node with its lifecycle as slices
// (launching: instance launched -> node registered; registering: -> Ready; Ready: -> terminated)
// and a terminated instant; pods as slices on "NODE pods" tracks under their node (one lane per
// concurrently bound pod, since slices on one track must nest). A "control plane" process holds
// the autoscaler's decisions and every Warning event as instants, and Auto Scaling activities as
// slices. Timestamps are simulated microseconds.
#include <string>

#include "sim/ops/runner.hpp"

namespace eksim::report {

std::string chrome_trace(const ops::RunResult& run);

}  // namespace eksim::report
