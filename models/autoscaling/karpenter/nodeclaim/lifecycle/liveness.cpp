// NodeClaim liveness (pkg/controllers/nodeclaim/lifecycle/liveness.go): a NodeClaim not registered
// within registrationTimeout (15 m) is deleted.
#include "models/autoscaling/karpenter/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

void Controller::start_liveness(const std::string& name) {
  c_.sim.schedule(kRegistrationTimeout, [this, name] {
    NodeClaimState* cl = claim_by_name(name);
    if (!cl || cl->phase != NodeClaimPhase::Launched) return;
    engine::Activity t;
    t.start = t.end = c_.sim.now();
    t.service = "karpenter";
    t.resource = name;
    t.status = "Successful";
    t.description = "terminating due to timeout";
    t.cause = "reason=registration_timeout timeout=15m0s";
    c_.log.record_activity(std::move(t));
    delete_claim(*cl, "", true);
  });
}

}  // namespace eksim::autoscaling::karpenter
