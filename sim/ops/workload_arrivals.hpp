#pragma once
// The workload generators' arrivals (scenario key `workloads:`, read by
// sim/scenario/workloads.hpp) drawn from their RNG streams and applied to a running cluster.
#include <cstdint>
#include <string>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "sim/scenario/workloads.hpp"

namespace eksim::ops {

// One arrival as drawn for a run (exposed for tests).
struct Arrival {
  engine::SimTime at;
  std::string kind, name;
  std::int64_t gpus = 0;
  engine::Duration duration;
};
// The arrivals of generator g in [g.start, until or end), in time order.
// drawn_before: the arrivals earlier generators of the run made; all of them together stay
// within scenario::kMaxArrivals (an InputError at the generator that would pass it).
std::vector<Arrival> draw_arrivals(const scenario::WorkloadGenerator& g, Cluster& cluster, engine::SimTime end,
                                   std::size_t drawn_before = 0);

// Schedules every generator's arrivals on the cluster's simulator.
void schedule_workloads(Cluster& cluster, const std::vector<scenario::WorkloadGenerator>& generators, engine::SimTime end);

}  // namespace eksim::ops
