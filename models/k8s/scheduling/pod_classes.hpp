#pragma once
// Pod equivalence classes for the filters: pods the kube-scheduler's filters judge alike on any
// node. Karpenter's scheduling simulations answer "the first node this pod fits" per class, and
// the scheduling queue asks a queueing hint once per class instead of once per pending pod.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/k8s/api/objects.hpp"

namespace eksim::k8s {

// The counter of an API server uid (ApiServer::new_uid: "00000000-0000-4000-8000-" and 12 hex
// digits), or -1 for any other uid. Two such uids compare as strings as their counters compare.
std::int64_t uid_serial(const std::string& uid);

// Pods that the kube-scheduler filters judge alike: same requests, tolerations, nodeSelector and
// required node affinity, and nothing that looks beyond the node (no topology spread, no pod
// (anti-)affinity, no host ports). Such a pod fits a node exactly when its class's
// representative (an unbound copy of the first pod seen) does.
class PodClasses {
 public:
  // The pod's class, or nullopt when the pod has constraints a class cannot capture.
  std::optional<std::uint32_t> of(const Pod& pod);
  // The same for a pod of the API server, by its PodRecord::template_id: pods of one template
  // share their spec up to nodeName, which no class reads, so 100,000 replicas build one key.
  std::optional<std::uint32_t> of(const Pod& pod, std::uint32_t template_id);
  const Pod& representative(std::uint32_t c) const { return reps_[c]; }
  std::size_t size() const { return reps_.size(); }
  // Drops the uid -> class memo of a deleted pod.
  void forget(const std::string& uid);

 private:
  static constexpr std::uint32_t kNone = UINT32_MAX, kUnknown = UINT32_MAX - 1;
  // The memo of a uid: by the API server's serial (uids are "00000000-0000-4000-8000-" and a
  // 12-digit hex counter) in a vector, any other uid in a map.
  std::uint32_t* memo(const std::string& uid, bool create);
  std::vector<std::uint32_t> by_serial_;
  std::unordered_map<std::string, std::uint32_t> by_uid_;  // class, or kNone
  std::unordered_map<std::string, std::uint32_t> by_key_;
  std::unordered_map<std::uint32_t, std::uint32_t> by_template_;  // class, or kNone
  std::deque<Pod> reps_;
};

}  // namespace eksim::k8s
