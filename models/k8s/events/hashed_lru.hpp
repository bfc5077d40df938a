#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace eksim::k8s {

// A least-recently-used cache of at most `capacity` entries, as k8s.io/utils/lru: a lookup or
// insert makes the entry the most recent; inserting past capacity drops the least recent. A cache
// without a capacity grows, and drops entries only through drop_least_recent_while (the
// events.k8s.io recorder's map, which finishes series by age).
// Entries are found by a 64-bit hash of their key and confirmed by the caller's `same` test
// against what the entry points at, so no key text is copied or stored. Entries live in one array
// with index links (the recency list and the hash chains), so a correlator that sees every event
// of a week, most with a new key, allocates nothing once it is full.
template <typename V>
class HashedLru {
 public:
  static constexpr std::size_t kUnbounded = SIZE_MAX;
  explicit HashedLru(std::size_t capacity) : capacity_(std::max<std::size_t>(capacity, 1)) {
    std::size_t buckets = 1;
    while (buckets < 2 * std::min<std::size_t>(capacity_, 512)) buckets *= 2;
    buckets_.assign(buckets, kNone);
  }

  template <typename Same>
  V* get(std::uint64_t hash, Same same) {
    for (std::uint32_t i = buckets_[bucket(hash)]; i != kNone; i = nodes_[i].chain) {
      Node& n = nodes_[i];
      if (n.hash != hash || !same(n.value)) continue;
      unlink(i);
      push_front(i);
      return &n.value;
    }
    return nullptr;
  }
  // Insert for a key get() just missed; `evicted` sees the entry that makes room, if one does.
  template <typename Evicted>
  V& put_new(std::uint64_t hash, V value, Evicted evicted) {
    std::uint32_t i;
    if (!free_.empty()) {
      i = free_.back();
      free_.pop_back();
      nodes_[i].hash = hash;
      nodes_[i].value = std::move(value);
      nodes_[i].live = true;
    } else if (nodes_.size() < capacity_) {
      if (nodes_.size() + 1 > buckets_.size() / 2) rehash(buckets_.size() * 2);
      i = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back(Node{hash, std::move(value)});
    } else {
      i = tail_;  // the least recent makes room
      evicted(nodes_[i].value);
      unlink(i);
      unchain(i);
      nodes_[i].hash = hash;
      nodes_[i].value = std::move(value);
    }
    std::uint32_t& head = buckets_[bucket(hash)];
    nodes_[i].chain = head;
    head = i;
    push_front(i);
    return nodes_[i].value;
  }
  // Drops least recent entries while `expired` holds for the least recent one; `dropped` sees each.
  template <typename Expired, typename Dropped>
  void drop_least_recent_while(Expired expired, Dropped dropped) {
    while (tail_ != kNone && expired(nodes_[tail_].value)) {
      const std::uint32_t i = tail_;
      dropped(nodes_[i].value);
      unlink(i);
      unchain(i);
      nodes_[i].live = false;
      free_.push_back(i);
    }
  }
  template <typename Fn>
  void for_each_value(Fn fn) const {
    for (const Node& n : nodes_)
      if (n.live) fn(n.value);
  }

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  struct Node {
    std::uint64_t hash;
    V value;
    std::uint32_t prev = kNone, next = kNone;  // recency list, most recent first
    std::uint32_t chain = kNone;               // next in the same hash bucket
    bool live = true;                          // false while on the free list
  };
  std::size_t bucket(std::uint64_t hash) const { return (hash ^ (hash >> 29)) & (buckets_.size() - 1); }
  void unlink(std::uint32_t i) {
    Node& n = nodes_[i];
    (n.prev == kNone ? head_ : nodes_[n.prev].next) = n.next;
    (n.next == kNone ? tail_ : nodes_[n.next].prev) = n.prev;
  }
  void push_front(std::uint32_t i) {
    nodes_[i].prev = kNone;
    nodes_[i].next = head_;
    (head_ == kNone ? tail_ : nodes_[head_].prev) = i;
    head_ = i;
  }
  void unchain(std::uint32_t i) {
    std::uint32_t* link = &buckets_[bucket(nodes_[i].hash)];
    while (*link != i) link = &nodes_[*link].chain;
    *link = nodes_[i].chain;
  }
  // Chains are rebuilt in index order: which bucket holds what never changes what get() finds.
  void rehash(std::size_t buckets) {
    buckets_.assign(buckets, kNone);
    for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
      if (!nodes_[i].live) continue;
      std::uint32_t& head = buckets_[bucket(nodes_[i].hash)];
      nodes_[i].chain = head;
      head = i;
    }
  }

  std::size_t capacity_;
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> buckets_;
  std::vector<std::uint32_t> free_;
  std::uint32_t head_ = kNone, tail_ = kNone;
};

}  // namespace eksim::k8s
