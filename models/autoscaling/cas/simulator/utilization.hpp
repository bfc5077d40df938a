#pragma once
// Node utilisation as Cluster Autoscaler computes it (cluster-autoscaler/simulator/utilization):
// max of cpu and memory requests over allocatable; GPU nodes by GPU requests only.
#include <string>

#include "models/k8s/scheduling/node_info.hpp"

namespace eksim::autoscaling::cas {

struct Utilization {
  double cpu = 0;
  double memory = 0;
  double gpu = 0;
  bool gpu_node = false;
  double value = 0;  // what is compared with the threshold
};

// GPU node: allocatable nvidia.com/gpu > 0, or `gpu_expected` (its group's instance type has GPUs
// while the device plugin has not advertised them yet).
Utilization node_utilization(const k8s::NodeInfo& info, bool gpu_expected = false);

// utilization.Info printed with %v: "{CpuUtil MemUtil GpuUtil ResourceName Utilization}", e.g.
// "{0.25 0.75 0 memory 0.75}" (floats as Go's %v prints them).
std::string utilization_info_string(const Utilization& u);
// Go's %v of a float64 (strconv 'g', shortest): 0.25, 0, 1e-05, 1e+21.
std::string go_float(double v);

}  // namespace eksim::autoscaling::cas
