#pragma once
// Resource lists as the scheduler and kubelet see them.
//
// Amounts are integers in each resource's canonical unit, as Kubernetes compares them: cpu in
// millicores (Quantity.MilliValue), every other resource in whole base units (bytes for memory and
// ephemeral-storage, counts for pods and extended resources such as nvidia.com/gpu; Quantity.Value
// rounds up).
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace eksim::k8s {

inline constexpr std::string_view kCpu = "cpu";
inline constexpr std::string_view kMemory = "memory";
inline constexpr std::string_view kPods = "pods";
inline constexpr std::string_view kEphemeralStorage = "ephemeral-storage";
inline constexpr std::string_view kNvidiaGpu = "nvidia.com/gpu";

// Converts a parsed quantity (milli-units, see quantity.hpp) to the canonical amount for name.
std::int64_t amount_from_milli(std::string_view name, std::int64_t milli);
// Text as kubectl shows it: cpu "3920m", memory "15378852Ki", others "29".
std::string format_amount(std::string_view name, std::int64_t amount);

// A small sorted map name -> amount. Absent names are zero.
class ResourceList {
 public:
  ResourceList() = default;
  ResourceList(std::initializer_list<std::pair<std::string, std::int64_t>> items);

  std::int64_t get(std::string_view name) const;
  void set(std::string_view name, std::int64_t amount);
  void add(std::string_view name, std::int64_t amount) { set(name, get(name) + amount); }
  bool has(std::string_view name) const;

  ResourceList& operator+=(const ResourceList& o);
  ResourceList& operator-=(const ResourceList& o);
  // Per-resource maximum (used for init containers: the pod needs max(init, sum of app)).
  void max_with(const ResourceList& o);

  const std::vector<std::pair<std::string, std::int64_t>>& items() const { return items_; }
  // The amount of a well-known resource by slot (see known_slot), without a name comparison.
  std::int64_t known(int slot) const { return known_[static_cast<std::size_t>(slot)]; }
  bool empty() const { return items_.empty(); }
  // Absent and zero are the same amount: {} == {cpu: 0}.
  bool operator==(const ResourceList& o) const;

 private:
  std::vector<std::pair<std::string, std::int64_t>> items_;  // sorted by name
  // The well-known names' amounts mirrored in fixed slots: get() on the scheduler's hot path
  // reads them without searching (0 when absent, as get() says).
  std::array<std::int64_t, 5> known_{};
};

// The slot of a well-known resource name (cpu, memory, pods, ephemeral-storage, nvidia.com/gpu)
// in ResourceList's fixed part, or -1.
inline int known_slot(std::string_view name) {
  switch (name.size()) {
    case 3: return name == kCpu ? 0 : -1;
    case 6: return name == kMemory ? 1 : -1;
    case 4: return name == kPods ? 2 : -1;
    case 17: return name == kEphemeralStorage ? 3 : -1;
    case 14: return name == kNvidiaGpu ? 4 : -1;
    default: return -1;
  }
}

}  // namespace eksim::k8s
