#pragma once
// Draining a node for scale-down (cluster-autoscaler/core/scaledown/actuation/drain.go).
#include <cstdint>

#include "models/k8s/api/objects.hpp"

namespace eksim::autoscaling::cas {

// utils/taints: the taint CA puts on a node it is deleting (value: Unix time it was added).
inline constexpr const char* kTaintToBeDeleted = "ToBeDeletedByClusterAutoscaler";
// DefaultPodEvictionHeadroom: CA waits max-graceful-termination-sec plus this for pods to go.
inline constexpr std::int64_t kPodEvictionHeadroomSeconds = 30;

// The grace period CA's eviction gives a pod (actuation/drain.go evictPod): the pod's
// terminationGracePeriodSeconds capped at --max-graceful-termination-sec; 0 is no cap (upstream's
// `maxTermination > 0 &&`), though CA then waits only the 30 s eviction headroom for the pods.
std::int64_t eviction_grace_seconds(const k8s::Pod& pod, std::int64_t max_graceful_termination_sec);

}  // namespace eksim::autoscaling::cas
