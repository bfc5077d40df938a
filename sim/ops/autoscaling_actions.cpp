#include "sim/ops/autoscaling_actions.hpp"

#include <algorithm>

#include "sim/ops/instance_pick.hpp"
#include "sim/scenario/autoscaling_actions.hpp"

namespace eksim::ops {

using scenario::Action;
using scenario::kSetDesiredCapacityAction;
using scenario::kTerminateInstanceAction;

namespace {

using k8s::EventType;

// Refusals are shown on the group as the timeline names ASG activities (AutoScalingGroup/<node
// group>), or on the ASG name the user gave when no node group owns it.
k8s::ObjectRef group_ref(const Cluster& c, const std::string& asg_name) {
  if (const aws::ManagedNodegroup* ng = c.eks.by_asg(asg_name)) return {"AutoScalingGroup", "", ng->spec.name};
  return {"AutoScalingGroup", "", asg_name};
}

void set_desired_capacity(Cluster& c, const Action& a) {
  std::string asg = a.auto_scaling_group;
  if (!a.nodegroup.empty()) {
    const aws::ManagedNodegroup* ng = c.eks.find(a.nodegroup);
    // The node group's ASG as DescribeNodegroup resources.autoScalingGroups names it; a node group
    // that does not exist leaves a name no ASG has, which Auto Scaling refuses below.
    asg = ng ? ng->asg_name : a.nodegroup;
  }
  // On a managed node group this changes the ASG underneath EKS. EKS allows it and keeps it:
  // Cluster Autoscaler scales managed node groups exactly this way (SetDesiredCapacity on the
  // group's ASG), and DescribeNodegroup's scalingConfig.desiredSize reads the ASG's value. Whether
  // EKS ever puts a directly changed min/max back is not verified; only desired is changed here.
  if (auto err = c.auto_scaling.set_desired_capacity(asg, a.desired_capacity, a.honor_cooldown))
    c.api.emit(EventType::Warning, err->code, group_ref(c, asg), err->message, "autoscaling");
}

void terminate_instance(Cluster& c, const Action& a) {
  std::string id = a.instance_id;
  if (!a.node.empty()) {
    // kubectl get node -o jsonpath='{.spec.providerID}' gives the instance behind a node.
    for (const auto& inst : c.ec2.instances())
      if (inst.state != aws::InstanceState::Terminated && (inst.private_dns_name == a.node || inst.id == a.node))
        id = inst.id;
    if (id.empty()) {
      c.api.emit(EventType::Warning, "NotFound", {"Node", "", a.node}, "nodes \"" + a.node + "\" not found", "kubectl");
      return;
    }
  } else if (id.empty()) {
    // The group's in-service instances in launch order (aws autoscaling describe-auto-scaling-groups).
    std::vector<const aws::Instance*> in_service;
    const aws::ManagedNodegroup* ng = c.eks.find(a.nodegroup);
    if (const aws::AutoScalingGroup* g = ng ? c.auto_scaling.find(ng->asg_name) : nullptr)
      for (const auto& iid : g->instances)
        if (const aws::Instance* inst = c.ec2.find(iid)) in_service.push_back(inst);
    const aws::Instance* pick = pick_by_launch_order(in_service, a.instance);
    if (!pick) {
      // eksim's own message (a hint): the user's selector matched nothing, so no AWS call was made.
      c.hint("NoInstanceTarget", {"AutoScalingGroup", "", a.nodegroup},
             std::string(kTerminateInstanceAction) + ": no in-service instance \"" + a.instance + "\" in node group " +
                 a.nodegroup + " (" + std::to_string(in_service.size()) + " in service)");
      return;
    }
    id = pick->id;
  }
  const aws::AutoScalingGroup* g = c.auto_scaling.group_of(id);
  std::string asg = g ? g->name : std::string();
  // Node removal then follows the instance: the cluster's terminated-instance handling removes the
  // Node and its pods, and their controllers (Deployment, Job, DaemonSet) recreate them.
  if (auto err = c.auto_scaling.terminate_instance(id, a.should_decrement))
    c.api.emit(EventType::Warning, err->code, asg.empty() ? k8s::ObjectRef{"Instance", "", id} : group_ref(c, asg),
               err->message, "autoscaling");
}

}  // namespace

bool apply_autoscaling_action(Cluster& c, const Action& a) {
  if (a.action == kSetDesiredCapacityAction) set_desired_capacity(c, a);
  else if (a.action == kTerminateInstanceAction) terminate_instance(c, a);
  else return false;
  return true;
}

}  // namespace eksim::ops
