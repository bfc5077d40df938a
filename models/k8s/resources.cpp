#include "models/k8s/resources.hpp"

#include <cstring>

#include <algorithm>

#include "models/k8s/quantity.hpp"

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

ResourceList::ResourceList(std::initializer_list<std::pair<std::string, std::int64_t>> items) {
  for (const auto& [name, amount] : items) set(name, amount);
}

namespace {
// Lists hold a handful of names that mostly differ in length ("cpu", "pods", "memory",
// "nvidia.com/gpu"): a linear scan comparing the length first beats a binary search of string
// comparisons on the scheduler's hot path.
template <typename Items>
auto* find_item(Items& items, std::string_view name) {
  for (auto& item : items)
    if (item.first.size() == name.size() && std::memcmp(item.first.data(), name.data(), name.size()) == 0) return &item;
  return static_cast<decltype(&items[0])>(nullptr);
}
}  // namespace

std::int64_t ResourceList::get(std::string_view name) const {
  if (int slot = known_slot(name); slot >= 0) return known_[static_cast<std::size_t>(slot)];
  const auto* item = find_item(items_, name);
  return item ? item->second : 0;
}

bool ResourceList::has(std::string_view name) const { return find_item(items_, name) != nullptr; }

void ResourceList::set(std::string_view name, std::int64_t amount) {
  if (int slot = known_slot(name); slot >= 0) known_[static_cast<std::size_t>(slot)] = amount;
  auto it = std::lower_bound(items_.begin(), items_.end(), name,
                             [](const auto& item, std::string_view n) { return item.first < n; });
  if (it != items_.end() && it->first == name)
    it->second = amount;
  else
    items_.insert(it, {std::string(name), amount});
}

ResourceList& ResourceList::operator+=(const ResourceList& o) {
  for (const auto& [name, amount] : o.items_) {
    if (auto* item = find_item(items_, name)) {
      item->second += amount;
      if (int slot = known_slot(name); slot >= 0) known_[static_cast<std::size_t>(slot)] = item->second;
    } else {
      set(name, amount);
    }
  }
  return *this;
}

ResourceList& ResourceList::operator-=(const ResourceList& o) {
  for (const auto& [name, amount] : o.items_) add(name, -amount);
  return *this;
}

bool ResourceList::operator==(const ResourceList& o) const {
  for (const auto& [name, amount] : items_)
    if (o.get(name) != amount) return false;
  for (const auto& [name, amount] : o.items_)
    if (get(name) != amount) return false;
  return true;
}

void ResourceList::max_with(const ResourceList& o) {
  // Karpenter takes this over hundreds of instance types per pod: update in place, and only
  // insert (the sorted, slower path) a name this list does not have.
  for (const auto& [name, amount] : o.items_) {
    if (auto* item = find_item(items_, name)) {
      if (amount <= item->second) continue;
      item->second = amount;
      if (int slot = known_slot(name); slot >= 0) known_[static_cast<std::size_t>(slot)] = amount;
    } else if (amount > 0) {
      set(name, amount);
    }
  }
}

}  // namespace eksim::k8s
