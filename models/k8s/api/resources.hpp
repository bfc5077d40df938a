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

#include <boost/container/small_vector.hpp>

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

// Resource names are interned: a list holds a small id per name, so the scheduler and the
// autoscalers compare and copy integers, never strings. The five well-known names have fixed ids
// (their known_slot); any other name gets the next free id the first time it is seen. Ids are
// identities only: lists keep their entries in name order, so output never depends on which
// name was seen first (or on which thread of a sweep saw it).
using ResourceId = std::uint16_t;
inline constexpr std::size_t kKnownResources = 5;
// The slot of a well-known resource name (cpu, memory, pods, ephemeral-storage, nvidia.com/gpu)
// in ResourceList's fixed part, which is also its ResourceId, or -1.
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
// The id of a name, interning it (thread-safe). Throws std::length_error past 65,535 names.
ResourceId resource_id(std::string_view name);
// The id of a name already interned, or -1 (a name never seen is in no list).
int find_resource_id(std::string_view name);
const std::string& resource_name(ResourceId id);

// A small sorted map name -> amount. Absent names are zero. Sums and differences saturate at the
// int64 range (engine/saturating.hpp): two containers of `cpu: 5e15` request "more than any node
// has", never a wrapped negative amount that fits everywhere. A saturated sum is not undone
// exactly by subtracting a term again; nothing saturated ever fits a node, so no node's usage
// (the incremental sums that are subtracted from) gets there.
class ResourceList {
 public:
  struct Entry {
    ResourceId id;
    std::int64_t amount;
  };
  // items(): the entries in name order as (name, amount) pairs, for output and for code that
  // works by name; hot paths use get(), known() and the arithmetic below.
  class Items {
   public:
    using value_type = std::pair<const std::string&, std::int64_t>;
    struct iterator {
      const Entry* p;
      value_type operator*() const { return {resource_name(p->id), p->amount}; }
      iterator& operator++() {
        ++p;
        return *this;
      }
      bool operator==(const iterator& o) const { return p == o.p; }
    };
    explicit Items(const ResourceList& l) : l_(l) {}
    iterator begin() const { return {l_.entries_.data()}; }
    iterator end() const { return {l_.entries_.data() + l_.entries_.size()}; }
    std::size_t size() const { return l_.entries_.size(); }
    bool empty() const { return l_.entries_.empty(); }
    value_type operator[](std::size_t i) const { return *iterator{l_.entries_.data() + i}; }

   private:
    const ResourceList& l_;
  };

  ResourceList() = default;
  ResourceList(std::initializer_list<std::pair<std::string, std::int64_t>> items);

  std::int64_t get(std::string_view name) const;
  std::int64_t get(ResourceId id) const {
    if (id < kKnownResources) return known_[id];
    const Entry* e = find(id);
    return e ? e->amount : 0;
  }
  void set(std::string_view name, std::int64_t amount) { set(resource_id(name), amount); }
  void set(ResourceId id, std::int64_t amount);
  void add(std::string_view name, std::int64_t amount) { add(resource_id(name), amount); }
  void add(ResourceId id, std::int64_t amount);
  void sub(ResourceId id, std::int64_t amount);
  bool has(std::string_view name) const;

  ResourceList& operator+=(const ResourceList& o);
  ResourceList& operator-=(const ResourceList& o);
  // Per-resource maximum (used for init containers: the pod needs max(init, sum of app)).
  void max_with(const ResourceList& o);

  Items items() const { return Items(*this); }
  const Entry* begin() const { return entries_.data(); }
  const Entry* end() const { return entries_.data() + entries_.size(); }
  // The amount of a well-known resource by slot (see known_slot), without a name comparison.
  std::int64_t known(int slot) const { return known_[static_cast<std::size_t>(slot)]; }
  bool empty() const { return entries_.empty(); }
  // Absent and zero are the same amount: {} == {cpu: 0}.
  bool operator==(const ResourceList& o) const;

 private:
  const Entry* find(ResourceId id) const {
    for (const Entry& e : entries_)
      if (e.id == id) return &e;
    return nullptr;
  }
  Entry* find(ResourceId id) { return const_cast<Entry*>(std::as_const(*this).find(id)); }
  void insert(ResourceId id, std::int64_t amount);

  // Sorted by name; inline for the usual handful (cpu, memory, pods, ephemeral-storage, a GPU).
  boost::container::small_vector<Entry, 5> entries_;
  // The well-known names' amounts mirrored in fixed slots: get() on the scheduler's hot path
  // reads them without searching (0 when absent, as get() says).
  std::array<std::int64_t, kKnownResources> known_{};
};

}  // namespace eksim::k8s
