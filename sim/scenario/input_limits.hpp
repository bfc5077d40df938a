#pragma once
// The bounds eksim puts on input so that no file or flag can make it hang or exhaust memory.
// Each is named in the README's "Input limits" section; change both together.
#include <cstddef>
#include <cstdint>

#include "sim/engine/time.hpp"

namespace eksim::scenario {

// Simulated time of one run (scenario `duration`, `--until`): one year. Far beyond any capacity
// plan, and far from the int64 microsecond clock's end, so no time arithmetic can overflow.
inline constexpr engine::Duration kMaxSimulatedTime = engine::Duration::hours(24 * 365);

// A control loop's interval (Cluster Autoscaler scan-interval): at least one second. A zero
// interval would fire forever at one instant; a microsecond one billions of times an hour.
inline constexpr engine::Duration kMinLoopPeriod = engine::Duration::seconds(1);

// `--metrics-interval`: at least one second of simulated time between samples, and at most a
// million samples in one run (a year at the default minute is 525,601; a year at 1s would be 31.5
// million rows held until the run ends).
inline constexpr engine::Duration kMinMetricsInterval = engine::Duration::seconds(1);
inline constexpr std::int64_t kMaxMetricsSamples = 1000000;

// The workload generators of one run make at most this many arrivals, all generators together
// (more is a rate typo, and would hold gigabytes of pending objects: they are drawn up front).
inline constexpr std::size_t kMaxArrivals = 1000000;

// YAML aliases may expand a document by at most this many nodes ("billion laughs").
inline constexpr std::uint64_t kMaxAliasExpandedNodes = 100000;

// Mappings and sequences nest at most this deep, counting through aliases. yaml-cpp 0.7 itself
// stops near 500 literal levels (with the message "bad file"); below that, so that one limit
// with one message holds whichever check meets it first.
inline constexpr int kMaxNestingDepth = 400;

// A sweep plan's runs (points x seeds), and the `of` a sweep result line may claim: a million.
// Thousands of seeded runs is the planning use; a billion is a typo that would only allocate.
inline constexpr std::uint64_t kMaxSweepRuns = 1000000;

// Nodes: each node group's sizes, and the nodes a cluster starts with, at most 5,000: Kubernetes'
// scalability threshold for one cluster (kubernetes.io, "Considerations for large clusters").
inline constexpr std::int64_t kMaxNodes = 5000;

// Pods a scenario asks for at once (Deployment replicas, Job parallelism, Pods, kubectl.scale,
// one arrival of a workload generator), added up: at most 150,000, the same threshold's pods per
// cluster. 2147483647 replicas is valid Kubernetes, and would only allocate.
inline constexpr std::int64_t kMaxPods = 150000;

// A node's root volume (a node group's disk_size): an EBS gp2/gp3 volume, 1 GiB to 16 TiB
// (docs.aws.amazon.com/ebs/latest/userguide/ebs-volume-types.html), so its size in bytes, the
// kubelet's ephemeral-storage capacity, cannot overflow.
inline constexpr std::int64_t kMaxRootVolumeGiB = 16384;

}  // namespace eksim::scenario
