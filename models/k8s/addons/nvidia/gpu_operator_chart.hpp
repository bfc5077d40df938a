#pragma once
// The NVIDIA GPU Operator Helm chart's defaults per chart version: the operand images and tags its
// values.yaml gives (deployments/gpu-operator/values.yaml at the release tag of
// github.com/NVIDIA/gpu-operator), the Node Feature Discovery subchart it pins (Chart.yaml
// dependencies) and the Kubernetes versions NVIDIA validated the release on Amazon EKS
// (gpu-operator/platform-support.rst, "Cloud Service Providers", in NVIDIA/cloud-native-docs at
// that release's docs).
#include <string>
#include <string_view>
#include <vector>

namespace eksim::k8s {

struct GpuOperatorChart {
  std::string_view version;  // chart version as `helm install --version` takes it: "v26.3.1"
  // Full image references (repository/image:version) of values.yaml.
  std::string_view operator_image;   // operator.repository/image, tag = the chart's appVersion
  std::string_view validator_image;  // validator.repository/image (same tag)
  std::string_view driver_image;     // driver.repository/image:version (the operator appends -<os>)
  std::string_view driver_manager_image;
  std::string_view toolkit_image;
  std::string_view device_plugin_image;  // devicePlugin and gfd use the same image
  std::string_view dcgm_exporter_image;
  std::string_view mig_manager_image;
  std::string_view nfd_image;  // registry.k8s.io/nfd/node-feature-discovery:v<subchart appVersion>
  // Amazon EKS Kubernetes versions validated for the release (minor versions, inclusive).
  int eks_k8s_min_minor = 0;
  int eks_k8s_max_minor = 0;
};

// The chart for a version ("v26.3.1" or "26.3.1"); nullptr when eksim does not know it.
const GpuOperatorChart* find_gpu_operator_chart(std::string_view version);
// Every version the table knows, oldest first (for error messages).
std::vector<std::string> gpu_operator_chart_versions();

}  // namespace eksim::k8s
