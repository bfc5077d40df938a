// Deleting an EC2NodeClass (or Auto Mode NodeClass): karpenter-provider-aws
// pkg/controllers/nodeclass termination. The termination finalizer keeps the object while
// NodeClaims reference it, publishing WaitingOnNodeClaimTermination (requeued every 10 minutes,
// and reconciled again when one of them goes); Karpenter deletes none of them itself. Meanwhile
// the NodePools that use it are not Ready (NodeClassTerminating) and launch nothing.
#include "models/autoscaling/karpenter/nodeclass/controller.hpp"

#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

namespace {

// utils.PrettySlice: the first `max` items, then "and N other(s)".
std::string pretty_slice(const std::vector<std::string>& items, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i == max) {
      out += " and " + std::to_string(items.size() - i) + " other(s)";
      break;
    }
    if (i > 0) out += ", ";
    out += items[i];
  }
  return out;
}

}  // namespace

bool NodeClassController::remove(const std::string& kind, const std::string& name) {
  auto it = ctx_.state.node_classes.find(name);
  if (it == ctx_.state.node_classes.end() || it->second.kind != kind) return false;
  if (!it->second.deletion_timestamp) {
    it->second.deletion_timestamp = ctx_.world.sim.now();
    ++ctx_.state.config_version;
    refresh_pool_readiness(name);
  }
  finalize(name);
  return true;
}

void NodeClassController::finalize(const std::string& name) {
  auto it = ctx_.state.node_classes.find(name);
  if (it == ctx_.state.node_classes.end() || !it->second.deletion_timestamp) return;
  std::vector<std::string> using_it;
  for (std::size_t i : ctx_.state.live_claims())
    if (ctx_.state.node_claims[i].node_class == name) using_it.push_back(ctx_.state.node_claims[i].name);
  if (!using_it.empty()) {
    // DedupeValues: the NodeClass's UID, for the recorder's default two minutes.
    ctx_.recorder.publish(EventType::Normal, "WaitingOnNodeClaimTermination", {it->second.kind, "", name},
          "Waiting on NodeClaim termination for " + pretty_slice(using_it, 5), Duration::minutes(2));
    if (finalize_requeued_.insert(name).second)
      ctx_.world.sim.schedule(Duration::minutes(10), [this, name] {
        finalize_requeued_.erase(name);
        finalize(name);
      });
    return;
  }
  ctx_.state.node_classes.erase(it);
  ctx_.cloud.forget_instance_types(name);
  ++ctx_.state.config_version;
  refresh_pool_readiness(name);
}

}  // namespace eksim::autoscaling::karpenter
