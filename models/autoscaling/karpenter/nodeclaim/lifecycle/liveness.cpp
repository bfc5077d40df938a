// NodeClaim liveness (pkg/controllers/nodeclaim/lifecycle/liveness.go): a NodeClaim not registered
// within registrationTimeout (15 m) is deleted.
#include "models/autoscaling/karpenter/nodeclaim/lifecycle/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

void Lifecycle::start_liveness(const std::string& name) {
  ctx_.world.sim.schedule(kRegistrationTimeout, [this, name] {
    NodeClaimState* cl = ctx_.state.claim_by_name(name);
    if (!cl || cl->phase != NodeClaimPhase::Launched) return;
    aws::Activity t;
    t.start = t.end = ctx_.world.sim.now();
    t.service = "karpenter";
    t.resource = name;
    t.status = "Successful";
    t.description = "terminating due to timeout";
    t.cause = "reason=registration_timeout timeout=15m0s";
    ctx_.world.activities.push_back(std::move(t));
    termination_.delete_claim(*cl, "", true);
  });
}

}  // namespace eksim::autoscaling::karpenter
