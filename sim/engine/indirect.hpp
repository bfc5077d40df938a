#pragma once
// A member held on the heap with value semantics (copies copy the value), as C++26's
// std::indirect: the owner is 8 bytes wide instead of sizeof(T), and reset() frees the value for
// good. For large parts of objects kept by the hundred thousand that are rarely read, such as a
// Job's pod template.
#include <memory>
#include <utility>

namespace eksim::engine {

template <typename T>
class Indirect {
 public:
  Indirect() : p_(std::make_unique<T>()) {}
  Indirect(T value) : p_(std::make_unique<T>(std::move(value))) {}  // NOLINT: converts like a T member
  Indirect(const Indirect& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  Indirect(Indirect&&) noexcept = default;
  Indirect& operator=(const Indirect& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  Indirect& operator=(Indirect&&) noexcept = default;
  Indirect& operator=(T value) {
    p_ = std::make_unique<T>(std::move(value));
    return *this;
  }

  // False only after reset().
  bool has_value() const { return p_ != nullptr; }
  void reset() { p_.reset(); }

  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace eksim::engine
