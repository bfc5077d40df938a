#include "models/cluster/spot_handling.hpp"

#include "models/cluster/cluster.hpp"

namespace eksim {

EksSpotHandling::EksSpotHandling(Cluster& cluster, EksSpotHandlingOptions options) : c_(cluster), options_(options) {}

void EksSpotHandling::on_signal(const aws::SpotSignal& s) {
  aws::AutoScalingGroup* g = c_.auto_scaling.group_of(s.instance_id);
  if (!g || !c_.eks.by_asg(g->name)) return;  // not a managed node group instance
  switch (s.kind) {
    case aws::SpotSignalKind::RebalanceRecommendation:
      if (at_risk_.count(s.instance_id)) return;
      at_risk_[s.instance_id] = s.time;
      c_.auto_scaling.rebalance_recommendation(s.instance_id);
      watch_replacement(s.instance_id);
      break;
    case aws::SpotSignalKind::InterruptionWarning:
      // The notice came before the replacement was Ready: drain now; EC2 ends the instance at
      // the end of the notice.
      drain(s.instance_id, /*terminate_when_drained=*/false);
      break;
    case aws::SpotSignalKind::Interrupted:
      at_risk_.erase(s.instance_id);
      break;
  }
}

void EksSpotHandling::watch_replacement(const std::string& id) {
  auto it = at_risk_.find(id);
  if (it == at_risk_.end() || draining_.count(id)) return;
  const aws::Instance* inst = c_.ec2.find(id);
  if (!inst || inst->state != aws::InstanceState::Running) return;
  aws::AutoScalingGroup* g = c_.auto_scaling.group_of(id);
  if (!g) return;
  // The replacement: an instance of the group launched since the recommendation whose node is
  // Ready (the ASG may have had to retry the launch, so no single id is remembered).
  for (const auto& other : g->instances) {
    const aws::Instance* o = c_.ec2.find(other);
    if (!o || o->launched_at < it->second) continue;
    auto node = c_.node_of_instance(other);
    if (node && !c_.api.node(*node).deleted && c_.api.node(*node).node.ready) {
      drain(id, /*terminate_when_drained=*/true);
      return;
    }
  }
  c_.sim.schedule(options_.poll, [this, id] { watch_replacement(id); });
}

void EksSpotHandling::drain(const std::string& id, bool terminate_when_drained) {
  if (draining_.count(id)) return;
  auto node = c_.node_of_instance(id);
  if (!node || c_.api.node(*node).deleted) return;
  draining_.insert(id);
  k8s::drain_node(c_.api, *c_.kubelet, *node, [this, id, terminate_when_drained] {
    // Capacity Rebalancing terminates the at-risk instance once its replacement is in service;
    // the node group's termination drained it first.
    if (terminate_when_drained) c_.auto_scaling.terminate_rebalanced(id);
  });
}

}  // namespace eksim
