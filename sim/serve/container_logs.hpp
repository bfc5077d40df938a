#pragma once
// What a container prints, as eksim models its command: `nvidia-smi` prints the table for the
// node's GPU (model and memory from the instance catalog as EC2 reports them, driver and CUDA
// versions of the node's AMI family, as the lab write-ups show them); a training worker prints the
// lines the models logged for it (ContainerLog events: NCCL's retries, c10d's name-resolution and
// store errors, the watchdog); other commands print nothing eksim knows about.
#include <cstdint>
#include <optional>
#include <string>

#include "models/cluster/cluster.hpp"

namespace eksim::serve {

struct GpuDriver {
  std::string driver, cuda;
};

// The NVIDIA driver of the node image: EKS Auto Mode 570.195.03 / CUDA 13.0 (lab 001), AL2
// 535.161.08 / CUDA 12.4 (lab 004), AL2023 NVIDIA 580.126.20 / CUDA 13.0 (lab 000's 580 stream).
GpuDriver gpu_driver_of(const Cluster& cluster, const k8s::NodeRecord& node);
// cudaDriverGetVersion's number for a CUDA version: "12.4" -> 12040, "13.0" -> 13000.
int cuda_driver_version(const std::string& cuda);

struct NvidiaSmiInput {
  std::string date;  // "Wed Dec 10 06:44:46 2025"
  GpuDriver driver;
  std::string gpu_name;     // catalog name: "t4g", "a10g"
  std::int64_t memory_mib = 0;
  int count = 1;
  bool arm64 = false;
};
std::string nvidia_smi_table(const NvidiaSmiInput& in);

// What nvidia-smi prints on the node at unix_us (the driver's complaint on a node without an
// NVIDIA GPU).
std::string nvidia_smi_on_node(const Cluster& cluster, const k8s::NodeRecord& node, std::int64_t unix_us);

// The log of a pod's container from its command and node; unix_us_of_sim0 anchors the date line.
// `previous`: the run before the latest (`logs --previous`; the caller checks there was one).
// The NVIDIA device plugin prints its start-up and, where it fails, its crash (models/k8s/
// nvidia_device_plugin_log.hpp).
std::string container_log(const Cluster& cluster, const k8s::PodRecord& pod, const k8s::Container& container,
                          std::int64_t unix_us_of_sim0, bool previous = false);

// A Karpenter controller pod's log (karpenter_logs.cpp): the start-up lines both replicas print,
// and for the leader the lease it took and what the controller logged since; nullopt for any
// other container.
std::optional<std::string> karpenter_controller_log(const Cluster& cluster, const k8s::PodRecord& pod,
                                                    const k8s::Container& container, std::int64_t unix_us_of_sim0);

}  // namespace eksim::serve
