#include "models/k8s/kubelet/allocatable.hpp"

#include <algorithm>
#include <cmath>

namespace eksim::k8s {

int eni_max_pods(int enis, int ipv4_per_eni) {
  if (enis <= 0 || ipv4_per_eni <= 0) return 0;
  return enis * (ipv4_per_eni - 1) + 2;
}

int managed_node_group_max_pods_cap(int vcpu) { return vcpu < 30 ? 110 : 250; }

int effective_max_pods(const NodeShape& shape, const KubeletOptions& options) {
  int pods = eni_max_pods(shape.enis, shape.ipv4_per_eni);
  if (options.managed_node_group_cap) pods = std::min(pods, managed_node_group_max_pods_cap(shape.vcpu));
  if (options.max_pods) pods = *options.max_pods;
  // The kubelet: podsPerCore caps maxPods at podsPerCore x cores.
  if (options.pods_per_core > 0)
    pods = static_cast<int>(std::min<std::int64_t>(pods, static_cast<std::int64_t>(options.pods_per_core) * shape.vcpu));
  return pods;
}

std::int64_t kube_reserved_cpu_millicores(int vcpu) {
  const std::int64_t total = static_cast<std::int64_t>(vcpu) * 1000;
  // Range boundaries in millicores and the share reserved in each, in hundredths of a percent.
  const std::int64_t bounds[] = {0, 1000, 2000, 4000, std::max<std::int64_t>(total, 4000)};
  const std::int64_t basis_points[] = {600, 100, 50, 25};
  std::int64_t reserved = 0;
  for (int i = 0; i < 4; ++i) {
    if (total <= bounds[i]) break;
    std::int64_t in_range = std::min(total, bounds[i + 1]) - bounds[i];
    reserved += in_range * basis_points[i] / 10000;
  }
  return reserved;
}

std::int64_t kube_reserved_memory_mib(int max_pods) { return 11 * static_cast<std::int64_t>(max_pods) + 255; }

std::int64_t karpenter_vm_memory_overhead_mib(std::int64_t memory_mib, double percent) {
  return static_cast<std::int64_t>(std::ceil(static_cast<double>(memory_mib) * percent));
}

std::int64_t karpenter_memory_capacity_bytes(std::int64_t memory_mib, double percent) {
  return (memory_mib - karpenter_vm_memory_overhead_mib(memory_mib, percent)) * kMiB;
}

std::int64_t root_filesystem_bytes(std::int64_t volume_gib) {
  const std::int64_t sectors = volume_gib * kGiB / kSectorBytes;
  const std::int64_t partition = (sectors - kRootPartitionStartSectors - kBackupGptSectors) * kSectorBytes;
  if (partition <= 0) return 0;
  return partition / kRootFilesystemBlockBytes * kRootFilesystemBlockBytes;
}

std::int64_t eviction_threshold_bytes(std::int64_t capacity, float fraction) {
  return static_cast<std::int64_t>(static_cast<double>(capacity) * static_cast<double>(fraction));
}

NodeResources node_resources(const NodeShape& shape, const KubeletOptions& options) {
  NodeResources r;
  r.max_pods = effective_max_pods(shape, options);

  const std::int64_t storage = options.root_filesystem_size ? root_filesystem_bytes(shape.ephemeral_storage_gib)
                                                            : shape.ephemeral_storage_gib * kGiB;
  r.capacity.set(kCpu, static_cast<std::int64_t>(shape.vcpu) * 1000);
  r.capacity.set(kMemory, shape.memory_ki * 1024);
  r.capacity.set(kPods, r.max_pods);
  r.capacity.set(kEphemeralStorage, storage);
  if (options.advertise_gpus && shape.gpus > 0) r.capacity.set(kNvidiaGpu, shape.gpus);
  if (options.root_filesystem_size) {
    // The kubelet lists every huge page size the kernel supports (0 when none are reserved).
    for (const char* size : {"hugepages-1Gi", "hugepages-2Mi"}) r.capacity.set(size, 0);
    if (shape.arm64)
      for (const char* size : {"hugepages-32Mi", "hugepages-64Ki"}) r.capacity.set(size, 0);
  }

  r.kube_reserved.set(kCpu, kube_reserved_cpu_millicores(shape.vcpu));
  r.kube_reserved.set(kMemory, kube_reserved_memory_mib(r.max_pods) * kMiB);
  r.kube_reserved.set(kEphemeralStorage, kKubeReservedEphemeralStorageBytes);
  for (const auto& [name, amount] : options.kube_reserved.items()) r.kube_reserved.set(name, amount);
  r.system_reserved = options.system_reserved;
  r.eviction_hard.set(kMemory, options.eviction_memory_available_bytes.value_or(kEvictionHardMemoryAvailableBytes));
  // The kubelet resolves a percentage threshold against capacity through a float32 fraction;
  // Karpenter's prediction (whole GiB volumes) stays in integer math.
  if (options.eviction_nodefs_available_bytes) {
    r.eviction_hard.set(kEphemeralStorage, *options.eviction_nodefs_available_bytes);
  } else if (options.eviction_nodefs_available_percent) {
    const double pct = *options.eviction_nodefs_available_percent;
    r.eviction_hard.set(kEphemeralStorage, options.root_filesystem_size
                                               ? eviction_threshold_bytes(storage, static_cast<float>(pct / 100))
                                               : static_cast<std::int64_t>(static_cast<double>(storage) * pct / 100));
  } else {
    r.eviction_hard.set(kEphemeralStorage, options.root_filesystem_size
                                               ? eviction_threshold_bytes(storage, kEvictionHardNodefsAvailableFraction)
                                               : storage * kEvictionHardNodefsAvailablePercent / 100);
  }

  r.allocatable = r.capacity;
  r.allocatable -= r.kube_reserved;
  r.allocatable -= r.system_reserved;
  r.allocatable -= r.eviction_hard;
  for (const auto& [name, amount] : r.allocatable.items())
    if (amount < 0) r.allocatable.set(name, 0);
  return r;
}

}  // namespace eksim::k8s
