#pragma once
// A training Job as eksim reads it from its pod template's annotations (the job's shape, which a
// real cluster would learn only by running the script):
//
//   eksim.io/training: allreduce          marks the Job as a training gang (the only collective)
//   eksim.io/gradient-bytes: 100Mi        bytes all-reduced per step (Kubernetes quantity)
//   eksim.io/step-compute: 200ms          forward + backward time per step (Go duration)
//   eksim.io/steps: "1000"                steps to run; the containers exit 0 after the last
//   eksim.io/watchdog-timeout: 10m        ProcessGroupNCCL timeout (default: az_latency.json, 10 min)
//
// and from its first container: GPUs (ranks) per pod from the nvidia.com/gpu limit (1 when
// absent), EFA when it asks for vpc.amazonaws.com/efa. training_controller.hpp runs such Jobs.
#include <cstdint>
#include <optional>
#include <string>

#include "models/k8s/api/workloads.hpp"
#include "models/net/collectives.hpp"
#include "sim/engine/time.hpp"

namespace eksim::net {

inline constexpr const char* kAnnotationTraining = "eksim.io/training";
inline constexpr const char* kAnnotationGradientBytes = "eksim.io/gradient-bytes";
inline constexpr const char* kAnnotationStepCompute = "eksim.io/step-compute";
inline constexpr const char* kAnnotationSteps = "eksim.io/steps";
inline constexpr const char* kAnnotationWatchdogTimeout = "eksim.io/watchdog-timeout";

struct TrainingSpec {
  Collective collective = Collective::AllReduce;
  double gradient_bytes = 0;
  engine::Duration step_compute{};
  std::int64_t steps = 0;
  std::optional<engine::Duration> watchdog_timeout;  // nullopt: NetParams::watchdog_timeout_ms
  int gpus_per_pod = 1;
  bool efa = false;
};

// Reads the annotations and limits above; nullopt when the template is not a training job. An annotation
// that does not parse is returned in *error (the Job is then left alone, with a Warning).
std::optional<TrainingSpec> training_spec(const k8s::PodTemplate& tmpl, std::string* error);

}  // namespace eksim::net
