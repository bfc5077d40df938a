#pragma once
// The event log is the product: what a student compares with `kubectl get events` and the
// Auto Scaling console. It stores Kubernetes-style events and AWS activities in the order they
// happened. It knows nothing about which component wrote them.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/engine/time.hpp"

namespace eksim::engine {

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
  SimTime time;
  EventType type = EventType::Normal;
  std::string reason;
  ObjectRef object;
  std::string message;
  std::string source;  // reporting component: default-scheduler, kubelet, cluster-autoscaler, karpenter, ...
  // 1 for the first occurrence of (object, reason, message); counts repeats as the
  // Kubernetes event recorder aggregates them ("x6 over 3m21s").
  int count = 1;
};

// An AWS-side record: an Auto Scaling scaling activity, an EKS update, an EC2 API error.
struct Activity {
  SimTime start;
  SimTime end;
  std::string service;   // "autoscaling", "eks", "ec2"
  std::string resource;  // ASG or node group name
  std::string status;    // Successful, Failed, InProgress, Cancelled
  std::string description;
  std::string cause;
  std::string status_message;
};

class EventLog {
 public:
  void record(Event e);
  void record(SimTime time, EventType type, std::string reason, ObjectRef object, std::string message,
              std::string source);
  void record_activity(Activity a) { activities_.push_back(std::move(a)); }

  const std::vector<Event>& events() const { return events_; }
  const std::vector<Activity>& activities() const { return activities_; }
  std::vector<Activity>& activities() { return activities_; }

 private:
  std::vector<Event> events_;
  std::vector<Activity> activities_;
  std::unordered_map<std::string, int> series_;  // object/reason/message -> occurrences
};

}  // namespace eksim::engine
