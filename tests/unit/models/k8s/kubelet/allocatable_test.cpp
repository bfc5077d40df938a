#include "models/k8s/kubelet/allocatable.hpp"

#include <gtest/gtest.h>

#include <string>

#include "models/aws/instance_catalog.hpp"
#include "models/k8s/api/quantity.hpp"

namespace eksim::k8s {
namespace {

// Hand-computed for every catalog type, default options (no NodeConfig maxPods, no managed node
// group cap):
//   reserved cpu  = 60 + 10 + 10 (4+ cores) + 2.5 per core above 4, truncated per range
//   pods          = ENIs(card 0) * (IPs - 1) + 2
//   memory (Ki)   = kubelet capacity - (11 * pods + 255) * 1024 - 100 * 1024
// e.g. g4dn.xlarge: 16069028 - 574 * 1024 - 102400 = 15378852 (lab 004).
struct Expected {
  const char* type;
  int vcpu;
  std::int64_t capacity_ki;
  int enis, ips;
  std::int64_t cpu_m;  // allocatable
  int pods;
  std::int64_t memory_ki;  // allocatable
};

const Expected kExpected[] = {
    // type            vcpu  capacity Ki    ENI IP   cpu     pods  memory Ki
    {"t3.medium",        2,  3935568,        3,  6,  1930,    17,  3380560},     // 3935568-442*1024-102400
    {"m5.large",         2,  7816532,        3, 10,  1930,    29,  7126356},     // -574*1024-102400
    {"c5.xlarge",        4,  7816068,        4, 15,  3920,    58,  6799236},     // -893*1024-102400
    {"g4dn.xlarge",      4,  16069028,       3, 10,  3920,    29,  15378852},    // -574*1024-102400
    {"g4dn.12xlarge",   48,  195654276,      8, 30,  47810,  234,  192654980},   // -2829*1024-102400
    {"g5.xlarge",        4,  16173952,       4, 15,  3920,    58,  15157120},    // -893*1024-102400
    {"g5.2xlarge",       8,  32491460,       4, 15,  7910,    58,  31474628},    // cpu 8000-90
    {"g5.4xlarge",      16,  65126480,       8, 30,  15890,  234,  62127184},    // cpu 16000-110
    {"g5.12xlarge",     48,  195766916,     15, 50,  47810,  737,  187101828},   // -8362*1024-102400
    {"g5.48xlarge",    192,  784262052,      7, 50,  191450, 345,  780012452},   // cpu 192000-550
    {"g5g.xlarge",       4,  7958840,        4, 15,  3920,    58,  6942008},
    {"g6.xlarge",        4,  16069028,       4, 15,  3920,    58,  15052196},
    {"p3.2xlarge",       8,  62736796,       4, 15,  7910,    58,  61719964},
    {"p4d.24xlarge",    96,  1176393078,    15, 50,  95690,  737,  1167727990},  // cpu 96000-310
    {"p5.48xlarge",    192,  2091365472,     2, 50,  191450, 100,  2089875552},  // -1355*1024-102400
};

class AllocatableForType : public ::testing::TestWithParam<Expected> {};

TEST_P(AllocatableForType, HandComputedTable) {
  const Expected& e = GetParam();
  NodeShape shape{e.vcpu, e.capacity_ki, e.enis, e.ips, 0, 20};
  NodeResources r = node_resources(shape);
  EXPECT_EQ(r.max_pods, e.pods);
  EXPECT_EQ(r.allocatable.get(kCpu), e.cpu_m);
  EXPECT_EQ(r.allocatable.get(kPods), e.pods);
  EXPECT_EQ(r.allocatable.get(kMemory), e.memory_ki * 1024);
  EXPECT_EQ(r.capacity.get(kMemory), e.capacity_ki * 1024);
  EXPECT_EQ(r.capacity.get(kCpu), e.vcpu * 1000);
}

TEST_P(AllocatableForType, CatalogDataAgrees) {
  const Expected& e = GetParam();
  const aws::InstanceType* t = aws::InstanceCatalog::builtin().find(e.type);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->vcpu, e.vcpu);
  EXPECT_EQ(t->kubelet_memory_ki, e.capacity_ki);
  EXPECT_EQ(t->default_card_enis, e.enis);
  EXPECT_EQ(t->ipv4_per_eni, e.ips);
}

INSTANTIATE_TEST_SUITE_P(Catalog, AllocatableForType, ::testing::ValuesIn(kExpected),
                         [](const auto& info) {
                           std::string n = info.param.type;
                           for (char& c : n)
                             if (c == '.') c = '_';
                           return n;
                         });

// The hand-computed rows cover the types the labs use; every catalog type's max pods and
// Karpenter allocatable are compared with the data in karpenter/catalog_types_test.cpp.
TEST(Allocatable, EveryTableRowIsACatalogType) {
  for (const auto& e : kExpected) EXPECT_NE(aws::InstanceCatalog::builtin().find(e.type), nullptr) << e.type;
}

TEST(Allocatable, Lab004G4dnXlarge) {
  NodeShape shape{4, 16069028, 3, 10, 1};
  NodeResources r = node_resources(shape, {.advertise_gpus = true});
  EXPECT_EQ(format_amount(kMemory, r.capacity.get(kMemory)), "16069028Ki");
  EXPECT_EQ(format_amount(kCpu, r.capacity.get(kCpu)), "4");
  EXPECT_EQ(format_amount(kCpu, r.allocatable.get(kCpu)), "3920m");
  EXPECT_EQ(format_amount(kMemory, r.allocatable.get(kMemory)), "15378852Ki");
  EXPECT_EQ(format_amount(kPods, r.allocatable.get(kPods)), "29");
  EXPECT_EQ(format_amount(kNvidiaGpu, r.allocatable.get(kNvidiaGpu)), "1");
  EXPECT_EQ(format_amount(kNvidiaGpu, r.capacity.get(kNvidiaGpu)), "1");
}

TEST(Allocatable, GpuOnlyOnceTheDevicePluginRuns) {
  NodeShape shape{4, 16069028, 3, 10, 1};
  EXPECT_FALSE(node_resources(shape).capacity.has(kNvidiaGpu));
  EXPECT_FALSE(node_resources(shape).allocatable.has(kNvidiaGpu));
  EXPECT_EQ(node_resources(shape, {.advertise_gpus = true}).allocatable.get(kNvidiaGpu), 1);
  NodeShape cpu_only{4, 7816068, 4, 15, 0};
  EXPECT_FALSE(node_resources(cpu_only, {.advertise_gpus = true}).capacity.has(kNvidiaGpu));
}

TEST(Allocatable, EphemeralStorageLab004) {
  // Lab 004's `kubectl describe node` (20 GiB root volume):
  //   Capacity:    ephemeral-storage: 20959212Ki      Allocatable: ephemeral-storage: 18242267924
  // capacity = (41943040 sectors - 24576 - 33) * 512 B, floored to 4 KiB blocks = 21462233088 B;
  // allocatable = capacity - 1Gi kube-reserved - int64(capacity * float32(0.1)) (2146223340).
  NodeShape shape{4, 16069028, 3, 10};
  NodeResources r = node_resources(shape);
  EXPECT_EQ(r.capacity.get(kEphemeralStorage), 21462233088);
  EXPECT_EQ(format_amount(kEphemeralStorage, r.capacity.get(kEphemeralStorage)), "20959212Ki");
  EXPECT_EQ(r.eviction_hard.get(kEphemeralStorage), 2146223340);
  EXPECT_EQ(r.allocatable.get(kEphemeralStorage), 18242267924);
  EXPECT_EQ(format_amount(kEphemeralStorage, r.allocatable.get(kEphemeralStorage)), "18242267924");
}

TEST(Allocatable, EphemeralStorageScalesWithTheVolume) {
  // The partition overhead is a fixed 12 MiB + 33 sectors, floored to whole 4 KiB blocks.
  EXPECT_EQ(root_filesystem_bytes(20), 21462233088);
  EXPECT_EQ(root_filesystem_bytes(30), 30 * kGiB - 12 * kMiB - 20 * 1024);
  EXPECT_EQ(root_filesystem_bytes(100), 100 * kGiB - 12 * kMiB - 20 * 1024);
  EXPECT_EQ(root_filesystem_bytes(0), 0);
  NodeShape shape{4, 16069028, 3, 10};
  shape.ephemeral_storage_gib = 100;
  const std::int64_t cap = 100 * kGiB - 12 * kMiB - 20 * 1024;
  NodeResources r = node_resources(shape);
  EXPECT_EQ(r.capacity.get(kEphemeralStorage), cap);
  EXPECT_EQ(r.allocatable.get(kEphemeralStorage), cap - kGiB - eviction_threshold_bytes(cap, 0.1f));
  EXPECT_EQ(eviction_threshold_bytes(cap, 0.1f), 10736158060);  // float32 0.1 rounds up: not cap / 10
  EXPECT_NE(eviction_threshold_bytes(cap, 0.1f), cap / 10);
}

TEST(Allocatable, KarpenterPredictionKeepsTheVolumeSize) {
  // Karpenter's instance-types page: ephemeral-storage 17Gi for a 20Gi root volume.
  NodeShape shape{4, 16069028, 3, 10};
  NodeResources r = node_resources(shape, {.root_filesystem_size = false});
  EXPECT_EQ(r.capacity.get(kEphemeralStorage), 20 * kGiB);
  EXPECT_EQ(r.allocatable.get(kEphemeralStorage), 17 * kGiB);
  EXPECT_FALSE(r.capacity.has("hugepages-2Mi"));
}

TEST(Allocatable, HugePagesListedAsZero) {
  NodeShape shape{4, 16069028, 3, 10};
  NodeResources r = node_resources(shape);
  for (const char* size : {"hugepages-1Gi", "hugepages-2Mi"}) {
    EXPECT_TRUE(r.capacity.has(size)) << size;
    EXPECT_TRUE(r.allocatable.has(size)) << size;
    EXPECT_EQ(r.allocatable.get(size), 0) << size;
  }
  EXPECT_FALSE(r.capacity.has("hugepages-32Mi"));
  shape.arm64 = true;
  NodeResources arm = node_resources(shape);
  for (const char* size : {"hugepages-1Gi", "hugepages-2Mi", "hugepages-32Mi", "hugepages-64Ki"})
    EXPECT_TRUE(arm.allocatable.has(size)) << size;
}

struct CpuCase {
  int vcpu;
  std::int64_t reserved_m;
};

TEST(Allocatable, KubeReservedCpuTable) {
  // FACTS.md: 4 vCPU -> 80m, 48 vCPU -> 190m.
  const CpuCase cases[] = {{1, 60},  {2, 70},   {3, 75},   {4, 80},   {5, 82},  {6, 85},
                           {8, 90},  {16, 110}, {48, 190}, {96, 310}, {192, 550}, {0, 0}};
  for (const auto& c : cases) EXPECT_EQ(kube_reserved_cpu_millicores(c.vcpu), c.reserved_m) << c.vcpu << " vCPU";
}

TEST(Allocatable, MaxPods) {
  EXPECT_EQ(eni_max_pods(3, 10), 29);
  EXPECT_EQ(eni_max_pods(15, 50), 737);
  EXPECT_EQ(eni_max_pods(2, 50), 100);
  EXPECT_EQ(eni_max_pods(3, 6), 17);
  EXPECT_EQ(managed_node_group_max_pods_cap(4), 110);
  EXPECT_EQ(managed_node_group_max_pods_cap(29), 110);
  EXPECT_EQ(managed_node_group_max_pods_cap(30), 250);
  EXPECT_EQ(managed_node_group_max_pods_cap(192), 250);

  NodeShape g5_4x{16, 65126480, 8, 30};
  EXPECT_EQ(effective_max_pods(g5_4x, {}), 234);
  EXPECT_EQ(effective_max_pods(g5_4x, {.managed_node_group_cap = true}), 110);
  NodeShape g5_12x{48, 195766916, 15, 50};
  EXPECT_EQ(effective_max_pods(g5_12x, {.managed_node_group_cap = true}), 250);
  NodeShape g4dn{4, 16069028, 3, 10};
  EXPECT_EQ(effective_max_pods(g4dn, {.managed_node_group_cap = true}), 29) << "the cap only lowers";
  EXPECT_EQ(effective_max_pods(g4dn, {.max_pods = 110, .managed_node_group_cap = true}), 110)
      << "NodeConfig maxPods wins";
}

TEST(Allocatable, MaxPodsOverrideChangesReservedMemory) {
  // NodeConfig maxPods: 110 on a g4dn.xlarge: kube-reserved memory 11*110+255 = 1465Mi.
  NodeShape shape{4, 16069028, 3, 10};
  NodeResources r = node_resources(shape, {.max_pods = 110});
  EXPECT_EQ(r.allocatable.get(kPods), 110);
  EXPECT_EQ(r.kube_reserved.get(kMemory), 1465 * kMiB);
  EXPECT_EQ(format_amount(kMemory, r.allocatable.get(kMemory)), "14466468Ki");  // 16069028-1465*1024-102400
}

TEST(Allocatable, KarpenterVmMemoryOverhead) {
  EXPECT_EQ(karpenter_vm_memory_overhead_mib(16384), 1229);  // ceil(1228.8)
  EXPECT_EQ(karpenter_memory_capacity_bytes(16384), 15155 * kMiB);
  EXPECT_EQ(karpenter_vm_memory_overhead_mib(4096), 308);  // ceil(307.2)
  EXPECT_EQ(karpenter_vm_memory_overhead_mib(16384, 0.0), 0);
  EXPECT_EQ(kube_reserved_memory_mib(29), 574);
  EXPECT_EQ(kube_reserved_memory_mib(58), 893);
}

TEST(Allocatable, NeverNegative) {
  NodeShape tiny{1, 102400, 2, 2};  // 100 MiB of memory
  NodeResources r = node_resources(tiny);
  EXPECT_EQ(r.allocatable.get(kMemory), 0);
  EXPECT_EQ(r.allocatable.get(kCpu), 940);
}

TEST(Allocatable, KubeletConfigurationOverrides) {
  // g4dn.xlarge with podsPerCore 5: min(29, 5 x 4) = 20 pods, and kube-reserved memory follows
  // (11 x 20 + 255 = 475Mi) since kubeReserved sets cpu only.
  NodeShape shape{4, 16069028, 3, 10};
  KubeletOptions o;
  o.pods_per_core = 5;
  o.kube_reserved.set(kCpu, 200);
  o.system_reserved.set(kMemory, 500 * kMiB);
  o.eviction_memory_available_bytes = 200 * kMiB;
  o.eviction_nodefs_available_percent = 15;
  NodeResources r = node_resources(shape, o);
  EXPECT_EQ(r.max_pods, 20);
  EXPECT_EQ(r.kube_reserved.get(kCpu), 200);
  EXPECT_EQ(r.kube_reserved.get(kMemory), 475 * kMiB);
  EXPECT_EQ(r.allocatable.get(kCpu), 3800);
  EXPECT_EQ(r.allocatable.get(kMemory), 16069028LL * 1024 - 475 * kMiB - 500 * kMiB - 200 * kMiB);
  // 15% of the 20 GiB volume's root filesystem through float32, as the kubelet resolves it.
  EXPECT_EQ(r.eviction_hard.get(kEphemeralStorage), eviction_threshold_bytes(root_filesystem_bytes(20), 0.15f));
  EXPECT_EQ(r.allocatable.get(kEphemeralStorage),
            root_filesystem_bytes(20) - kGiB - eviction_threshold_bytes(root_filesystem_bytes(20), 0.15f));
  // maxPods and podsPerCore: the smaller wins.
  o.max_pods = 10;
  EXPECT_EQ(node_resources(shape, o).max_pods, 10);
  o.max_pods = 110;
  EXPECT_EQ(node_resources(shape, o).max_pods, 20);
}

}  // namespace
}  // namespace eksim::k8s
