#pragma once
// Karpenter's event recorder (pkg/events): events deduped by object and reason for a window
// before any text reaches client-go's recorder, and the provisioner's pod events (Nominated,
// FailedScheduling) deduped by pod UID.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "models/cluster/cluster.hpp"

namespace eksim::autoscaling::karpenter {

// The provisioner's event about a pod (events.NominatePodEvent, PodFailedToScheduleEvent).
struct PodEvent {
  k8s::PodId pod;
  bool failed = false;  // FailedScheduling (Warning), else Nominated (Normal)
  // Shared by the pods of a pass that get the same text (all pods of a class that fit
  // nowhere): a pass over 100,000 pending pods keeps a few texts, not one each.
  std::shared_ptr<const std::string> message;
};

class Recorder {
 public:
  Recorder(eksim::Cluster& world, const char* source) : world_(world), source_(source) {}
  const char* source() const { return source_; }
  // Publishes the event unless the same object and reason published one less than `dedupe`
  // ago (zero: no dedupe).
  void publish(k8s::EventType type, const std::string& reason, const k8s::ObjectRef& obj, const std::string& msg,
               engine::Duration dedupe = engine::Duration{});
  // Deduped by pod UID and reason for the recorder's window, then queued through client-go's
  // broadcaster. Returns when the same event could be published again.
  engine::SimTime publish(const PodEvent& e);
  // The pod is gone, and its UID with it.
  void forget_pod(k8s::PodId id);

 private:
  eksim::Cluster& world_;
  const char* source_;
  std::unordered_map<std::string, engine::SimTime> dedupe_;        // "<object>|<reason>" -> when published
  std::unordered_map<std::uint64_t, engine::SimTime> pod_dedupe_;  // (PodId, reason) -> when published
};

}  // namespace eksim::autoscaling::karpenter
