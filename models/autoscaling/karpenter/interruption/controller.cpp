// Interruption (karpenter-provider-aws pkg/controllers/interruption): Spot interruption warnings
// and rebalance recommendations from the SQS queue.
#include "models/autoscaling/karpenter/interruption/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

void Interruption::spot_interruption(const std::string& instance_id) {
  NodeClaimState* c = ctx_.state.claim_by_instance(instance_id);
  if (!c || c->phase == NodeClaimPhase::Deleted) return;
  const std::string msg = "Spot interruption warning was triggered";
  ctx_.recorder.publish(EventType::Warning, "SpotInterrupted", claim_ref(c->name), msg);
  if (!c->node_name.empty()) ctx_.recorder.publish(EventType::Warning, "SpotInterrupted", {"Node", "", c->node_name}, msg);
  ctx_.recorder.publish(EventType::Warning, "TerminatingOnInterruption", claim_ref(c->name), "Interruption triggered termination for the NodeClaim");
  if (!c->node_name.empty())
    ctx_.recorder.publish(EventType::Warning, "TerminatingOnInterruption", {"Node", "", c->node_name}, "Interruption triggered termination for the Node");
  if (c->capacity_type == "spot") ctx_.cloud.unavailable_offerings().mark(c->instance_type, c->zone, "spot", ctx_.world.sim.now());
  ctx_.log.interruption(*c);
  termination_.delete_claim(*c, "Interrupted", true);
  // EC2 reclaims the instance at the end of the notice whether or not the drain finished.
  std::string id = instance_id;
  ctx_.world.sim.schedule(kSpotNotice, [this, id] {
    if (ctx_.cloud.instance_alive(id)) ctx_.cloud.delete_instance(id);
  });
  ctx_.batcher.trigger();
}

void Interruption::rebalance_recommendation(const std::string& instance_id) {
  NodeClaimState* c = ctx_.state.claim_by_instance(instance_id);
  if (!c || c->phase == NodeClaimPhase::Deleted) return;
  // karpenter-provider-aws pkg/controllers/interruption/events.go, RebalanceRecommendation.
  const std::string msg = "Spot rebalance recommendation was triggered";
  ctx_.recorder.publish(EventType::Normal, "SpotRebalanceRecommendation", claim_ref(c->name), msg);
  if (!c->node_name.empty()) ctx_.recorder.publish(EventType::Normal, "SpotRebalanceRecommendation", {"Node", "", c->node_name}, msg);
}

}  // namespace eksim::autoscaling::karpenter
