#include "models/k8s/addons/nvidia/gpu_operator_chart.hpp"

namespace eksim::k8s {

namespace {

// From `git show <tag>:deployments/gpu-operator/values.yaml` (and Chart.yaml for NFD). The EKS
// ranges: 25.3.x 1.29-1.33 (docs commit 29a8fa8c), 25.10.x 1.30-1.35 (a5b94d57), 26.3.0/26.3.1
// 1.32-1.35 (adfe9224), 26.3.2 onwards 1.32-1.36 (de99f9d3).
constexpr GpuOperatorChart kCharts[] = {
    {"v25.3.4", "nvcr.io/nvidia/gpu-operator:v25.3.4", "nvcr.io/nvidia/cloud-native/gpu-operator-validator:v25.3.4",
     "nvcr.io/nvidia/driver:580.82.07", "nvcr.io/nvidia/cloud-native/k8s-driver-manager:v0.8.1",
     "nvcr.io/nvidia/k8s/container-toolkit:v1.17.8-ubuntu20.04", "nvcr.io/nvidia/k8s-device-plugin:v0.17.4",
     "nvcr.io/nvidia/k8s/dcgm-exporter:4.3.1-4.4.0-ubuntu22.04",
     "nvcr.io/nvidia/cloud-native/k8s-mig-manager:v0.12.3-ubuntu20.04",
     "registry.k8s.io/nfd/node-feature-discovery:v0.17.3", 29, 33},
    {"v25.10.1", "nvcr.io/nvidia/gpu-operator:v25.10.1", "nvcr.io/nvidia/gpu-operator:v25.10.1",
     "nvcr.io/nvidia/driver:580.105.08", "nvcr.io/nvidia/cloud-native/k8s-driver-manager:v0.9.1",
     "nvcr.io/nvidia/k8s/container-toolkit:v1.18.1", "nvcr.io/nvidia/k8s-device-plugin:v0.18.1",
     "nvcr.io/nvidia/k8s/dcgm-exporter:4.4.2-4.7.0-distroless", "nvcr.io/nvidia/cloud-native/k8s-mig-manager:v0.13.1",
     "registry.k8s.io/nfd/node-feature-discovery:v0.18.2", 30, 35},
    {"v26.3.0", "nvcr.io/nvidia/gpu-operator:v26.3.0", "nvcr.io/nvidia/gpu-operator:v26.3.0",
     "nvcr.io/nvidia/driver:580.126.20", "nvcr.io/nvidia/cloud-native/k8s-driver-manager:v0.10.0",
     "nvcr.io/nvidia/k8s/container-toolkit:v1.19.0", "nvcr.io/nvidia/k8s-device-plugin:v0.19.0",
     "nvcr.io/nvidia/k8s/dcgm-exporter:4.5.1-4.8.0-distroless", "nvcr.io/nvidia/cloud-native/k8s-mig-manager:v0.14.0",
     "registry.k8s.io/nfd/node-feature-discovery:v0.18.3", 32, 35},
    {"v26.3.1", "nvcr.io/nvidia/gpu-operator:v26.3.1", "nvcr.io/nvidia/gpu-operator:v26.3.1",
     "nvcr.io/nvidia/driver:580.126.20", "nvcr.io/nvidia/cloud-native/k8s-driver-manager:v0.10.0",
     "nvcr.io/nvidia/k8s/container-toolkit:v1.19.0", "nvcr.io/nvidia/k8s-device-plugin:v0.19.0",
     "nvcr.io/nvidia/k8s/dcgm-exporter:4.5.1-4.8.0-distroless", "nvcr.io/nvidia/cloud-native/k8s-mig-manager:v0.14.0",
     "registry.k8s.io/nfd/node-feature-discovery:v0.18.3", 32, 35},
    {"v26.3.3", "nvcr.io/nvidia/gpu-operator:v26.3.3", "nvcr.io/nvidia/gpu-operator:v26.3.3",
     "nvcr.io/nvidia/driver:580.126.20", "nvcr.io/nvidia/cloud-native/k8s-driver-manager:v0.11.0",
     "nvcr.io/nvidia/k8s/container-toolkit:v1.19.1", "nvcr.io/nvidia/k8s-device-plugin:v0.19.3",
     "nvcr.io/nvidia/k8s/dcgm-exporter:4.5.3-4.8.2-distroless", "nvcr.io/nvidia/cloud-native/k8s-mig-manager:v0.14.2",
     "registry.k8s.io/nfd/node-feature-discovery:v0.18.3", 32, 36},
};

}  // namespace

const GpuOperatorChart* find_gpu_operator_chart(std::string_view version) {
  if (!version.empty() && version.front() != 'v') {
    for (const auto& c : kCharts)
      if (c.version.substr(1) == version) return &c;
    return nullptr;
  }
  for (const auto& c : kCharts)
    if (c.version == version) return &c;
  return nullptr;
}

std::vector<std::string> gpu_operator_chart_versions() {
  std::vector<std::string> out;
  for (const auto& c : kCharts) out.emplace_back(c.version);
  return out;
}

}  // namespace eksim::k8s
