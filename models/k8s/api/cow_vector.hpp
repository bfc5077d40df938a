#pragma once
// A vector whose copies share one storage until one of them changes (copy-on-write).
//
// The replicas of a template are copies of one PodSpec: 100,000 pods of a Deployment hold the
// same containers and the same admitted tolerations. Sharing them keeps a pod's own memory to
// what differs between replicas. Reads look like a std::vector's; writes go through the
// mutating members below (or mut()), which copy the storage first when another holder shares it.
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace eksim::k8s {

template <class T>
class CowVector {
 public:
  using value_type = T;
  using const_iterator = typename std::vector<T>::const_iterator;
  using iterator = const_iterator;  // reads only: writes go through mut()

  CowVector() = default;
  CowVector(std::vector<T> items) { assign(std::move(items)); }  // NOLINT: as a std::vector converts
  CowVector(std::initializer_list<T> items) : CowVector(std::vector<T>(items)) {}

  const std::vector<T>& get() const { return p_ ? *p_ : empty_list(); }
  operator const std::vector<T>&() const { return get(); }  // NOLINT: reads take a vector

  const_iterator begin() const { return get().begin(); }
  const_iterator end() const { return get().end(); }
  std::size_t size() const { return p_ ? p_->size() : 0; }
  bool empty() const { return size() == 0; }
  const T& operator[](std::size_t i) const { return (*p_)[i]; }
  const T& at(std::size_t i) const { return get().at(i); }
  const T& front() const { return p_->front(); }
  const T& back() const { return p_->back(); }

  // The storage, this holder's own (copied first when shared).
  std::vector<T>& mut() {
    if (!p_) {
      p_ = std::make_shared<std::vector<T>>();
    } else if (p_.use_count() > 1) {
      p_ = std::make_shared<std::vector<T>>(*p_);
    }
    return *p_;
  }
  void push_back(T item) { mut().push_back(std::move(item)); }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    return mut().emplace_back(std::forward<Args>(args)...);
  }
  void clear() { p_.reset(); }

  // Whether both hold the very same storage (so are equal without comparing).
  bool shares_with(const CowVector& o) const { return p_ == o.p_; }
  bool operator==(const CowVector& o) const { return p_ == o.p_ || get() == o.get(); }

 private:
  void assign(std::vector<T> items) {
    if (items.empty()) {
      p_.reset();
    } else {
      p_ = std::make_shared<std::vector<T>>(std::move(items));
    }
  }
  static const std::vector<T>& empty_list() {
    static const std::vector<T> none;
    return none;
  }
  std::shared_ptr<std::vector<T>> p_;  // null: empty
};

}  // namespace eksim::k8s
