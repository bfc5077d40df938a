#include "models/aws/asg_rules.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace eksim::aws {

namespace {

// Howard Hinnant's civil_from_days: proleptic Gregorian date of a day count since 1970-01-01.
void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += (m <= 2);
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

std::string n(std::int64_t v) { return std::to_string(v); }

AwsError invalid_parameter(std::string msg) { return {"InvalidParameterException", std::move(msg)}; }

}  // namespace

std::string format_iso8601(engine::SimTime t, std::int64_t start_epoch_seconds, bool with_millis) {
  const std::int64_t total_ms = start_epoch_seconds * 1000 + floor_div(t.us, 1000);
  const std::int64_t secs = floor_div(total_ms, 1000);
  const std::int64_t ms = total_ms - secs * 1000;
  const std::int64_t days = floor_div(secs, 86400);
  const std::int64_t sod = secs - days * 86400;
  std::int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  char buf[128];
  if (with_millis)
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ", static_cast<long long>(y), m, d,
                  static_cast<long long>(sod / 3600), static_cast<long long>(sod / 60 % 60),
                  static_cast<long long>(sod % 60), static_cast<long long>(ms));
  else
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lldZ", static_cast<long long>(y), m, d,
                  static_cast<long long>(sod / 3600), static_cast<long long>(sod / 60 % 60),
                  static_cast<long long>(sod % 60));
  return buf;
}

// --- sizes ---------------------------------------------------------------------------------

std::optional<AwsError> validate_asg_sizes(const GroupSizes& s) {
  if (s.min_size > s.max_size)
    return AwsError{"ValidationError",
                    "Max bound, " + n(s.max_size) + ", must be greater than or equal to min bound, " + n(s.min_size)};
  if (s.desired < s.min_size || s.desired > s.max_size)
    return AwsError{"ValidationError", "Desired capacity:" + n(s.desired) + " must be between the specified min size:" +
                                           n(s.min_size) + " and max size:" + n(s.max_size)};
  return std::nullopt;
}

AsgUpdateResult apply_asg_update(const GroupSizes& current, const SizesUpdate& update) {
  GroupSizes s = merge_sizes(current, update);
  if (!update.desired) {
    if (update.min_size && s.desired < s.min_size) s.desired = s.min_size;
    if (update.max_size && s.desired > s.max_size) s.desired = s.max_size;
  }
  if (auto err = validate_asg_sizes(s)) return {std::move(err), current};
  return {std::nullopt, s};
}

GroupSizes merge_sizes(const GroupSizes& current, const SizesUpdate& update) {
  GroupSizes s = current;
  if (update.min_size) s.min_size = *update.min_size;
  if (update.max_size) s.max_size = *update.max_size;
  if (update.desired) s.desired = *update.desired;
  return s;
}

std::optional<AwsError> validate_update_nodegroup_config(std::string_view status, const GroupSizes& current,
                                                         const SizesUpdate& update) {
  if (status != kNodegroupActive)
    return AwsError{"ResourceInUseException", "Nodegroup cannot be updated as it is currently not in Active State"};
  if (update.desired && update.max_size && *update.desired > *update.max_size)
    return invalid_parameter("desiredSize can't be greater than maxSize");
  const GroupSizes s = merge_sizes(current, update);
  if (s.min_size > s.desired)
    return invalid_parameter("Minimum capacity " + n(s.min_size) + " can't be greater than desired size " + n(s.desired));
  if (s.desired > s.max_size)
    return invalid_parameter("desired capacity " + n(s.desired) + " can't be greater than max size " + n(s.max_size));
  return std::nullopt;
}

std::optional<AwsError> validate_create_nodegroup_scaling(const GroupSizes& s) {
  if (s.min_size > s.desired) return invalid_parameter("minSize can't be greater than desiredSize");
  if (s.desired > s.max_size) return invalid_parameter("desiredSize can't be greater than maxSize");
  return std::nullopt;
}

std::optional<AwsError> validate_set_desired_capacity(const GroupSizes& current, std::int64_t desired) {
  if (desired > current.max_size)
    return AwsError{"ValidationError", "New SetDesiredCapacity value " + n(desired) + " is above max value " +
                                           n(current.max_size) + " for the AutoScalingGroup."};
  if (desired < current.min_size)
    return AwsError{"ValidationError", "New SetDesiredCapacity value " + n(desired) + " is below min value " +
                                           n(current.min_size) + " for the AutoScalingGroup."};
  return std::nullopt;
}

AwsError scaling_activity_in_progress_error() {
  return AwsError{"ScalingActivityInProgress",
                  "The operation can't be performed because there are scaling activities in progress."};
}

AwsError instance_not_managed_error(std::string_view instance_id) {
  return AwsError{"ValidationError",
                  "Instance Id not found - No managed instance found for instance ID: " + std::string(instance_id)};
}

AwsError terminate_below_min_error(std::int64_t min_size) {
  return AwsError{"ValidationError",
                  "Currently, desiredSize equals minSize (" + n(min_size) +
                      "). Terminating instance without replacement will violate group's min size constraint. Either "
                      "set shouldDecrementDesiredCapacity flag to false or lower group's min size."};
}

// --- placement ------------------------------------------------------------------------------

std::optional<std::size_t> choose_launch_subnet(const std::vector<LaunchSubnet>& subnets, engine::SimTime now,
                                                AzDistribution distribution) {
  if (subnets.empty()) return std::nullopt;
  // AZs in the order their first subnet appears.
  struct Az {
    std::string name;
    std::int64_t instances = 0;
    bool failed = false;
  };
  std::vector<Az> azs;
  for (const auto& s : subnets) {
    auto it = std::find_if(azs.begin(), azs.end(), [&](const Az& a) { return a.name == s.az; });
    if (it == azs.end()) {
      azs.push_back({s.az, 0, false});
      it = azs.end() - 1;
    }
    it->instances += s.instances;
    if (s.failed_until > now) it->failed = true;
  }
  bool skip_failed = distribution == AzDistribution::BalancedBestEffort &&
                     std::any_of(azs.begin(), azs.end(), [](const Az& a) { return !a.failed; });
  const Az* best = nullptr;
  for (const auto& a : azs) {
    if (skip_failed && a.failed) continue;
    if (!best || a.instances < best->instances) best = &a;
  }
  std::optional<std::size_t> pick;
  for (std::size_t i = 0; i < subnets.size(); ++i) {
    if (subnets[i].az != best->name) continue;
    if (!pick || subnets[i].instances < subnets[*pick].instances) pick = i;
  }
  return pick;
}

// --- termination ------------------------------------------------------------------------------

std::optional<std::size_t> select_instance_to_terminate(const std::vector<TerminationCandidate>& candidates,
                                                        engine::SimTime now, engine::Rng& rng) {
  // 1. AZs with the most instances among those having an unprotected one.
  std::map<std::string, std::int64_t> per_az;
  std::map<std::string, bool> az_unprotected;
  for (const auto& c : candidates) {
    per_az[c.az] += 1;
    if (!c.protected_from_scale_in) az_unprotected[c.az] = true;
  }
  std::int64_t most = -1;
  for (const auto& [az, count] : per_az)
    if (az_unprotected.count(az) && count > most) most = count;
  if (most < 0) return std::nullopt;

  std::vector<std::size_t> pool;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto& c = candidates[i];
    if (!c.protected_from_scale_in && per_az[c.az] == most) pool.push_back(i);
  }
  auto keep_if = [&](auto pred) {
    std::vector<std::size_t> kept;
    for (auto i : pool)
      if (pred(candidates[i])) kept.push_back(i);
    if (!kept.empty()) pool = std::move(kept);
  };
  // 2. Outdated configurations.
  keep_if([](const TerminationCandidate& c) { return c.uses_launch_configuration; });
  keep_if([](const TerminationCandidate& c) { return !c.uses_current_template; });
  std::int64_t oldest = INT64_MAX;
  for (auto i : pool) oldest = std::min(oldest, candidates[i].template_version);
  keep_if([&](const TerminationCandidate& c) { return c.template_version == oldest; });
  // 3. Closest to the next billing hour, in whole seconds of uptime.
  auto to_next_hour = [&](const TerminationCandidate& c) {
    std::int64_t up = (now - c.launch_time).us / 1000000;
    if (up < 0) up = 0;
    return 3600 - up % 3600;
  };
  std::int64_t closest = INT64_MAX;
  for (auto i : pool) closest = std::min(closest, to_next_hour(candidates[i]));
  keep_if([&](const TerminationCandidate& c) { return to_next_hour(c) == closest; });
  // 4. Random among the rest.
  if (pool.size() == 1) return pool.front();
  return pool[rng.below(pool.size())];
}

// --- activity texts -----------------------------------------------------------------------------

std::string launch_description(std::string_view instance_id) {
  return "Launching a new EC2 instance: " + std::string(instance_id);
}

std::string failed_launch_description(std::string_view status_message) {
  return "Launching a new EC2 instance.  Status Reason: " + std::string(status_message);
}

std::string terminate_description(std::string_view instance_id) {
  return "Terminating EC2 instance: " + std::string(instance_id);
}

std::string failed_launch_status_message(bool spot, const AwsError& error) {
  return std::string(spot ? "Could not launch Spot Instances. " : "Could not launch On-Demand Instances. ") +
         error.code + " - " + error.message + " Launching EC2 instance failed.";
}

std::string cause_user_created(std::string_view at, std::int64_t from, std::int64_t to) {
  return "At " + std::string(at) + " a user request created an AutoScalingGroup changing the desired capacity from " +
         n(from) + " to " + n(to) + ".";
}

std::string cause_user_update_constraints(std::string_view at, const GroupSizes& sizes, std::int64_t from,
                                          std::int64_t to) {
  return "At " + std::string(at) + " a user request update of AutoScalingGroup constraints to min: " +
         n(sizes.min_size) + ", max: " + n(sizes.max_size) + ", desired: " + n(sizes.desired) +
         " changing the desired capacity from " + n(from) + " to " + n(to) + ".";
}

std::string cause_user_set_desired(std::string_view at, std::int64_t from, std::int64_t to) {
  return "At " + std::string(at) +
         " a user request explicitly set group desired capacity changing the desired capacity from " + n(from) +
         " to " + n(to) + ".";
}

std::string cause_instance_started(std::string_view at, std::int64_t from, std::int64_t to) {
  return "At " + std::string(at) +
         " an instance was started in response to a difference between desired and actual capacity, increasing the "
         "capacity from " +
         n(from) + " to " + n(to) + ".";
}

std::string cause_instance_taken_out(std::string_view at, std::int64_t from, std::int64_t to) {
  return "At " + std::string(at) +
         " an instance was taken out of service in response to a difference between desired and actual capacity, "
         "shrinking the capacity from " +
         n(from) + " to " + n(to) + ".";
}

std::string cause_user_terminate(std::string_view at, std::string_view instance_id, bool decrement, std::int64_t from,
                                 std::int64_t to) {
  std::string out = "At " + std::string(at) + " instance " + std::string(instance_id) +
                    " was taken out of service in response to a user request";
  if (decrement) out += ", shrinking the capacity from " + n(from) + " to " + n(to);
  return out + ".";
}

std::string cause_selected_for_termination(std::string_view at, std::string_view instance_id) {
  return "At " + std::string(at) + " instance " + std::string(instance_id) + " was selected for termination.";
}

std::string join_causes(const std::vector<std::string>& sentences) {
  std::string out;
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    if (i) out += "  ";
    out += sentences[i];
  }
  return out;
}

engine::Duration launch_retry_delay(std::int64_t consecutive_failures, const LaunchBackoff& policy) {
  engine::Duration d = policy.initial;
  for (std::int64_t i = 1; i < consecutive_failures && d < policy.max; ++i) d = d * policy.factor;
  return d < policy.max ? d : policy.max;
}

}  // namespace eksim::aws
