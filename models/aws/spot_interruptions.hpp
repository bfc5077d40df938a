#pragma once
// EC2 Spot interruptions. EC2 reclaims a running Spot Instance in three steps, each published on
// EventBridge (source "aws.ec2"):
//   1. "EC2 Instance Rebalance Recommendation": the instance is at elevated risk. It "can arrive
//      sooner than the two-minute Spot Instance interruption notice" and "can arrive along with"
//      it (EC2 User Guide, "EC2 instance rebalance recommendations"). Before an interruption EC2
//      always sends both (EC2 Auto Scaling User Guide, "Capacity Rebalancing").
//   2. "EC2 Spot Instance Interruption Warning", detail {"instance-id", "instance-action":
//      "terminate"}, "two minutes prior to the actual interruption" (EC2 User Guide, "Spot
//      Instance interruption notices").
//   3. EC2 terminates the instance; its StateReason is Server.SpotInstanceTermination.
//
// Interruptions come from two places: a rate per capacity pool (instance type, AZ) that a
// scenario sets, drawn from the pool's own RNG stream "ec2/spot/<type>/<az>" so that adding a
// pool or a draw elsewhere never moves these times; and explicit requests (the timeline action
// ec2.send-spot-instance-interruptions, after AWS FIS's aws:ec2:send-spot-instance-interruptions).
//
// EC2 knows nobody who reacts: the ASG, EKS and Karpenter subscribe to `listeners`, which are
// called in subscription order for every signal, after `event_bridge` has seen the event EC2
// publishes (the cluster logs it).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "models/aws/ec2.hpp"

namespace eksim::aws {

// EventBridge detail-types and source, as EC2 publishes them.
inline constexpr const char* kRebalanceRecommendationDetailType = "EC2 Instance Rebalance Recommendation";
inline constexpr const char* kSpotInterruptionWarningDetailType = "EC2 Spot Instance Interruption Warning";
inline constexpr const char* kEc2EventSource = "aws.ec2";
// Source: EC2 User Guide, "Spot Instance interruption notices": the warning comes two minutes
// before EC2 stops or terminates the instance.
inline constexpr engine::Duration kSpotInterruptionNotice = engine::Duration::minutes(2);
// Longest lead AWS FIS accepts for durationBeforeInterruption (2 to 15 minutes).
inline constexpr engine::Duration kMaxDurationBeforeInterruption = engine::Duration::minutes(15);
// DescribeInstances StateReason of an interrupted Spot Instance.
inline constexpr const char* kSpotStateReasonCode = "Server.SpotInstanceTermination";
inline constexpr const char* kSpotStateReasonMessage = "Server.SpotInstanceTermination: Spot instance termination";

// Auto Scaling activity causes around an instance EC2 took away (AWS knowledge center, "Why did
// Amazon EC2 Auto Scaling terminate an instance?", and users' activity histories):
// "At T an instance was taken out of service in response to an EC2 health check indicating it
//  has been terminated or stopped."
std::string cause_health_check_terminated(std::string_view at);
// "At T an instance was launched in response to an unhealthy instance needing to be replaced."
std::string cause_unhealthy_instance_replaced(std::string_view at);

enum class SpotSignalKind { RebalanceRecommendation, InterruptionWarning, Interrupted };
const char* to_string(SpotSignalKind kind);

struct SpotSignal {
  SpotSignalKind kind = SpotSignalKind::InterruptionWarning;
  std::string instance_id;
  engine::SimTime time;               // when the signal is sent
  engine::SimTime interruption_time;  // when EC2 terminates the instance
};

// A pool's interruption rate: a running Spot Instance of the pool gets its warning after an
// exponentially distributed time with mean 1 h / interruptions_per_hour (a Poisson process per
// instance). The rebalance recommendation comes rebalance_lead before the warning (0: with it).
struct SpotPoolRate {
  double interruptions_per_hour = 0;
  engine::Duration rebalance_lead{};
};

// The EventBridge detail of a signal as JSON: {"instance-id": "i-...", "instance-action": "terminate"}
// for the warning, {"instance-id": "i-..."} for the rebalance recommendation.
std::string event_detail_json(SpotSignalKind kind, std::string_view instance_id);

class SpotInterruptions {
 public:
  SpotInterruptions(engine::Simulator& sim, engine::RngStreams& rng, Ec2& ec2);

  // Rate for a pool; 0 turns it off. Instances already running are not drawn again.
  void set_rate(std::string_view instance_type, std::string_view az, SpotPoolRate rate);
  const SpotPoolRate* rate(std::string_view instance_type, std::string_view az) const;
  static std::string stream_name(std::string_view instance_type, std::string_view az);

  // Interrupts a running Spot Instance: the rebalance recommendation at rebalance_at, the warning
  // at warning_at (>= rebalance_at), termination two minutes after the warning. Replaces an
  // interruption already planned for the instance. Returns an error text (the instance is
  // unknown, not Spot, or not running) or nullopt.
  std::optional<std::string> interrupt(const std::string& instance_id, engine::SimTime rebalance_at,
                                       engine::SimTime warning_at);
  // AWS FIS semantics: the rebalance recommendation now, the warning two minutes before the
  // interruption, the interruption after duration_before_interruption (clamped to 2..15 min).
  std::optional<std::string> send_spot_instance_interruption(const std::string& instance_id,
                                                             engine::Duration duration_before_interruption);

  // When the instance's planned interruption happens (termination), if one is planned.
  std::optional<engine::SimTime> planned_interruption(const std::string& instance_id) const;
  // Every signal sent so far, in order.
  const std::vector<SpotSignal>& signals() const { return signals_; }

  std::vector<std::function<void(const SpotSignal&)>> listeners;
  // The EventBridge event of a rebalance recommendation or an interruption warning (detail-type,
  // instance, detail JSON), before the listeners hear the signal.
  std::function<void(const SpotSignal&, std::string_view detail_type, std::string detail)> event_bridge;

 private:
  struct Planned {
    engine::EventId rebalance, warning, termination;
    engine::SimTime interruption_time;
  };
  void on_running(Instance& inst);
  void send(SpotSignalKind kind, const std::string& instance_id, engine::SimTime interruption_time);
  bool still_running(const std::string& instance_id) const;

  engine::Simulator& sim_;
  engine::RngStreams& rng_;
  Ec2& ec2_;
  std::map<std::tuple<std::string, std::string>, SpotPoolRate, std::less<>> rates_;
  std::map<std::string, Planned> planned_;
  std::vector<SpotSignal> signals_;
};

}  // namespace eksim::aws
