#include "sim/report/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "sim/report/run_facts.hpp"

namespace eksim::report {

void write_timeline(const scenario::RunResult& run, const std::function<void(std::string_view)>& out) {
  const auto& events = run.cluster->log.series();
  const auto& activities = run.cluster->log.activities();
  auto activity_object = [&](const engine::Activity& act) {
    return act.service == "autoscaling" ? "AutoScalingGroup/" + node_group_of_asg(run, act.resource)
                                        : act.service + "/" + act.resource;
  };
  // Columns are as wide as their longest cell, as kubectl's tabwriter makes them: node DNS names
  // run to ~55 characters and EventBridge detail-types ("EC2 Spot Instance Interruption Warning")
  // outgrow the usual reason width.
  std::size_t reason_width = 24, object_width = 24;
  for (const auto& ev : events) {
    reason_width = std::max(reason_width, ev.reason.size());
    object_width = std::max(object_width, ev.object.str().size());
  }
  for (const auto& act : activities) {
    reason_width = std::max(reason_width, act.status.size());
    object_width = std::max(object_width, activity_object(act).size());
  }
  auto row = [&](std::string_view time, std::string_view type, std::string_view reason, std::string_view object,
                 std::string_view message) {
    return fmt::format("{:<13} {:<8} {:<{}} {:<{}} {}\n", time, type, reason, reason_width, object, object_width,
                       message);
  };
  out(row("TIME", "TYPE", "REASON", "OBJECT", "MESSAGE"));
  std::size_t e = 0, a = 0;
  // Merge by time; at equal times Kubernetes events first (they are usually the cause).
  while (e < events.size() || a < activities.size()) {
    bool take_event = a >= activities.size() || (e < events.size() && events[e].time <= activities[a].start);
    if (take_event) {
      const auto& ev = events[e++];
      std::string msg = ev.message;
      // One row per Event object, as `kubectl get events` lists them, with describe's count.
      if (ev.count > 1) msg += fmt::format(" (x{} over {})", ev.count, engine::human_duration(ev.last_time - ev.time));
      out(row(engine::format_clock(ev.time), engine::to_string(ev.type), ev.reason, ev.object.str(), msg));
    } else {
      const auto& act = activities[a++];
      std::string msg = act.description;
      if (act.status == "Failed" && !act.status_message.empty() && msg.find(act.status_message) == std::string::npos)
        msg += " " + act.status_message;
      out(row(engine::format_clock(act.start), "AWS", act.status, activity_object(act), msg));
    }
  }
}

std::string format_timeline(const scenario::RunResult& run) {
  std::string text;
  write_timeline(run, [&text](std::string_view row) { text += row; });
  return text;
}

std::string format_expectations(const std::vector<ExpectationResult>& results) {
  if (results.empty()) return "";
  std::string out = "\nEXPECTATIONS\n";
  int passed = 0;
  for (const auto& r : results) {
    passed += r.passed;
    out += fmt::format("{} {}: {}\n", r.passed ? "PASS" : "FAIL", r.description, r.detail);
  }
  out += fmt::format("{} of {} expectations held\n", passed, results.size());
  return out;
}

}  // namespace eksim::report
