#include "models/autoscaling/karpenter/provisioning/pending_pods.hpp"

#include <algorithm>

namespace eksim::autoscaling::karpenter {

namespace {

std::uint32_t class_of(const std::optional<std::uint32_t>& c) { return c ? *c : kNoPodClass; }

}  // namespace

void PendingPods::refresh(const k8s::ApiServer& api, k8s::PodClasses& classes, const Filter& filter) {
  std::erase_if(queue_, [&](const Entry& e) { return !filter.stays(api.pod(e.id)); });
  if (arrived_.empty()) return;
  const std::size_t old = queue_.size();
  for (k8s::PodId id : arrived_) {
    const k8s::PodRecord& r = api.pod(id);
    if (filter.joins(r)) queue_.push_back(Entry{PodOrder::of(r.pod), id, class_of(classes.of(r.pod, r.template_id))});
  }
  arrived_.clear();
  auto before = [&api](const Entry& a, const Entry& b) {
    return goes_before(a.order, api.pod(a.id).pod, b.order, api.pod(b.id).pod);
  };
  std::sort(queue_.begin() + static_cast<std::ptrdiff_t>(old), queue_.end(), before);
  std::inplace_merge(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(old), queue_.end(), before);
}

bool PendingPods::any(const k8s::ApiServer& api, const Filter& filter) {
  // The first pod still pending ends each walk; the ones before it are gone for good.
  auto arrival = std::find_if(arrived_.begin(), arrived_.end(), [&](k8s::PodId id) { return filter.joins(api.pod(id)); });
  const bool arrival_pending = arrival != arrived_.end();
  arrived_.erase(arrived_.begin(), arrival);
  if (arrival_pending) return true;
  auto queued = std::find_if(queue_.begin(), queue_.end(), [&](const Entry& e) { return filter.stays(api.pod(e.id)); });
  const bool queued_pending = queued != queue_.end();
  queue_.erase(queue_.begin(), queued);
  return queued_pending;
}

OrderedPods PendingPods::ordered(const k8s::ApiServer& api, k8s::PodClasses& classes,
                                 const std::vector<k8s::Pod>& extra, const std::vector<k8s::PodId>& extra_ids,
                                 std::vector<k8s::PodId>& ids) const {
  struct Extra {
    PodOrder order;
    std::size_t i;
  };
  std::vector<Extra> more;
  more.reserve(extra.size());
  for (std::size_t i = 0; i < extra.size(); ++i) more.push_back(Extra{PodOrder::of(extra[i]), i});
  std::sort(more.begin(), more.end(), [&](const Extra& a, const Extra& b) {
    return goes_before(a.order, extra[a.i], b.order, extra[b.i]);
  });
  OrderedPods out;
  const std::size_t n = queue_.size() + more.size();
  out.pods.reserve(n);
  out.classes.reserve(n);
  ids.clear();
  ids.reserve(n);
  auto q = queue_.begin();
  auto m = more.begin();
  while (q != queue_.end() || m != more.end()) {
    // Pods are never equal in this order (their uids differ).
    const bool take_extra = q == queue_.end() ||
                            (m != more.end() && goes_before(m->order, extra[m->i], q->order, api.pod(q->id).pod));
    if (take_extra) {
      out.pods.push_back(&extra[m->i]);
      out.classes.push_back(class_of(classes.of(extra[m->i])));
      ids.push_back(extra_ids[m->i]);
      ++m;
    } else {
      out.pods.push_back(&api.pod(q->id).pod);
      out.classes.push_back(q->pod_class);
      ids.push_back(q->id);
      ++q;
    }
  }
  return out;
}

}  // namespace eksim::autoscaling::karpenter
