#pragma once
// The provisioner's pending pods. Upstream's Batcher hands every pending pod to Solve, which
// sorts them (byCPUAndMemoryDescending) on every pass. Here they stay in that order as they
// arrive, each with its order key and k8s::PodClasses class computed once, so a pass over
// 100,000 pending pods is a walk that drops the bound and deleted ones and merges in the new
// ones: no sort, and no pod's spec or uid read again.
#include <cstdint>
#include <functional>
#include <vector>

#include "models/autoscaling/karpenter/provisioning/scheduling/scheduler.hpp"
#include "models/k8s/api/api_server.hpp"
#include "models/k8s/scheduling/pod_classes.hpp"

namespace eksim::autoscaling::karpenter {

class PendingPods {
 public:
  struct Entry {
    PodOrder order;
    k8s::PodId id;
    std::uint32_t pod_class = kNoPodClass;
  };
  // Which pods to provision for: `joins` tells whether an arrival is one at all; `stays` whether
  // a queued one still is (unbound and Pending: the rest of `joins` reads what cannot change).
  // Once false, false for good (bound, started, deleted): the pod leaves the queue.
  struct Filter {
    std::function<bool(const k8s::PodRecord&)> joins, stays;
  };

  // A pod the API server created: it joins at the next refresh if still pending then.
  void arrived(k8s::PodId id) { arrived_.push_back(id); }
  // Drops the pods no longer pending and takes in the arrivals that are.
  void refresh(const k8s::ApiServer& api, k8s::PodClasses& classes, const Filter& filter);
  // The queue as of the last refresh plus `extra` pods (copies the caller owns: the pods of nodes
  // being deleted, with the ids of the pods they copy), in Solve's order; `ids` gets each one's id.
  OrderedPods ordered(const k8s::ApiServer& api, k8s::PodClasses& classes, const std::vector<k8s::Pod>& extra,
                      const std::vector<k8s::PodId>& extra_ids, std::vector<k8s::PodId>& ids) const;
  // Whether any pod is still pending (drops the ones found not to be on the way).
  bool any(const k8s::ApiServer& api, const Filter& filter);

 private:
  std::vector<Entry> queue_;  // in Solve's order
  std::vector<k8s::PodId> arrived_;
};

}  // namespace eksim::autoscaling::karpenter
