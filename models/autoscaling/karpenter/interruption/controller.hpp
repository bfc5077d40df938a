#pragma once
// Interruption (karpenter-provider-aws pkg/controllers/interruption): the messages EventBridge
// puts on the SQS queue. A Spot interruption warning cordons and drains the node before EC2
// takes the instance; a rebalance recommendation is only recorded.
#include <string>

#include "models/autoscaling/karpenter/context.hpp"
#include "models/autoscaling/karpenter/node/termination/terminator.hpp"

namespace eksim::autoscaling::karpenter {

class Interruption {
 public:
  Interruption(Context& ctx, Terminator& termination) : ctx_(ctx), termination_(termination) {}
  // EC2 Spot Instance Interruption Warning for an instance: the two-minute notice.
  void spot_interruption(const std::string& instance_id);
  // EC2 Instance Rebalance Recommendation (events SpotRebalanceRecommendation).
  void rebalance_recommendation(const std::string& instance_id);

 private:
  Context& ctx_;
  Terminator& termination_;
};

}  // namespace eksim::autoscaling::karpenter
