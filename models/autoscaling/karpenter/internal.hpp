#pragma once
// Helpers and constants the Karpenter controller's files share (not part of the model's API).
#include <algorithm>
#include <string>
#include <vector>

#include "models/autoscaling/karpenter/nodepool.hpp"
#include "models/autoscaling/karpenter/provisioning/scheduling/scheduler.hpp"
#include "models/k8s/kubelet/node_lifecycle.hpp"
#include "models/k8s/api/pod_factory.hpp"
#include "models/k8s/events/event_log.hpp"

namespace eksim::autoscaling::karpenter::detail {

using engine::Duration;
using k8s::EventType;
using engine::SimTime;

// Karpenter's poll and validation periods (pkg/controllers/disruption: 10 s poll, 15 s
// consolidation TTL before a command executes); liveness registrationTimeout 15 m.
inline constexpr Duration kDisruptionPoll = Duration::seconds(10);
inline constexpr Duration kValidationTtl = Duration::seconds(15);
inline constexpr Duration kRegistrationTimeout = Duration::minutes(15);
inline constexpr Duration kSpotNotice = Duration::minutes(2);
// CreateFleet takes at most 60 instance type overrides (karpenter-provider-aws MaxInstanceTypes).
inline constexpr std::size_t kMaxInstanceTypes = 60;

inline k8s::ObjectRef claim_ref(const std::string& name) { return {"NodeClaim", "", name}; }
inline k8s::ObjectRef pool_ref(const std::string& name) { return {"NodePool", "", name}; }

inline bool has_taint(const std::vector<k8s::Taint>& ts, const std::string& key) {
  return std::any_of(ts.begin(), ts.end(), [&](const k8s::Taint& t) { return t.key == key; });
}

// Pods a drain moves: active, not owned by a DaemonSet.
inline bool reschedulable(const k8s::PodRecord& r) { return k8s::pod_active(r) && !k8s::is_daemonset_pod(r.pod); }

// A bound pod as a disruption simulation reschedules it: without its nodeName (the NodeName
// filter would pin it to the node being removed).
inline k8s::Pod unbound(const k8s::Pod& p) {
  k8s::Pod copy = p;
  copy.spec.node_name.clear();
  return copy;
}

// SimulateScheduling (disruption/helpers.go): a candidate's pod that would land on a node not yet
// initialized is a pod error ("would schedule against uninitialized nodeclaim/..."): disruption
// does not rely on capacity still starting (e.g. a NodeClaim in flight for a pending pod).
inline bool relies_on_uninitialized(const SchedulingResults& r, const ExistingNodes& nodes) {
  return std::any_of(r.existing.begin(), r.existing.end(), [&](const auto& e) { return !nodes.base(e.second).initialized; });
}

// "underutilized" -> "Underutilized" for event texts.
inline std::string title(const std::string& reason) {
  std::string s = reason;
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

}  // namespace eksim::autoscaling::karpenter::detail
