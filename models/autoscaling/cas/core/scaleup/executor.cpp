// Step 5 of a scale-up (cluster-autoscaler/core/scaleup/orchestrator/executor.go
// executeScaleUp): each group of the plan is set to its new size in turn, stopping at the first
// the cloud refuses; the cluster state registers each request, and the pods the chosen option
// takes hear that they triggered it.
#include "models/autoscaling/cas/core/scaleup/orchestrator.hpp"
#include "models/autoscaling/cas/processors/status/eventing_scale_up_processor.hpp"

namespace eksim::autoscaling::cas {

bool Orchestrator::execute(ScaleUpPass& pass, const ExpansionOption& best, const std::vector<ScaleUpInfo>& plan) {
  std::vector<std::string> infos_text;
  bool any = false;
  for (const auto& info : plan) {
    NodeGroup* g = ctx_.cloud_provider.node_group(info.group);
    ctx_.emit_status(k8s::EventType::Normal, "ScaledUpGroup",
                     "Scale-up: setting group " + info.group + " size to " + std::to_string(info.new_size) + " instead of " +
                         std::to_string(info.current) + " (max: " + std::to_string(info.max) + ")");
    if (auto err = g->set_target_size(info.new_size)) {
      ctx_.emit_status(k8s::EventType::Warning, "FailedToScaleUpGroup",
                       "Scale-up failed for group " + info.group + ": " + err->code + ": " + err->message);
      break;
    }
    cluster_state_.register_scale_up(*g, info.current, info.new_size);
    infos_text.push_back(scale_up_info(info.group, info.current, info.new_size, info.max));
    any = true;
  }
  if (!any) return false;
  last_scale_up_ = pass.now;
  std::string msg = triggered_scale_up_message(infos_text);
  ctx_.emit_until_refused(best.pod_ids.size(), [&](std::size_t k) {
    return ctx_.emit_pod(best.pod_ids[k], k8s::EventType::Normal, "TriggeredScaleUp", msg);
  });
  return true;
}

}  // namespace eksim::autoscaling::cas
