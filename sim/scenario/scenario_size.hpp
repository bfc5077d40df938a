#pragma once
// The pods a scenario asks for at once, held to kMaxPods (sim/scenario/input_limits.hpp).
#include <cstdint>

#include "sim/scenario/k8s_manifest.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::scenario {

// The pods one object keeps at once: a Deployment's replicas, a Job's parallelism (at most its
// completions), one for a Pod; none for other kinds (a DaemonSet's pods follow the nodes).
std::int64_t pods_at_once(const Manifest& m);

// Adds up the pods of `manifests:`, of every kubectl.apply and kubectl.scale in the timeline, and
// of one arrival of each workload generator; throws InputError at the object or action that takes
// the sum past kMaxPods.
void check_pods_at_once(const Scenario& s);

}  // namespace eksim::scenario
