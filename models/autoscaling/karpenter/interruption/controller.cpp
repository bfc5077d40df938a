// Interruption (karpenter-provider-aws pkg/controllers/interruption): Spot interruption warnings
// and rebalance recommendations from the SQS queue.
#include "models/autoscaling/karpenter/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

void Controller::spot_interruption(const std::string& instance_id) {
  NodeClaimState* c = claim_by_instance(instance_id);
  if (!c || c->phase == NodeClaimPhase::Deleted) return;
  const std::string msg = "Spot interruption warning was triggered";
  event(EventType::Warning, "SpotInterrupted", claim_ref(c->name), msg);
  if (!c->node_name.empty()) event(EventType::Warning, "SpotInterrupted", {"Node", "", c->node_name}, msg);
  event(EventType::Warning, "TerminatingOnInterruption", claim_ref(c->name), "Interruption triggered termination for the NodeClaim");
  if (!c->node_name.empty())
    event(EventType::Warning, "TerminatingOnInterruption", {"Node", "", c->node_name}, "Interruption triggered termination for the Node");
  if (c->capacity_type == "spot") ice_.mark(c->instance_type, c->zone, "spot", c_.sim.now());
  log_interruption(*c);
  delete_claim(*c, "Interrupted", true);
  // EC2 reclaims the instance at the end of the notice whether or not the drain finished.
  std::string id = instance_id;
  c_.sim.schedule(kSpotNotice, [this, id] {
    aws::Instance* inst = c_.ec2.find(id);
    if (inst && inst->alive())
      c_.ec2.terminate(id);
  });
  trigger();
}

void Controller::rebalance_recommendation(const std::string& instance_id) {
  NodeClaimState* c = claim_by_instance(instance_id);
  if (!c || c->phase == NodeClaimPhase::Deleted) return;
  // karpenter-provider-aws pkg/controllers/interruption/events.go, RebalanceRecommendation.
  const std::string msg = "Spot rebalance recommendation was triggered";
  event(EventType::Normal, "SpotRebalanceRecommendation", claim_ref(c->name), msg);
  if (!c->node_name.empty()) event(EventType::Normal, "SpotRebalanceRecommendation", {"Node", "", c->node_name}, msg);
}

}  // namespace eksim::autoscaling::karpenter
