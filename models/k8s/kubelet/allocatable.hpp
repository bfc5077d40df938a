#pragma once
// Node capacity and allocatable as the EKS AMIs configure the kubelet (amazon-eks-ami: AL2
// bootstrap.sh and AL2023 nodeadm, nodeadm/internal/kubelet/config.go and eni-max-pods.txt).
// Plain numbers in, ResourceLists out: this layer knows no instance catalog.
#include <cstdint>
#include <optional>

#include "models/k8s/api/resources.hpp"

namespace eksim::k8s {

struct NodeShape {
  int vcpu = 0;
  std::int64_t memory_ki = 0;  // what the kubelet reports as capacity (not the EC2 figure)
  int enis = 0;                // ENIs on network card 0 (the VPC CNI uses no other card)
  int ipv4_per_eni = 0;
  int gpus = 0;
  std::int64_t ephemeral_storage_gib = 20;  // EKS managed node group default root volume (20 GiB)
  bool arm64 = false;                       // which huge page sizes the kernel offers
};

struct KubeletOptions {
  // NodeConfig spec.kubelet.config.maxPods (or bootstrap --max-pods); wins over everything.
  std::optional<int> max_pods = std::nullopt;
  // EKS managed node groups without a custom AMI cap the ENI figure (110 / 250).
  bool managed_node_group_cap = false;
  // nvidia.com/gpu appears only once the NVIDIA device plugin has registered with the kubelet.
  bool advertise_gpus = false;
  // What the kubelet reports for ephemeral-storage: the root filesystem's size (true), or the raw
  // EBS volume size as Karpenter predicts it before launch (false).
  bool root_filesystem_size = true;
  // KubeletConfiguration podsPerCore: max pods = min(max pods, podsPerCore x vCPUs); 0 = none.
  int pods_per_core = 0;
  // KubeletConfiguration kubeReserved / systemReserved / evictionHard as a user sets them
  // (Karpenter EC2NodeClass spec.kubelet): a key given replaces that key's AMI default, the
  // others keep it (karpenter-provider-aws kubeReservedResources, evictionThreshold: lo.Assign).
  ResourceList kube_reserved = {};    // only the keys given: cpu, memory, ephemeral-storage
  ResourceList system_reserved = {};  // EKS AMIs set none
  std::optional<std::int64_t> eviction_memory_available_bytes = std::nullopt;  // memory.available
  std::optional<double> eviction_nodefs_available_percent = std::nullopt;      // nodefs.available "15%"
  std::optional<std::int64_t> eviction_nodefs_available_bytes = std::nullopt;  // nodefs.available "2Gi"
};

// eni-max-pods.txt: ENIs * (IPv4 per ENI - 1) + 2. The first IP of each ENI is the ENI's own;
// +2 for aws-node and kube-proxy, which use host networking.
int eni_max_pods(int enis, int ipv4_per_eni);
// EKS managed node groups: 110 for instances with fewer than 30 vCPUs, 250 for the others.
int managed_node_group_max_pods_cap(int vcpu);
int effective_max_pods(const NodeShape& shape, const KubeletOptions& options);

// kube-reserved cpu (nodeadm getCPUMillicoresToReserve): 6% of the first core, 1% of the
// second, 0.5% of cores 3-4, 0.25% of every core above 4, each range truncated to whole
// millicores as upstream's integer arithmetic does.
std::int64_t kube_reserved_cpu_millicores(int vcpu);
// kube-reserved memory: 11 * maxPods + 255 MiB.
std::int64_t kube_reserved_memory_mib(int max_pods);

inline constexpr std::int64_t kMiB = 1024 * 1024;
inline constexpr std::int64_t kGiB = 1024 * kMiB;
// nodeadm defaultKubeletSubConfig evictionHard: memory.available=100Mi, nodefs.available=10%.
inline constexpr std::int64_t kEvictionHardMemoryAvailableBytes = 100 * kMiB;
inline constexpr int kEvictionHardNodefsAvailablePercent = 10;
// The kubelet stores a percentage threshold as a float32 fraction (evictionapi.ThresholdValue).
inline constexpr float kEvictionHardNodefsAvailableFraction = 0.1f;
// nodeadm withDefaultReservedResources: kubeReserved ephemeral-storage 1Gi.
inline constexpr std::int64_t kKubeReservedEphemeralStorageBytes = kGiB;
// The EKS AMIs' root disk (GPT): partition 1 (the root filesystem) starts at sector 24576, after
// the 10 MiB EFI System partition and the 1 MiB BIOS boot partition, and runs to the last usable
// sector, before the 33 sectors of the backup GPT (header + 32 sectors of entries); the
// filesystem is grown to the partition at first boot (4 KiB blocks).
inline constexpr std::int64_t kSectorBytes = 512;
inline constexpr std::int64_t kRootPartitionStartSectors = 24576;
inline constexpr std::int64_t kBackupGptSectors = 33;
inline constexpr std::int64_t kRootFilesystemBlockBytes = 4096;

// ephemeral-storage capacity (cadvisor's root filesystem capacity, statfs blocks * block size) of
// a root volume of that many GiB: the partition in whole filesystem blocks. 20 GiB ->
// 21462233088 bytes = 20959212Ki, as lab 004's `kubectl describe node` shows.
std::int64_t root_filesystem_bytes(std::int64_t volume_gib);
// The kubelet's hard-eviction reservation for a percentage threshold:
// int64(float64(capacity) * float64(float32 percentage)) (eviction GetThresholdQuantity);
// 10% of 21462233088 -> 2146223340.
std::int64_t eviction_threshold_bytes(std::int64_t capacity, float fraction);

// Karpenter's VM_MEMORY_OVERHEAD_PERCENT default.
inline constexpr double kKarpenterVmMemoryOverheadPercent = 0.075;

// Karpenter's estimate of what the hypervisor and kernel take before the kubelet sees memory:
// ceil(memory MiB * percent) MiB (karpenter-provider-aws instancetype memory()). Karpenter
// subtracts it from the EC2 figure to predict capacity before a node exists.
std::int64_t karpenter_vm_memory_overhead_mib(std::int64_t memory_mib,
                                              double percent = kKarpenterVmMemoryOverheadPercent);
// Karpenter's predicted memory capacity in bytes: (memory MiB - overhead MiB) MiB.
std::int64_t karpenter_memory_capacity_bytes(std::int64_t memory_mib,
                                             double percent = kKarpenterVmMemoryOverheadPercent);

struct NodeResources {
  ResourceList capacity;
  ResourceList allocatable;
  int max_pods = 0;
  ResourceList kube_reserved;   // cpu, memory, ephemeral-storage
  ResourceList system_reserved;
  ResourceList eviction_hard;   // memory, ephemeral-storage
};

// capacity: cpu = vcpu, memory = memory_ki, pods = max pods, ephemeral-storage = the root
// filesystem (root_filesystem_bytes; the raw volume when options.root_filesystem_size is false),
// hugepages-1Gi and hugepages-2Mi = 0 (EKS AMIs reserve no huge pages; arm64 kernels also offer
// hugepages-32Mi and hugepages-64Ki), nvidia.com/gpu when advertised.
// allocatable = capacity - kube-reserved - eviction-hard (the kubelet's formula; EKS sets no
// system-reserved), never below zero.
NodeResources node_resources(const NodeShape& shape, const KubeletOptions& options = {});

}  // namespace eksim::k8s
