#include "models/aws/spot_interruptions.hpp"

#include <algorithm>
#include <utility>

namespace eksim::aws {

std::string cause_health_check_terminated(std::string_view at) {
  return "At " + std::string(at) +
         " an instance was taken out of service in response to an EC2 health check indicating it has been terminated "
         "or stopped.";
}

std::string cause_unhealthy_instance_replaced(std::string_view at) {
  return "At " + std::string(at) + " an instance was launched in response to an unhealthy instance needing to be replaced.";
}

const char* to_string(SpotSignalKind kind) {
  switch (kind) {
    case SpotSignalKind::RebalanceRecommendation: return kRebalanceRecommendationDetailType;
    case SpotSignalKind::InterruptionWarning: return kSpotInterruptionWarningDetailType;
    case SpotSignalKind::Interrupted: return kSpotStateReasonCode;
  }
  return "";
}

std::string event_detail_json(SpotSignalKind kind, std::string_view instance_id) {
  std::string out = "{\"instance-id\": \"" + std::string(instance_id) + "\"";
  if (kind == SpotSignalKind::InterruptionWarning) out += ", \"instance-action\": \"terminate\"";
  return out + "}";
}

SpotInterruptions::SpotInterruptions(engine::Simulator& sim, engine::RngStreams& rng, Ec2& ec2)
    : sim_(sim), rng_(rng), ec2_(ec2) {
  ec2_.on_running.push_back([this](Instance& i) { on_running(i); });
}

std::string SpotInterruptions::stream_name(std::string_view instance_type, std::string_view az) {
  return "ec2/spot/" + std::string(instance_type) + "/" + std::string(az);
}

void SpotInterruptions::set_rate(std::string_view instance_type, std::string_view az, SpotPoolRate rate) {
  rates_[{std::string(instance_type), std::string(az)}] = rate;
}

const SpotPoolRate* SpotInterruptions::rate(std::string_view instance_type, std::string_view az) const {
  auto it = rates_.find(std::tuple<std::string, std::string>{std::string(instance_type), std::string(az)});
  return it == rates_.end() ? nullptr : &it->second;
}

bool SpotInterruptions::still_running(const std::string& id) const {
  const Instance* inst = std::as_const(ec2_).find(id);
  return inst && inst->state == InstanceState::Running;
}

void SpotInterruptions::on_running(Instance& inst) {
  if (!inst.spot) return;
  const SpotPoolRate* r = rate(inst.type->name, inst.az);
  if (!r || r->interruptions_per_hour <= 0) return;
  // One draw per instance from the pool's stream, in the order the pool's instances start.
  double mean_s = 3600.0 / r->interruptions_per_hour;
  double after_s = rng_.get(stream_name(inst.type->name, inst.az)).exponential(mean_s);
  engine::SimTime warning_at = sim_.now() + engine::Duration::from_seconds(after_s);
  engine::SimTime rebalance_at = warning_at - r->rebalance_lead;
  if (rebalance_at < sim_.now()) rebalance_at = sim_.now();
  interrupt(inst.id, rebalance_at, warning_at);
}

std::optional<std::string> SpotInterruptions::interrupt(const std::string& id, engine::SimTime rebalance_at,
                                                        engine::SimTime warning_at) {
  Instance* inst = ec2_.find(id);
  if (!inst) return "The instance ID '" + id + "' does not exist";
  if (!inst->spot) return "instance " + id + " is not a Spot Instance";
  if (inst->state != InstanceState::Running)
    return "instance " + id + " is " + std::string(to_string(inst->state)) + ", not running";
  if (rebalance_at > warning_at) rebalance_at = warning_at;
  if (auto it = planned_.find(id); it != planned_.end()) {
    sim_.cancel(it->second.rebalance);
    sim_.cancel(it->second.warning);
    sim_.cancel(it->second.termination);
    planned_.erase(it);
  }
  Planned p;
  p.interruption_time = warning_at + kSpotInterruptionNotice;
  engine::SimTime when = p.interruption_time;
  // Scheduled now, in this order, so that at equal times the recommendation precedes the warning
  // and both precede anyone else's reaction scheduled later for the same instant.
  p.rebalance = sim_.schedule_at(rebalance_at, [this, id, when] {
    if (still_running(id)) send(SpotSignalKind::RebalanceRecommendation, id, when);
  });
  p.warning = sim_.schedule_at(warning_at, [this, id, when] {
    if (still_running(id)) send(SpotSignalKind::InterruptionWarning, id, when);
  });
  p.termination = sim_.schedule_at(when, [this, id, when] {
    planned_.erase(id);
    Instance* i = ec2_.find(id);
    if (!i || i->state == InstanceState::ShuttingDown || i->state == InstanceState::Terminated) return;
    i->state_reason = kSpotStateReasonMessage;
    send(SpotSignalKind::Interrupted, id, when);
    ec2_.terminate(id);
  });
  planned_[id] = p;
  return std::nullopt;
}

std::optional<std::string> SpotInterruptions::send_spot_instance_interruption(const std::string& id,
                                                                              engine::Duration before) {
  before = std::clamp(before, kSpotInterruptionNotice, kMaxDurationBeforeInterruption);
  engine::SimTime now = sim_.now();
  return interrupt(id, now, now + (before - kSpotInterruptionNotice));
}

std::optional<engine::SimTime> SpotInterruptions::planned_interruption(const std::string& id) const {
  auto it = planned_.find(id);
  if (it == planned_.end()) return std::nullopt;
  return it->second.interruption_time;
}

void SpotInterruptions::send(SpotSignalKind kind, const std::string& id, engine::SimTime interruption_time) {
  SpotSignal s{kind, id, sim_.now(), interruption_time};
  signals_.push_back(s);
  if (kind != SpotSignalKind::Interrupted && event_bridge) event_bridge(s, to_string(kind), event_detail_json(kind, id));
  for (auto& fn : listeners) fn(s);
}

}  // namespace eksim::aws
