// NodeClaim garbage collection (pkg/controllers/nodeclaim/garbagecollection): a NodeClaim whose
// instance is gone is deleted.
#include "models/autoscaling/karpenter/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

void Controller::on_instance_terminated(aws::Instance& inst) {
  NodeClaimState* c = claim_by_instance(inst.id);
  if (!c || c->phase == NodeClaimPhase::Deleted) return;
  c->phase = NodeClaimPhase::Deleted;
  ++claims_version_;
  claim_phase_changed(*c);
  c->deleted_at = c_.sim.now();
  log_deleted(*c);
  trigger();
}

}  // namespace eksim::autoscaling::karpenter
