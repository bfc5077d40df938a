// NodeClaim initialization (pkg/controllers/nodeclaim/lifecycle/initialization.go): Ready,
// startup taints gone, every requested resource registered; karpenter.sh/initialized.
#include "models/autoscaling/karpenter/nodeclaim/lifecycle/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

void Lifecycle::check_initialized(NodeClaimState& c, k8s::NodeRecord& rec) {
  if (c.phase != NodeClaimPhase::Registered || !rec.node.ready) return;
  for (const auto& t : c.startup_taints)
    if (has_taint(rec.node.taints, t.key)) {
      // formatTaint: key=value:Effect, or key:Effect without a value.
      c.initialized_message = "StartupTaint \"" + t.key + (t.value.empty() ? "" : "=" + t.value) + ":" + t.effect +
                              "\" still exists";
      return;
    }
  for (const auto& [r, v] : c.requests.items()) {
    if (v > 0 && rec.node.allocatable.get(r) == 0) {
      c.initialized_message = "Resource \"" + r + "\" was requested but not registered";
      return;
    }
  }
  c.initialized_message.clear();
  c.phase = NodeClaimPhase::Initialized;
  ctx_.state.claim_phase_changed(c);
  c.initialized_at = ctx_.world.sim.now();
  ctx_.log.initialized(c, rec);
  c.last_pod_event = std::max(c.last_pod_event, ctx_.world.sim.now());
  rec.node.meta.labels[kLabelInitialized] = "true";
  ctx_.state.update_node(*ctx_.world.api.find_node(rec.node.meta.name));
}

}  // namespace eksim::autoscaling::karpenter
