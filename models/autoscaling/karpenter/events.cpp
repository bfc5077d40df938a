// Karpenter's event recorder (pkg/events).
#include "models/autoscaling/karpenter/events.hpp"

namespace eksim::autoscaling::karpenter {

using engine::Duration;
using k8s::EventType;
using engine::SimTime;

void Recorder::publish(EventType type, const std::string& reason, const k8s::ObjectRef& obj, const std::string& msg,
                       Duration dedupe) {
  if (dedupe.us > 0) {
    std::string key = obj.str() + "|" + reason;
    auto [it, added] = dedupe_.try_emplace(std::move(key), world_.sim.now());
    if (!added) {
      if (world_.sim.now() - it->second < dedupe) return;
      it->second = world_.sim.now();
    }
  }
  world_.api.emit(type, reason, obj, msg, source_);
}

SimTime Recorder::publish(const PodEvent& e) {
  // NominatePodEvent dedupes for the recorder's default 2 minutes, PodFailedToScheduleEvent for 5.
  const Duration window = e.failed ? Duration::minutes(5) : Duration::minutes(2);
  const SimTime now = world_.sim.now();
  auto [it, added] = pod_dedupe_.try_emplace((std::uint64_t{e.pod.v} << 1) | (e.failed ? 1u : 0u), now);
  if (!added) {
    if (now - it->second < window) return it->second + window;
    it->second = now;
  }
  // The dedupe cache is Karpenter's own, in front of client-go's recorder: an event the
  // broadcaster's queue then drops still counts as published.
  if (world_.log.accepts(source_, now))
    world_.api.emit(e.failed ? EventType::Warning : EventType::Normal, e.failed ? "FailedScheduling" : "Nominated",
                    k8s::ApiServer::ref(world_.api.pod(e.pod).pod), *e.message, source_);
  return now + window;
}

void Recorder::forget_pod(k8s::PodId id) {
  pod_dedupe_.erase(std::uint64_t{id.v} << 1);
  pod_dedupe_.erase((std::uint64_t{id.v} << 1) | 1u);
}

}  // namespace eksim::autoscaling::karpenter
