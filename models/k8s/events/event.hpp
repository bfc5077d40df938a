#pragma once
// What the event log holds: Kubernetes Events as the API server stores them (kubectl get events),
// and eksim's hints beside them (never Events).
#include <string>

#include "sim/engine/time.hpp"

namespace eksim::k8s {

enum class EventType { Normal, Warning };
const char* to_string(EventType t);

// The object an event is about, as `kubectl get events` shows it (kind/namespace/name).
struct ObjectRef {
  std::string kind;
  std::string ns;  // empty for cluster-scoped objects (Node, NodePool, NodeClaim)
  std::string name;
  // "Pod/default/gpu-pod", "Node/ip-10-0-1-2.ec2.internal"
  std::string str() const;
  bool operator==(const ObjectRef&) const = default;
};

struct Event {
  engine::SimTime time;  // when it happened; for a correlated Event, its firstTimestamp
  EventType type = EventType::Normal;
  std::string reason;
  ObjectRef object;
  std::string message;
  std::string source;  // reporting component: default-scheduler, kubelet, cluster-autoscaler, karpenter, ...
  // Occurrences folded into this Event, as the Kubernetes event recorder counts them ("x6 over
  // 3m21s"): the recorder's count when it last wrote the Event, so a series the spam filter holds
  // back jumps by the occurrences it skipped. 0: the API server has no such Event yet (the spam
  // filter skipped every occurrence so far); it is not listed. On an occurrence, the recorder's
  // count just after it, written or not.
  int count = 1;
  // On an occurrence: the count of its Event in the API server just after it (0: not written
  // yet), what `kubectl describe` would show then. Unused on a series Event.
  int stored_count = 0;
  engine::SimTime last_time;  // lastTimestamp of a correlated Event
};

// eksim's own remark about the scenario: a trap the user fell into that the real cluster and AWS
// keep silent about (a Terraform key the module ignores, a desired size it does not apply), or a
// limit of the model. Never an Event: the timeline holds only what the real systems would show;
// hints are printed after it (HINTS) and reported as `hints` in the JSON.
struct Hint {
  engine::SimTime time;
  std::string kind;  // short code: IgnoredNodeGroupKey, DesiredSizeIgnored, ...
  ObjectRef object;
  std::string message;
};

}  // namespace eksim::k8s
