#pragma once
// The engine's no-progress guard (Simulator::set_stall_guard) at the cluster's level: a run
// whose events keep scheduling each other at one instant never lets simulated time advance. That
// is a model bug (an eksim controller reacting at zero delay to another's zero-delay reaction),
// never something a real cluster does, so it ends the run as an invariant violation that says
// which components were writing about which objects at that instant, instead of hanging.
#include <cstdint>
#include <string>

#include "models/cluster/cluster.hpp"

namespace eksim::invariants {

// Events fired at one instant before the guard calls it a stall. The largest legal burst among
// the shipped scenarios and the 100,000-pod checks (bench/scale) is far below it; a zero-time
// loop passes it in seconds.
inline constexpr std::uint64_t kDefaultStallLimit = 20'000'000;

// What the recorders wrote at the current instant, by component and reason with a count and the
// first objects, busiest first: "replicaset-controller SuccessfulCreate x40000 (ReplicaSet/...)".
std::string stall_report(const Cluster& cluster, std::uint64_t events_at_instant);

// Installs the guard on the cluster's simulator: past `max_events` events at one instant the
// run throws Violation with stall_report. 0 leaves the guard off.
void install_stall_guard(Cluster& cluster, std::uint64_t max_events);

}  // namespace eksim::invariants
