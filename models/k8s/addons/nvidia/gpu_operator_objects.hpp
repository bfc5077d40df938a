#pragma once
// What `helm install gpu-operator nvidia/gpu-operator --version V` puts in the cluster once the
// operator has reconciled its ClusterPolicy: the operator Deployment, the Node Feature Discovery
// subchart (master and gc Deployments, worker DaemonSet) and the operand DaemonSets, with the
// images and switches of the chart's values (gpu_operator_chart.hpp for the defaults).
#include <string>
#include <utility>
#include <vector>

#include "models/k8s/addons/addons.hpp"
#include "models/k8s/addons/nvidia/gpu_operator.hpp"
#include "models/k8s/api/services.hpp"
#include "models/k8s/api/workloads.hpp"

namespace eksim::k8s {

struct GpuOperatorObjects {
  std::vector<std::pair<DaemonSet, GpuOperand>> daemon_sets;  // the NFD worker is GpuOperand::None
  std::vector<Deployment> deployments;
  // assets/state-operator-metrics (gpu-operator, 8080) and state-dcgm-exporter (9400).
  std::vector<Service> services;
  bool driver_enabled = true;   // driver.enabled
  bool toolkit_enabled = true;  // toolkit.enabled
  GpuOperatorTimings timings;   // the driver's startup probe from driver.startupProbe.*
  GpuValidatorWorkload validator_workload;
};

// Throws std::invalid_argument for a chart version eksim does not know (the scenario loader
// checks first and reports it with its location). An empty version is the newest known, as
// `helm install` without --version takes the latest chart.
GpuOperatorObjects build_gpu_operator(const std::string& version, const FlatValues& values, const std::string& release,
                                      const std::string& ns);

}  // namespace eksim::k8s
