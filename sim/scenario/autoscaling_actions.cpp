#include "sim/scenario/autoscaling_actions.hpp"

#include "sim/scenario/input_limits.hpp"
#include "sim/scenario/instance_pick.hpp"

namespace eksim::scenario {

void read_autoscaling_action(const Value& v, MapReader& r, Action& a) {
  if (a.action == kSetDesiredCapacityAction) {
    auto asg = r.get("autoScalingGroupName");
    auto ng = r.get("nodegroup");
    if (static_cast<bool>(asg) == static_cast<bool>(ng))
      v.fail(std::string(kSetDesiredCapacityAction) + " needs exactly one of \"autoScalingGroupName\" or \"nodegroup\"");
    if (asg) a.auto_scaling_group = asg->as_string();
    if (ng) a.nodegroup = ng->as_string();
    a.desired_capacity = r.require("desiredCapacity").as_int_in(0, kMaxNodes, "a node count");
    if (auto x = r.get("honorCooldown")) a.honor_cooldown = x->as_bool();
    return;
  }
  int targets = 0;
  if (auto x = r.get("instanceId")) {
    a.instance_id = x->as_string();
    if (a.instance_id.rfind("i-", 0) != 0)
      x->fail("instanceId is an EC2 instance id (i-0123456789abcdef0), got \"" + a.instance_id + "\"");
    ++targets;
  }
  if (auto x = r.get("node")) {
    a.node = x->as_string();
    ++targets;
  }
  if (auto x = r.get("nodegroup")) {
    a.nodegroup = x->as_string();
    ++targets;
  }
  if (targets != 1)
    v.fail(std::string(kTerminateInstanceAction) + " needs exactly one of \"instanceId\", \"node\" or \"nodegroup\"");
  if (auto x = r.get("instance")) {
    if (a.nodegroup.empty()) x->fail("\"instance\" picks one of a node group's instances; it needs \"nodegroup\"");
    a.instance = x->as_string();
    check_instance_pick(*x, a.instance);
  }
  a.should_decrement = r.require("shouldDecrementDesiredCapacity").as_bool();
}

}  // namespace eksim::scenario
