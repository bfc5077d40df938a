#include "sim/report/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/report/run_facts.hpp"

namespace eksim::report {

std::string format_timeline(const scenario::RunResult& run) {
  const auto& events = run.cluster->log.events();
  const auto& activities = run.cluster->log.activities();
  // The object column is as wide as the longest object (node DNS names run to ~55 characters).
  std::size_t width = 24;
  for (const auto& ev : events) width = std::max(width, ev.object.str().size());
  for (const auto& act : activities)
    width = std::max(width, (act.service == "autoscaling" ? 17 + node_group_of_asg(run, act.resource).size()
                                                          : act.service.size() + 1 + act.resource.size()));
  std::string out = fmt::format("{:<13} {:<8} {:<24} {:<{}} {}\n", "TIME", "TYPE", "REASON", "OBJECT", width, "MESSAGE");
  std::size_t e = 0, a = 0;
  // Merge by time; at equal times Kubernetes events first (they are usually the cause).
  while (e < events.size() || a < activities.size()) {
    bool take_event = a >= activities.size() || (e < events.size() && events[e].time <= activities[a].start);
    if (take_event) {
      const auto& ev = events[e++];
      std::string msg = ev.message;
      if (ev.count > 1) msg += fmt::format(" (x{})", ev.count);
      out += fmt::format("{:<13} {:<8} {:<24} {:<{}} {}\n", engine::format_clock(ev.time), engine::to_string(ev.type),
                         ev.reason, ev.object.str(), width, msg);
    } else {
      const auto& act = activities[a++];
      std::string object = act.service == "autoscaling" ? "AutoScalingGroup/" + node_group_of_asg(run, act.resource)
                                                        : act.service + "/" + act.resource;
      std::string msg = act.description;
      if (act.status == "Failed" && !act.status_message.empty() && msg.find(act.status_message) == std::string::npos)
        msg += " " + act.status_message;
      out += fmt::format("{:<13} {:<8} {:<24} {:<{}} {}\n", engine::format_clock(act.start), "AWS", act.status, object,
                         width, msg);
    }
  }
  return out;
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
