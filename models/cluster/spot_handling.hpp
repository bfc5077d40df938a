#pragma once
// How EKS managed node groups handle Spot signals (EKS User Guide, "Managed node groups",
// capacity types, Spot): the node group's ASG has Capacity Rebalancing on, so an EC2 instance
// rebalance recommendation makes the ASG launch a replacement. "When a replacement Spot node is
// bootstrapped and in the Ready state on Kubernetes, Amazon EKS cordons and drains the Spot node
// that received the rebalance recommendation." "If a Spot two-minute interruption notice arrives
// before the replacement Spot node is in a Ready state, Amazon EKS starts draining the Spot node
// that received the rebalance recommendation." Pods of controllers come back on the other nodes.
//
// Nodes outside a managed node group get no such help: EC2 terminates the instance and the
// Node goes with its pods (their owners recreate them). Karpenter subscribes on its own.
#include <map>
#include <memory>
#include <set>
#include <string>

#include "models/aws/spot_interruptions.hpp"

namespace eksim {

class Cluster;

struct EksSpotHandlingOptions {
  // How often EKS looks at the replacement node (not published; node group updates poll alike).
  engine::Duration poll = engine::Duration::seconds(5);
};

class EksSpotHandling {
 public:
  EksSpotHandling(Cluster& cluster, EksSpotHandlingOptions options = {});
  void on_signal(const aws::SpotSignal& signal);

  // At-risk instance -> when its recommendation came (for finding the replacement).
  const std::map<std::string, engine::SimTime>& at_risk() const { return at_risk_; }

 private:
  void watch_replacement(const std::string& instance_id);
  void drain(const std::string& instance_id, bool terminate_when_drained);

  Cluster& c_;
  EksSpotHandlingOptions options_;
  std::map<std::string, engine::SimTime> at_risk_;
  std::set<std::string> draining_;
};

}  // namespace eksim
