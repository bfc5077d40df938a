#include "sim/report/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string_view>

#include "sim/report/run_facts.hpp"

namespace eksim::report {

void write_timeline(const ops::RunResult& run, const std::function<void(std::string_view)>& out) {
  const auto& log = run.cluster->log;
  const auto& activities = run.cluster->activities;
  auto activity_object = [&](const aws::Activity& act) {
    if (act.service == "autoscaling") return "AutoScalingGroup/" + node_group_of_asg(run, act.resource);
    if (act.service == "eks-health") return "eks/" + act.resource;  // the node group's health, on its page
    return act.service + "/" + act.resource;
  };
  // Columns are as wide as their longest cell, as kubectl's tabwriter makes them: node DNS names
  // run to ~55 characters and EventBridge detail-types ("EC2 Spot Instance Interruption Warning")
  // outgrow the usual reason width.
  std::size_t reason_width = 24, object_width = 24;
  // Two passes over the Events (one for the widths, one to print): a long run keeps most of them
  // in its spill file, not in memory.
  log.for_each_series([&](const k8s::Event& ev, std::size_t) {
    reason_width = std::max(reason_width, ev.reason.size());
    object_width = std::max(object_width, ev.object.str().size());
  });
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
  // AWS rows when AWS shows them: an EKS update that ran for a while (DescribeUpdate) shows
  // InProgress at its start and its final status at its end, never the outcome before it
  // happened. Other activities (ASG scaling activities, an instant config update) are one row at
  // their start. Activities are recorded in order of start, so the end rows are merged in.
  struct AwsRow {
    engine::SimTime time;
    std::size_t activity;
    bool start_of_update;  // the InProgress row of an update that finished later
  };
  std::vector<AwsRow> aws_rows;
  aws_rows.reserve(activities.size());
  std::vector<AwsRow> update_ends;  // in order of end time
  for (std::size_t i = 0; i < activities.size(); ++i) {
    const auto& act = activities[i];
    bool spans = act.service == "eks" && act.end > act.start && act.status != "InProgress";
    aws_rows.push_back(AwsRow{act.start, i, spans});
    if (spans) update_ends.push_back(AwsRow{act.end, i, false});
  }
  if (!update_ends.empty()) {
    std::stable_sort(update_ends.begin(), update_ends.end(),
                     [](const AwsRow& x, const AwsRow& y) { return x.time < y.time; });
    std::vector<AwsRow> merged;
    merged.reserve(aws_rows.size() + update_ends.size());
    // At equal times the row that was already in the log (a start) comes first.
    std::merge(aws_rows.begin(), aws_rows.end(), update_ends.begin(), update_ends.end(), std::back_inserter(merged),
               [](const AwsRow& x, const AwsRow& y) { return x.time < y.time; });
    aws_rows = std::move(merged);
  }
  std::size_t a = 0;
  auto print_aws_row = [&] {
    const AwsRow& r = aws_rows[a++];
    const auto& act = activities[r.activity];
    std::string msg = act.description;
    if (r.start_of_update) {
      out(row(engine::format_clock(r.time), "AWS", "InProgress", activity_object(act), msg));
      return;
    }
    if (act.status == "Failed" && !act.status_message.empty() && msg.find(act.status_message) == std::string::npos)
      msg += " " + act.status_message;
    out(row(engine::format_clock(r.time), "AWS", act.status, activity_object(act), msg));
  };
  // Merge by time; at equal times Kubernetes events first (they are usually the cause).
  log.for_each_series([&](const k8s::Event& ev, std::size_t) {
    while (a < aws_rows.size() && aws_rows[a].time < ev.time) print_aws_row();
    std::string msg = ev.message;
    // One row per Event object, as `kubectl get events` lists them, with describe's count.
    if (ev.count > 1) msg += fmt::format(" (x{} over {})", ev.count, engine::human_duration(ev.last_time - ev.time));
    out(row(engine::format_clock(ev.time), k8s::to_string(ev.type), ev.reason, ev.object.str(), msg));
  });
  while (a < aws_rows.size()) print_aws_row();
}

void write_hints(const ops::RunResult& run, const std::function<void(std::string_view)>& out) {
  const auto& hints = run.cluster->log.hints();
  if (hints.empty()) return;
  std::size_t kind_width = 4, object_width = 6;
  for (const auto& h : hints) {
    kind_width = std::max(kind_width, h.kind.size());
    object_width = std::max(object_width, h.object.str().size());
  }
  auto row = [&](std::string_view time, std::string_view kind, std::string_view object, std::string_view message) {
    return fmt::format("{:<13} {:<{}} {:<{}} {}\n", time, kind, kind_width, object, object_width, message);
  };
  out("\nHINTS\n");
  out(row("TIME", "KIND", "OBJECT", "MESSAGE"));
  for (const auto& h : hints) out(row(engine::format_clock(h.time), h.kind, h.object.str(), h.message));
}

std::string format_hints(const ops::RunResult& run) {
  std::string text;
  write_hints(run, [&text](std::string_view row) { text += row; });
  return text;
}

std::string format_timeline(const ops::RunResult& run) {
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
