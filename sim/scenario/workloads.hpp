#pragma once
// Workload generators for capacity planning (scenario key `workloads:`): training Jobs and
// inference Deployments that arrive over time instead of a fixed manifest list.
//
//   workloads:
//     training:                       # generator name: names the objects training-0001, ...
//       arrival: poisson              # poisson | diurnal | trace
//       kind: Job                     # Job | Deployment (poisson, diurnal)
//       ratePerHour: 6                # poisson; diurnal's mean rate
//       peakHour: 14                  # diurnal: rate(h) = mean * (1 + amplitude * cos(2pi (h - peak) / 24))
//       amplitude: 0.8                # diurnal, 0..1
//       file: arrivals.csv            # trace: CSV "time,kind,name,gpus,duration", relative to the scenario
//       start: 0s                     # first possible arrival
//       until: 8h                     # no arrivals at or after (default: the run's end)
//       maxArrivals: 100              # optional cap
//       gpus: 1                       # nvidia.com/gpu limit of the first container
//       duration: 30m                 # Job run time / Deployment lifetime, or {median: 30m, sigma: 0.5}
//       replicas: 1                   # Deployment
//       namespace: default
//       templates: [...]              # optional Job and/or Deployment manifests to stamp out
//
// Arrival times and durations come from the streams "workloads/NAME/arrivals" and
// "workloads/NAME/durations", so one generator's draws never shift another's. An arrival applies
// its object as `kubectl apply` would; a Deployment is deleted when its lifetime ends.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/time.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/scenario/k8s_manifest.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim {
class Cluster;
}

namespace eksim::scenario {

struct TraceArrival {
  engine::Duration time;
  std::string kind;  // Job | Deployment
  std::string name;
  std::int64_t gpus = 0;
  engine::Duration duration;
  Location where;
};

struct WorkloadGenerator {
  std::string name;
  Location where;
  std::string arrival;  // poisson | diurnal | trace
  std::string kind = "Job";
  double rate_per_hour = 0;
  double peak_hour = 14;
  double amplitude = 0.5;
  std::vector<TraceArrival> trace;
  engine::Duration start{};
  std::optional<engine::Duration> until;
  std::optional<std::int64_t> max_arrivals;
  std::int64_t gpus = 1;
  engine::Duration duration = engine::Duration::minutes(30);
  double duration_sigma = 0;  // 0: every object gets `duration`; else log-normal around it
  std::int32_t replicas = 1;
  std::string ns = "default";
  std::vector<Manifest> templates;  // at most one Job and one Deployment; built-ins otherwise
};

// Parses the `workloads:` mapping. Throws InputError (unknown keys with did-you-mean, bad CSV rows
// located in the CSV file).
// A workload trace (CSV "time,kind,name,gpus,duration" with a header line); errors are located in
// the CSV, or at from when the file cannot be opened.
std::vector<TraceArrival> read_trace(const std::string& path, const Location& from);

std::vector<WorkloadGenerator> read_workloads(const Value& v, FileLoader& files);

// What a generator stamps out when the scenario gives it no template of `kind` (Job or
// Deployment): a one-GPU training Job or inference Deployment.
const Manifest& builtin_workload_template(const std::string& kind);

}  // namespace eksim::scenario
