#include "models/k8s/api/resources.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "models/k8s/api/quantity.hpp"
#include "sim/engine/saturating.hpp"

namespace eksim::k8s {

std::int64_t amount_from_milli(std::string_view name, std::int64_t milli) {
  if (name == kCpu) return milli;
  // Round up, as Quantity.Value() does.
  return milli >= 0 ? (milli + 999) / 1000 : -((-milli) / 1000);
}

std::string format_amount(std::string_view name, std::int64_t amount) {
  if (name == kCpu) return format_cpu(amount);
  if (name == kMemory || name == kEphemeralStorage || name.starts_with("hugepages-")) return format_memory(amount);
  return format_count(amount);
}

namespace {
// The names beyond the five well-known ones. Readers of a published id never take the lock: a
// name's slot is written once, before its id is handed out.
class ResourceNames {
 public:
  static ResourceNames& instance() {
    static ResourceNames names;
    return names;
  }
  ResourceId intern(std::string_view name) {
    std::lock_guard lock(mu_);
    auto it = ids_.find(name);
    if (it != ids_.end()) return it->second;
    if (next_ > kMaxId) throw std::length_error("more than 65535 distinct resource names");
    const auto id = static_cast<ResourceId>(next_++);
    auto owned = std::make_unique<std::string>(name);
    names_[id].store(owned.get(), std::memory_order_release);
    ids_.emplace(*owned, id);
    storage_.push_back(std::move(owned));
    return id;
  }
  int find(std::string_view name) {
    std::lock_guard lock(mu_);
    auto it = ids_.find(name);
    return it == ids_.end() ? -1 : it->second;
  }
  const std::string& name(ResourceId id) const { return *names_[id].load(std::memory_order_acquire); }

 private:
  static constexpr std::size_t kMaxId = 65535;
  ResourceNames() {
    for (std::string_view known : {kCpu, kMemory, kPods, kEphemeralStorage, kNvidiaGpu}) intern(known);
  }
  std::mutex mu_;
  std::size_t next_ = 0;
  std::map<std::string, ResourceId, std::less<>> ids_;
  std::vector<std::unique_ptr<std::string>> storage_;
  std::array<std::atomic<const std::string*>, kMaxId + 1> names_{};
};
}  // namespace

ResourceId resource_id(std::string_view name) {
  if (int slot = known_slot(name); slot >= 0) return static_cast<ResourceId>(slot);
  return ResourceNames::instance().intern(name);
}

int find_resource_id(std::string_view name) {
  if (int slot = known_slot(name); slot >= 0) return slot;
  return ResourceNames::instance().find(name);
}

const std::string& resource_name(ResourceId id) { return ResourceNames::instance().name(id); }

ResourceList::ResourceList(std::initializer_list<std::pair<std::string, std::int64_t>> items) {
  for (const auto& [name, amount] : items) set(name, amount);
}

std::int64_t ResourceList::get(std::string_view name) const {
  if (int slot = known_slot(name); slot >= 0) return known_[static_cast<std::size_t>(slot)];
  const int id = find_resource_id(name);
  return id < 0 ? 0 : get(static_cast<ResourceId>(id));
}

bool ResourceList::has(std::string_view name) const {
  const int id = find_resource_id(name);
  return id >= 0 && find(static_cast<ResourceId>(id)) != nullptr;
}

void ResourceList::insert(ResourceId id, std::int64_t amount) {
  if (id < kKnownResources) known_[id] = amount;
  const std::string& name = resource_name(id);
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, const std::string& n) { return resource_name(e.id) < n; });
  entries_.insert(it, Entry{id, amount});
}

void ResourceList::set(ResourceId id, std::int64_t amount) {
  Entry* e = find(id);
  if (!e) return insert(id, amount);
  e->amount = amount;
  if (id < kKnownResources) known_[id] = amount;
}

void ResourceList::add(ResourceId id, std::int64_t amount) {
  Entry* e = find(id);
  if (!e) return insert(id, amount);
  e->amount = engine::sat_add(e->amount, amount);
  if (id < kKnownResources) known_[id] = e->amount;
}

void ResourceList::sub(ResourceId id, std::int64_t amount) {
  // Not add(id, -amount): -INT64_MIN is undefined.
  Entry* e = find(id);
  if (!e) return insert(id, engine::sat_sub(0, amount));
  e->amount = engine::sat_sub(e->amount, amount);
  if (id < kKnownResources) known_[id] = e->amount;
}

ResourceList& ResourceList::operator+=(const ResourceList& o) {
  for (const Entry& oe : o.entries_) add(oe.id, oe.amount);
  return *this;
}

ResourceList& ResourceList::operator-=(const ResourceList& o) {
  for (const Entry& oe : o.entries_) sub(oe.id, oe.amount);
  return *this;
}

bool ResourceList::operator==(const ResourceList& o) const {
  // Both are sorted by name: the same entries in the same order are equal without a search
  // (equal pod specs compared pod by pod, as Cluster Autoscaler's equivalence groups do).
  if (entries_.size() == o.entries_.size() &&
      std::equal(entries_.begin(), entries_.end(), o.entries_.begin(),
                 [](const Entry& a, const Entry& b) { return a.id == b.id && a.amount == b.amount; }))
    return true;
  for (const Entry& e : entries_)
    if (o.get(e.id) != e.amount) return false;
  for (const Entry& e : o.entries_)
    if (get(e.id) != e.amount) return false;
  return true;
}

void ResourceList::max_with(const ResourceList& o) {
  // Karpenter takes this over hundreds of instance types per pod: update in place, and only
  // insert (the sorted, slower path) a name this list does not have.
  for (const Entry& oe : o.entries_) {
    if (Entry* e = find(oe.id)) {
      if (oe.amount <= e->amount) continue;
      e->amount = oe.amount;
      if (oe.id < kKnownResources) known_[oe.id] = oe.amount;
    } else if (oe.amount > 0) {
      insert(oe.id, oe.amount);
    }
  }
}

}  // namespace eksim::k8s
