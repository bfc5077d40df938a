// The GPU Operator chart's objects per chart version, from its values.yaml (gpu_operator_chart.cpp
// holds the table): lab 000's values give the operator Deployment, NFD and every operand but the
// driver and toolkit, with the images that chart version pins.
#include "models/k8s/addons/nvidia/gpu_operator_objects.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "models/k8s/addons/nvidia/gpu_operator_chart.hpp"
#include "models/k8s/api/resources.hpp"

namespace eksim::k8s {
namespace {

const DaemonSet* find_ds(const GpuOperatorObjects& o, const std::string& name) {
  for (const auto& [ds, op] : o.daemon_sets)
    if (ds.meta.name == name) return &ds;
  return nullptr;
}
const Deployment* find_deploy(const GpuOperatorObjects& o, const std::string& name) {
  for (const auto& d : o.deployments)
    if (d.meta.name == name) return &d;
  return nullptr;
}

TEST(GpuOperatorChart, VersionsAndEksRanges) {
  const GpuOperatorChart* c = find_gpu_operator_chart("v26.3.1");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(find_gpu_operator_chart("26.3.1"), c);
  EXPECT_EQ(c->device_plugin_image, "nvcr.io/nvidia/k8s-device-plugin:v0.19.0");
  EXPECT_EQ(c->eks_k8s_min_minor, 32);
  EXPECT_EQ(c->eks_k8s_max_minor, 35);
  EXPECT_EQ(find_gpu_operator_chart("v25.3.4")->validator_image,
            "nvcr.io/nvidia/cloud-native/gpu-operator-validator:v25.3.4");
  EXPECT_EQ(find_gpu_operator_chart("v99.1.0"), nullptr);
  EXPECT_EQ(gpu_operator_chart_versions().back(), "v26.3.3");
}

TEST(GpuOperatorObjects, Lab000Values) {
  FlatValues v{{"driver.enabled", "false"}, {"toolkit.enabled", "false"}, {"dcgmExporter.enabled", "true"},
               {"operator.tolerations[0].key", "nvidia.com/gpu"}, {"operator.tolerations[0].operator", "Exists"},
               {"operator.tolerations[0].effect", "NoSchedule"}};
  GpuOperatorObjects o = build_gpu_operator("v26.3.1", v, "gpu-operator", "gpu-operator");
  EXPECT_FALSE(o.driver_enabled);
  EXPECT_EQ(find_ds(o, "nvidia-driver-daemonset"), nullptr);
  EXPECT_EQ(find_ds(o, "nvidia-container-toolkit-daemonset"), nullptr);
  const DaemonSet* plugin = find_ds(o, "nvidia-device-plugin-daemonset");
  ASSERT_NE(plugin, nullptr);
  EXPECT_EQ(plugin->tmpl.spec.containers.front().image, "nvcr.io/nvidia/k8s-device-plugin:v0.19.0");
  EXPECT_EQ(plugin->tmpl.spec.node_selector.at("nvidia.com/gpu.deploy.device-plugin"), "true");
  ASSERT_EQ(plugin->tmpl.spec.init_containers.size(), 2u);
  EXPECT_EQ(plugin->tmpl.spec.init_containers[0].name, "toolkit-validation");
  const DaemonSet* validator = find_ds(o, "nvidia-operator-validator");
  ASSERT_NE(validator, nullptr);
  EXPECT_EQ(validator->tmpl.spec.containers.front().image, "nvcr.io/nvidia/gpu-operator:v26.3.1");
  EXPECT_EQ(validator->tmpl.spec.init_containers.size(), 4u);
  ASSERT_NE(find_ds(o, "nvidia-dcgm-exporter"), nullptr);
  EXPECT_EQ(find_ds(o, "nvidia-dcgm-exporter")->tmpl.spec.containers.front().image,
            "nvcr.io/nvidia/k8s/dcgm-exporter:4.5.1-4.8.0-distroless");
  ASSERT_NE(find_ds(o, "gpu-feature-discovery"), nullptr);
  ASSERT_NE(find_ds(o, "nvidia-mig-manager"), nullptr);
  EXPECT_EQ(find_ds(o, "nvidia-mig-manager")->tmpl.spec.node_selector.at("nvidia.com/gpu.deploy.mig-manager"), "true");
  ASSERT_NE(find_ds(o, "gpu-operator-node-feature-discovery-worker"), nullptr);
  EXPECT_EQ(find_ds(o, "gpu-operator-node-feature-discovery-worker")->tmpl.spec.containers.front().image,
            "registry.k8s.io/nfd/node-feature-discovery:v0.18.3");
  const Deployment* op = find_deploy(o, "gpu-operator");
  ASSERT_NE(op, nullptr);
  const Container& c = op->tmpl.spec.containers.front();
  EXPECT_EQ(c.image, "nvcr.io/nvidia/gpu-operator:v26.3.1");
  EXPECT_EQ(c.requests.get(kCpu), 200);
  EXPECT_EQ(c.requests.get(kMemory), 100LL * 1024 * 1024);
  ASSERT_EQ(op->tmpl.spec.tolerations.size(), 1u);
  EXPECT_EQ(op->tmpl.spec.tolerations[0].key, "nvidia.com/gpu");
  EXPECT_NE(find_deploy(o, "gpu-operator-node-feature-discovery-master"), nullptr);
  EXPECT_NE(find_deploy(o, "gpu-operator-node-feature-discovery-gc"), nullptr);
}

TEST(GpuOperatorObjects, DefaultsAndOverrides) {
  FlatValues v{{"devicePlugin.version", "v0.18.2"}, {"dcgmExporter.enabled", "false"},
               {"driver.startupProbe.initialDelaySeconds", "90"}};
  GpuOperatorObjects o = build_gpu_operator("v25.10.1", v, "gpu-operator", "gpu-operator");
  const DaemonSet* driver = find_ds(o, "nvidia-driver-daemonset");
  ASSERT_NE(driver, nullptr);
  EXPECT_EQ(driver->tmpl.spec.containers.front().image, "nvcr.io/nvidia/driver:580.105.08");
  ASSERT_EQ(driver->tmpl.spec.init_containers.size(), 1u);
  EXPECT_EQ(driver->tmpl.spec.init_containers[0].name, "k8s-driver-manager");
  EXPECT_EQ(driver->tmpl.spec.init_containers[0].image, "nvcr.io/nvidia/cloud-native/k8s-driver-manager:v0.9.1");
  EXPECT_NE(find_ds(o, "nvidia-container-toolkit-daemonset"), nullptr);
  EXPECT_EQ(find_ds(o, "nvidia-device-plugin-daemonset")->tmpl.spec.containers.front().image,
            "nvcr.io/nvidia/k8s-device-plugin:v0.18.2");
  EXPECT_EQ(find_ds(o, "nvidia-dcgm-exporter"), nullptr);
  EXPECT_EQ(o.timings.driver_probe_initial_delay, engine::Duration::seconds(90));
  EXPECT_THROW(build_gpu_operator("v1.0.0", {}, "gpu-operator", "gpu-operator"), std::invalid_argument);
}

}  // namespace
}  // namespace eksim::k8s
