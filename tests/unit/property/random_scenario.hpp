#pragma once
// Random scenarios for the invariant property test (issue 17, item 4): a seed gives one scenario
// file's text (cluster, node groups, autoscaler, workloads, timeline), which the test loads
// through the real loader and runs with the invariants checked. Written as a scenario file so
// that a failing seed replays with `eksim run FILE --check-invariants`.
#include <cstdint>
#include <string>

namespace eksim::property {

std::string random_scenario(std::uint64_t seed);

}  // namespace eksim::property
