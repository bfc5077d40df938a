#include "models/aws/auto_scaling.hpp"

#include <algorithm>

#include "models/aws/spot_interruptions.hpp"

namespace eksim::aws {

AutoScaling::AutoScaling(engine::Simulator& sim, std::vector<Activity>& activities, engine::RngStreams& rng, Ec2& ec2,
                         std::int64_t start_epoch_seconds)
    : sim_(sim), activities_(activities), rng_(rng), ec2_(ec2), start_epoch_(start_epoch_seconds) {
  ec2_.on_running.push_back([this](Instance& i) { instance_running(i); });
  ec2_.on_terminated.push_back([this](Instance& i) { instance_terminated(i); });
}

std::string AutoScaling::timestamp() const { return format_iso8601(sim_.now(), start_epoch_); }

AutoScalingGroup* AutoScaling::find(const std::string& name) {
  for (auto& g : groups_)
    if (g.name == name) return &g;
  return nullptr;
}

const AutoScalingGroup* AutoScaling::find(const std::string& name) const {
  for (const auto& g : groups_)
    if (g.name == name) return &g;
  return nullptr;
}

AutoScalingGroup* AutoScaling::group_of(const std::string& instance_id) {
  Instance* inst = ec2_.find(instance_id);
  return inst ? find(inst->owner) : nullptr;
}

AutoScalingGroup& AutoScaling::create_group(AutoScalingGroup group, bool instances_already_running) {
  groups_.push_back(std::move(group));
  AutoScalingGroup& g = groups_.back();
  g.desired_history = {{sim_.now(), g.sizes.desired}};
  if (instances_already_running) {
    // The cluster as terraform left it: desired instances exist and run at t=0, spread over the
    // subnets as the ASG would have placed them.
    std::vector<std::int64_t> in_subnet(g.subnet_ids.size(), 0);  // the group's instances per subnet
    for (const auto& iid : g.instances)
      if (const Instance* inst = ec2_.find(iid))
        for (std::size_t k = 0; k < g.subnet_ids.size(); ++k)
          if (inst->subnet_id == g.subnet_ids[k]) ++in_subnet[k];
    for (std::int64_t i = 0; i < g.sizes.desired; ++i) {
      std::vector<LaunchSubnet> subnets;
      for (std::size_t k = 0; k < g.subnet_ids.size(); ++k) {
        const auto& id = g.subnet_ids[k];
        subnets.push_back(LaunchSubnet{id, ec2_.subnet(id) ? ec2_.subnet(id)->az : "", in_subnet[k], {}});
      }
      auto pick = choose_launch_subnet(subnets, sim_.now());
      if (!g.subnet_ids.empty()) ++in_subnet[pick.value_or(0)];
      LaunchRequest req{g.launch_template.instance_types.front(), g.subnet_ids[pick.value_or(0)], g.launch_template.spot,
                        g.launch_template.security_groups, g.launch_template.iam_role, g.launch_template.instance_tags,
                        g.name, g.launch_template.version};
      g.instances.push_back(ec2_.adopt_running_instance(req));
    }
  } else if (g.sizes.desired > 0) {
    g.pending_cause = cause_user_created(timestamp(), 0, g.sizes.desired);
    schedule_reconcile(g);
  }
  return g;
}

std::optional<AwsError> AutoScaling::update_group(const std::string& name, const SizesUpdate& update) {
  AutoScalingGroup* g = find(name);
  if (!g) return AwsError{"ValidationError", "AutoScalingGroup name not found - AutoScalingGroup " + name + " not found"};
  auto result = apply_asg_update(g->sizes, update);
  if (result.error) return result.error;
  std::int64_t before = g->sizes.desired;
  g->sizes = result.sizes;
  g->sizes.desired = before;
  set_desired(*g, result.sizes.desired);
  if (g->sizes.desired != before) {
    g->pending_cause = cause_user_update_constraints(timestamp(), g->sizes, before, g->sizes.desired);
    g->capacity_before_change = before;
  }
  schedule_reconcile(*g);
  return std::nullopt;
}

std::optional<AwsError> AutoScaling::set_desired_capacity(const std::string& name, std::int64_t desired,
                                                       bool honor_cooldown) {
  AutoScalingGroup* g = find(name);
  if (!g) return AwsError{"ValidationError", "AutoScalingGroup name not found - AutoScalingGroup " + name + " not found"};
  if (auto err = validate_set_desired_capacity(g->sizes, desired)) return err;
  if (honor_cooldown) {
    auto last = last_activity_end(name);
    if (last && sim_.now() < *last + g->default_cooldown) return scaling_activity_in_progress_error();
  }
  std::int64_t before = g->sizes.desired;
  set_desired(*g, desired);
  if (before != desired) g->pending_cause = cause_user_set_desired(timestamp(), before, desired);
  schedule_reconcile(*g);
  return std::nullopt;
}

std::optional<engine::SimTime> AutoScaling::last_activity_end(const std::string& name) const {
  std::optional<engine::SimTime> last;
  for (const auto& a : activities_)
    if (a.service == "autoscaling" && a.resource == name && a.status != "InProgress" && (!last || a.end > *last))
      last = a.end;
  return last;
}

void AutoScaling::set_desired(AutoScalingGroup& g, std::int64_t desired) {
  g.sizes.desired = desired;
  if (g.desired_history.back().second == desired) return;
  if (g.desired_history.back().first == sim_.now()) g.desired_history.back().second = desired;
  else g.desired_history.emplace_back(sim_.now(), desired);
}

std::optional<std::int64_t> AutoScaling::desired_at(const std::string& name, engine::SimTime t) const {
  const AutoScalingGroup* g = find(name);
  if (!g || g->desired_history.front().first > t) return std::nullopt;
  std::int64_t value = 0;
  for (const auto& [since, desired] : g->desired_history) {
    if (since > t) break;
    value = desired;
  }
  return value;
}

void AutoScaling::note_cause(const std::string& name, const std::string& sentence) {
  if (AutoScalingGroup* g = find(name)) g->pending_cause = sentence;
}

std::optional<AwsError> AutoScaling::terminate_instance(std::string instance_id, bool decrement_desired) {
  AutoScalingGroup* g = group_of(instance_id);
  if (!g || std::find(g->instances.begin(), g->instances.end(), instance_id) == g->instances.end())
    return instance_not_managed_error(instance_id);
  if (decrement_desired && g->sizes.desired <= g->sizes.min_size) return terminate_below_min_error(g->sizes.min_size);
  std::int64_t from = g->sizes.desired;
  if (decrement_desired) set_desired(*g, g->sizes.desired - 1);
  record_termination(*g, instance_id,
                     cause_user_terminate(timestamp(), instance_id, decrement_desired, from, g->sizes.desired));
  std::erase(g->instances, instance_id);
  ec2_.terminate(instance_id);
  schedule_reconcile(*g);
  return std::nullopt;
}

void AutoScaling::schedule_reconcile(AutoScalingGroup& g) {
  if (g.retry.valid() && sim_.is_pending(g.retry)) return;  // a reconcile or back-off retry is already due
  std::string name = g.name;
  // The ASG acts on a changed desired capacity within seconds.
  g.retry = sim_.schedule(engine::Duration::seconds(1), [this, name] { reconcile(name); });
}

void AutoScaling::reconcile(const std::string& name) {
  AutoScalingGroup* g = find(name);
  if (!g) return;
  auto count = static_cast<std::int64_t>(g->instances.size());
  if (count < g->sizes.desired) {
    std::int64_t target = g->sizes.desired;
    std::vector<LaunchSubnet> subnets = launch_subnets(*g);
    for (std::int64_t n = count; n < target; ++n) {
      std::size_t before = g->instances.size();
      launch_one(*g, subnets, n, target);
      if (g->instances.size() == before) break;  // failed: back-off scheduled
    }
  } else if (count > g->sizes.desired) {
    std::int64_t target = g->sizes.desired;
    for (std::int64_t n = count; n > target; --n) terminate_one(*g, n, target);
  }
  g->pending_cause.clear();
}

std::vector<LaunchSubnet> AutoScaling::launch_subnets(const AutoScalingGroup& g) const {
  std::vector<LaunchSubnet> subnets;
  for (const auto& id : g.subnet_ids) {
    auto failed = g.subnet_failed_until.find(id);
    subnets.push_back(LaunchSubnet{id, ec2_.subnet(id) ? ec2_.subnet(id)->az : "", 0,
                                   failed == g.subnet_failed_until.end() ? engine::SimTime{} : failed->second});
  }
  for (const auto& iid : g.instances)
    if (const Instance* inst = ec2_.find(iid))
      for (auto& s : subnets)
        if (inst->subnet_id == s.subnet_id) ++s.instances;
  return subnets;
}

void AutoScaling::launch_one(AutoScalingGroup& g, std::vector<LaunchSubnet>& subnets, std::int64_t from,
                             std::int64_t to) {
  auto pick = choose_launch_subnet(subnets, sim_.now());
  if (!pick) return;
  const std::string& subnet_id = g.subnet_ids[*pick];
  LaunchRequest req{g.launch_template.instance_types.front(), subnet_id, g.launch_template.spot,
                    g.launch_template.security_groups, g.launch_template.iam_role, g.launch_template.instance_tags,
                    g.name, g.launch_template.version};
  auto result = ec2_.run_instance(req);
  std::string at = timestamp();
  aws::Activity a;
  a.start = sim_.now();
  a.service = "autoscaling";
  a.resource = g.name;
  std::vector<std::string> causes;
  if (g.next_launch_cause) {
    if (!g.next_launch_cause->empty()) causes.push_back(*g.next_launch_cause);
    g.next_launch_cause.reset();
  } else {
    if (!g.pending_cause.empty()) causes.push_back(g.pending_cause);
    causes.push_back(cause_instance_started(at, from, to));
  }
  a.cause = join_causes(causes);
  if (auto* err = std::get_if<AwsError>(&result)) {
    a.end = sim_.now();
    a.status = "Failed";
    a.status_message = failed_launch_status_message(g.launch_template.spot, *err);
    a.description = failed_launch_description(a.status_message);
    record(std::move(a));
    ++g.consecutive_failures;
    engine::Duration delay = launch_retry_delay(g.consecutive_failures);
    // The zone is avoided past the retry itself, so the retry goes to another zone while one is
    // left (balanced best effort) instead of meeting the same refusal again.
    g.subnet_failed_until[subnet_id] = sim_.now() + delay + delay;
    std::string name = g.name;
    g.retry = sim_.schedule(delay, [this, name] { reconcile(name); });
    return;
  }
  const std::string& id = std::get<std::string>(result);
  g.consecutive_failures = 0;
  g.instances.push_back(id);
  ++subnets[*pick].instances;
  a.status = "InProgress";
  a.description = launch_description(id);
  launch_activity_[id] = record(std::move(a));
}

void AutoScaling::terminate_one(AutoScalingGroup& g, std::int64_t from, std::int64_t to) {
  std::vector<TerminationCandidate> candidates;
  for (const auto& id : g.instances) {
    Instance* inst = ec2_.find(id);
    if (!inst) continue;
    candidates.push_back(TerminationCandidate{id, inst->az, inst->launched_at, false,
                                              inst->template_version == g.launch_template.version,
                                              inst->template_version, false});
  }
  auto pick = select_instance_to_terminate(candidates, sim_.now(), rng_.get("autoscaling/termination/" + g.name));
  if (!pick) return;
  std::string id = candidates[*pick].instance_id;
  std::string at = timestamp();
  std::vector<std::string> causes;
  if (!g.pending_cause.empty()) causes.push_back(g.pending_cause);
  causes.push_back(cause_instance_taken_out(at, from, to));
  causes.push_back(cause_selected_for_termination(at, id));
  record_termination(g, id, join_causes(causes));
  std::erase(g.instances, id);
  ec2_.terminate(id);
}

std::size_t AutoScaling::record(aws::Activity a) {
  activities_.push_back(std::move(a));
  return activities_.size() - 1;
}

void AutoScaling::record_termination(const AutoScalingGroup& g, const std::string& instance_id, std::string cause) {
  aws::Activity a;
  a.start = a.end = sim_.now();
  a.service = "autoscaling";
  a.resource = g.name;
  a.status = "Successful";
  a.description = terminate_description(instance_id);
  a.cause = std::move(cause);
  record(std::move(a));
}

void AutoScaling::instance_running(Instance& inst) {
  auto it = launch_activity_.find(inst.id);
  if (it == launch_activity_.end()) return;
  aws::Activity& a = activities_[it->second];
  a.status = "Successful";
  a.end = sim_.now();
  launch_activity_.erase(it);
}

void AutoScaling::instance_terminated(Instance& inst) {
  // An instance that went away without the group asking (a Spot interruption, a user's
  // TerminateInstances) fails the group's EC2 health check: it is taken out of service and, if
  // it still counted toward desired capacity, replaced.
  AutoScalingGroup* g = find(inst.owner);
  if (!g) return;
  bool in_service = std::find(g->instances.begin(), g->instances.end(), inst.id) != g->instances.end();
  bool rebalancing = std::find(g->rebalancing.begin(), g->rebalancing.end(), inst.id) != g->rebalancing.end();
  if (!in_service && !rebalancing) return;
  std::erase(g->instances, inst.id);
  std::erase(g->rebalancing, inst.id);
  record_termination(*g, inst.id, cause_health_check_terminated(timestamp()));
  if (!in_service) return;  // a Capacity Rebalancing replacement is already there or on its way
  g->next_launch_cause = cause_unhealthy_instance_replaced(timestamp());
  schedule_reconcile(*g);
}

std::string AutoScaling::rebalance_recommendation(std::string instance_id) {
  AutoScalingGroup* g = group_of(instance_id);
  if (!g || !g->capacity_rebalance) return "";
  if (std::find(g->instances.begin(), g->instances.end(), instance_id) == g->instances.end()) return "";
  std::erase(g->instances, instance_id);
  g->rebalancing.push_back(instance_id);
  // Not found in a stored source: the Cause Auto Scaling writes for a Capacity Rebalancing launch
  // (and for the termination of the at-risk instance afterwards). Left empty rather than invented;
  // the Description ("Launching a new EC2 instance: i-...") is the documented one.
  g->next_launch_cause = std::string();
  auto n = static_cast<std::int64_t>(g->instances.size());
  std::size_t before = g->instances.size();
  std::vector<LaunchSubnet> subnets = launch_subnets(*g);
  launch_one(*g, subnets, n, n + 1);
  if (g->instances.size() == before) return "";
  return g->instances.back();
}

void AutoScaling::terminate_rebalanced(std::string instance_id) {
  AutoScalingGroup* g = group_of(instance_id);
  if (!g || std::find(g->rebalancing.begin(), g->rebalancing.end(), instance_id) == g->rebalancing.end()) return;
  std::erase(g->rebalancing, instance_id);
  // Cause not found in a stored source (see rebalance_recommendation); left empty.
  record_termination(*g, instance_id, "");
  ec2_.terminate(instance_id);
}

}  // namespace eksim::aws
