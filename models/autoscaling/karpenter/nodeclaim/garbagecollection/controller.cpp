// NodeClaim garbage collection (pkg/controllers/nodeclaim/garbagecollection): a NodeClaim whose
// instance is gone is deleted.
#include "models/autoscaling/karpenter/nodeclaim/lifecycle/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

void GarbageCollection::on_instance_terminated(aws::Instance& inst) {
  NodeClaimState* c = ctx_.state.claim_by_instance(inst.id);
  if (!c || c->phase == NodeClaimPhase::Deleted) return;
  c->phase = NodeClaimPhase::Deleted;
  ++ctx_.state.claims_version;
  ctx_.state.claim_phase_changed(*c);
  c->deleted_at = ctx_.world.sim.now();
  ctx_.log.deleted(*c);
  ctx_.batcher.trigger();
}

}  // namespace eksim::autoscaling::karpenter
