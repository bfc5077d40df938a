#include "sim/report/expectations.hpp"

#include <algorithm>

#include "models/autoscaling/karpenter/controller.hpp"
#include "sim/report/run_facts.hpp"

namespace eksim::report {

namespace {

using engine::SimTime;
using scenario::Expectation;
using ops::RunResult;

std::string fmt_time(SimTime t) { return engine::format_duration(engine::Duration{t.us}); }

// The instant a condition is judged at: `at`, else `by`, else the end of the run.
SimTime horizon(const Expectation& e, const RunResult& run) {
  if (e.at) return *e.at;
  if (e.by) return *e.by;
  return run.end;
}

bool count_ok(const Expectation& e, std::int64_t n, std::string* want) {
  if (e.absent) {
    *want = "none";
    return n == 0;
  }
  if (e.count) {
    *want = "exactly " + std::to_string(*e.count);
    return n == *e.count;
  }
  bool ok = true;
  std::string w;
  if (e.min_count) {
    ok = ok && n >= *e.min_count;
    w = "at least " + std::to_string(*e.min_count);
  }
  if (e.max_count) {
    ok = ok && n <= *e.max_count;
    w += (w.empty() ? "" : " and ") + std::string("at most ") + std::to_string(*e.max_count);
  }
  if (!e.min_count && !e.max_count) {
    *want = "at least 1";
    return n >= 1;
  }
  *want = w;
  return ok;
}

// `object: KIND/NS/NAME`; a trailing `*` matches any name with that prefix (the pods of a
// Deployment or DaemonSet, whose names end in generated suffixes).
bool object_matches(const std::string& want, const std::string& object) {
  if (want.empty()) return true;
  if (want.back() == '*') return object.compare(0, want.size() - 1, want, 0, want.size() - 1) == 0;
  return object == want;
}

ExpectationResult check_pod(const Expectation& e, const RunResult& run) {
  ExpectationResult r{e.description, false, "", e.where};
  std::vector<const ops::PodPhaseChange*> seen;
  for (const auto& h : *run.pod_history)
    if (h.ns == e.ns && h.name == e.name) seen.push_back(&h);
  if (seen.empty()) {
    r.detail = "pod " + e.ns + "/" + e.name + " was never created";
    return r;
  }
  // A deleted pod is in no phase: it matches nothing from its deletion on.
  auto matches = [&](const ops::PodPhaseChange& h) {
    return !h.deleted && (e.phase.empty() || h.phase == e.phase) && (e.reason.empty() || h.reason == e.reason);
  };
  auto describe = [](const ops::PodPhaseChange& h) {
    return h.deleted ? std::string("deleted") : h.phase + (h.reason.empty() ? "" : " (" + h.reason + ")");
  };
  SimTime t = horizon(e, run);
  if (e.by) {
    for (const auto* h : seen) {
      if (h->time > t) break;
      if (matches(*h)) {
        r.passed = true;
        r.detail = "became " + describe(*h) + " at " + fmt_time(h->time);
        return r;
      }
    }
    const ops::PodPhaseChange* last = nullptr;
    for (const auto* h : seen)
      if (h->time <= t) last = h;
    r.detail = "was " + (last ? describe(*last) : std::string("not yet created")) + " at " + fmt_time(t);
    for (const auto* h : seen)
      if (matches(*h)) {
        r.detail += "; became " + describe(*h) + " only at " + fmt_time(h->time);
        break;
      }
    return r;
  }
  const ops::PodPhaseChange* state = nullptr;
  for (const auto* h : seen)
    if (h->time <= t) state = h;
  if (!state) {
    r.detail = "not yet created at " + fmt_time(t);
    return r;
  }
  r.passed = matches(*state);
  r.detail = "was " + describe(*state) + " at " + fmt_time(t) + " (since " + fmt_time(state->time) + ")";
  return r;
}

bool event_matches(const Expectation& e, const k8s::Event& ev) {
  return ev.reason == e.event_reason && (e.event_type.empty() || e.event_type == k8s::to_string(ev.type)) &&
         object_matches(e.object, ev.object.str()) &&
         (e.message_contains.empty() || ev.message.find(e.message_contains) != std::string::npos);
}

// The count of the Event object the API server holds: after the last matching occurrence up to
// the horizon (`by`: after any of them), as the correlator and the spam filter left it.
ExpectationResult check_stored_count(const Expectation& e, const RunResult& run) {
  ExpectationResult r{e.description, false, "", e.where};
  const SimTime t = horizon(e, run);
  const k8s::Event* last = nullptr;
  for (const auto& ev : run.cluster->log.events()) {
    if (ev.time > t) break;
    if (!event_matches(e, ev)) continue;
    last = &ev;
    if (e.by && ev.stored_count == *e.stored_count) {
      r.passed = true;
      r.detail = "stored with count " + std::to_string(ev.stored_count) + " at " + fmt_time(ev.time);
      return r;
    }
  }
  if (!last) {
    r.detail = "no matching event by " + fmt_time(t);
    return r;
  }
  r.passed = !e.by && last->stored_count == *e.stored_count;
  r.detail = (last->stored_count ? "stored with count " + std::to_string(last->stored_count)
                                 : std::string("not yet in the API server (the spam filter held every occurrence)")) +
             " at " + fmt_time(t) + " (last occurrence at " + fmt_time(last->time) + "), expected " +
             std::to_string(*e.stored_count);
  return r;
}

ExpectationResult check_event(const Expectation& e, const RunResult& run) {
  if (e.stored_count) return check_stored_count(e, run);
  ExpectationResult r{e.description, false, "", e.where};
  SimTime t = horizon(e, run);
  std::int64_t n = 0;
  const k8s::Event* first = nullptr;
  for (const auto& ev : run.cluster->log.events()) {
    if (ev.time > t) break;
    if (!event_matches(e, ev)) continue;
    if (!first) first = &ev;
    ++n;
  }
  std::string want;
  r.passed = count_ok(e, n, &want);
  r.detail = std::to_string(n) + " matching event(s) by " + fmt_time(t) + ", expected " + want;
  if (first) r.detail += "; first at " + fmt_time(first->time) + ": " + first->message;
  return r;
}

ExpectationResult check_hint(const Expectation& e, const RunResult& run) {
  ExpectationResult r{e.description, false, "", e.where};
  SimTime t = horizon(e, run);
  std::int64_t n = 0;
  const k8s::Hint* first = nullptr;
  for (const auto& h : run.cluster->log.hints()) {
    if (h.time > t) break;
    if (h.kind != e.hint_kind) continue;
    if (!object_matches(e.object, h.object.str())) continue;
    if (!e.message_contains.empty() && h.message.find(e.message_contains) == std::string::npos) continue;
    if (!first) first = &h;
    ++n;
  }
  std::string want;
  r.passed = count_ok(e, n, &want);
  r.detail = std::to_string(n) + " matching hint(s) by " + fmt_time(t) + ", expected " + want;
  if (first) r.detail += "; first at " + fmt_time(first->time) + ": " + first->message;
  return r;
}

// "Allocated resources" as `kubectl describe node` sums them: the requests of the node's pods
// that are not terminated (Succeeded/Failed); pods = how many of them.
bool allocated_matches(const k8s::ApiServer& api, const k8s::NodeRecord& rec, const k8s::ResourceList& want) {
  k8s::ResourceList sum;
  std::int64_t pods = 0;
  for (k8s::PodId p : rec.pods) {
    const k8s::PodRecord& pr = api.pod(p);
    if (pr.deleted || pr.pod.status.phase == k8s::PodPhase::Succeeded || pr.pod.status.phase == k8s::PodPhase::Failed) continue;
    sum += k8s::pod_requests(pr.pod.spec);
    ++pods;
  }
  sum.set(k8s::kPods, pods);
  for (const auto& [res, amount] : want.items())
    if (sum.get(res) != amount) return false;
  return true;
}

ExpectationResult check_nodes(const Expectation& e, const RunResult& run) {
  ExpectationResult r{e.description, false, "", e.where};
  const auto& api = run.cluster->api;
  auto count_at = [&](SimTime t) {
    std::int64_t n = 0;
    for (std::size_t i = 0; i < api.node_slots(); ++i) {
      const k8s::NodeRecord& rec = api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
      if (!e.node_group.empty() && rec.node_group != e.node_group) continue;
      if (!e.node_pool.empty() && rec.node_pool != e.node_pool) continue;
      auto label = [&](const char* k) {
        auto it = rec.node.meta.labels.find(k);
        return it == rec.node.meta.labels.end() ? std::string() : it->second;
      };
      if (!e.instance_type.empty() && label(k8s::kLabelInstanceType) != e.instance_type) continue;
      if (!e.zone.empty() && label(k8s::kLabelZone) != e.zone) continue;
      bool alloc_ok = true;
      for (const auto& [res, amount] : e.allocatable.items()) alloc_ok = alloc_ok && rec.node.allocatable.get(res) == amount;
      for (const auto& [res, amount] : e.capacity.items()) alloc_ok = alloc_ok && rec.node.capacity.get(res) == amount;
      if (!alloc_ok) continue;
      if (!e.allocated.empty() && !allocated_matches(api, rec, e.allocated)) continue;
      bool labels_ok = true;
      for (const auto& [k, v] : e.labels) {
        auto it = rec.node.meta.labels.find(k);
        labels_ok = labels_ok && it != rec.node.meta.labels.end() && it->second == v;
      }
      if (!labels_ok) continue;
      bool taints_ok = true;
      for (const auto& want_taint : e.taints) {
        bool found = false;
        for (const auto& t : rec.node.taints)
          found = found || want_taint == t.key + (t.value.empty() ? "" : "=" + t.value) + ":" + t.effect;
        taints_ok = taints_ok && found;
      }
      if (!taints_ok) continue;
      std::optional<SimTime> since = e.ready_only ? rec.ready_at : rec.registered_at;
      if (!since || *since > t) continue;
      if (rec.deleted_at && *rec.deleted_at <= t) continue;
      ++n;
    }
    return n;
  };
  std::string want;
  SimTime t = horizon(e, run);
  if (e.by) {
    // Any moment up to `by` counts; the count only changes when a node appears or goes.
    std::vector<SimTime> moments{SimTime{}};
    for (std::size_t i = 0; i < api.node_slots(); ++i) {
      const k8s::NodeRecord& rec = api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
      for (auto m : {rec.registered_at, rec.ready_at, rec.deleted_at})
        if (m && *m <= t) moments.push_back(*m);
    }
    std::sort(moments.begin(), moments.end());
    for (SimTime m : moments) {
      std::int64_t n = count_at(m);
      if (count_ok(e, n, &want)) {
        r.passed = true;
        r.detail = std::to_string(n) + " node(s) at " + fmt_time(m) + ", expected " + want;
        return r;
      }
    }
    r.detail = std::to_string(count_at(t)) + " node(s) at " + fmt_time(t) + ", expected " + want + " by then";
    return r;
  }
  std::int64_t n = count_at(t);
  r.passed = count_ok(e, n, &want);
  r.detail = std::to_string(n) + std::string(e.ready_only ? " Ready" : "") + " node(s) at " + fmt_time(t) + ", expected " + want;
  return r;
}

ExpectationResult check_node_group(const Expectation& e, const RunResult& run) {
  ExpectationResult r{e.description, false, "", e.where};
  auto& eks = run.cluster->eks;
  const aws::ManagedNodegroup* ng = eks.find(e.node_group);
  if (!ng) {
    r.detail = "no node group " + e.node_group;
    return r;
  }
  if (e.desired) {
    // DesiredCapacity at the horizon, or with `by` at any moment up to it.
    const aws::AutoScalingGroup* asg = run.cluster->auto_scaling.find(ng->asg_name);
    const SimTime t = horizon(e, run);
    std::int64_t desired = run.cluster->auto_scaling.desired_at(ng->asg_name, t).value_or(-1);
    r.passed = desired == *e.desired;
    std::string when = e.at ? "at " + fmt_time(t) : e.by ? "by " + fmt_time(t) : "at the end";
    if (e.by && !r.passed && asg) {
      for (const auto& [since, value] : asg->desired_history) {
        if (since > t || value != *e.desired) continue;
        r.passed = true;
        desired = value;
        when = "at " + fmt_time(since);
        break;
      }
    }
    r.detail = "desired " + std::to_string(desired) + " " + when + ", expected " + std::to_string(*e.desired);
    if (e.activity_status.empty() && e.activity_contains.empty() && e.update_status.empty() && e.update_type.empty() &&
        e.error_contains.empty())
      return r;
    if (!r.passed) return r;
  }
  SimTime t = horizon(e, run);
  if (!e.health_issue.empty()) {
    // health.issues as DescribeNodegroup returned it at the horizon (`absent: true`: not there).
    const aws::NodegroupIssue* found = nullptr;
    for (const auto& issue : ng->health_issues)
      if (issue.code == e.health_issue && issue.since <= t) found = &issue;
    r.passed = (found != nullptr) != e.absent;
    r.detail = found ? e.health_issue + " since " + fmt_time(found->since) + " (" + std::to_string(found->resource_ids.size()) +
                           " instance(s): " + found->resource_ids.front() + (found->resource_ids.size() > 1 ? ", ..." : "") + ")"
                     : "no " + e.health_issue + " by " + fmt_time(t);
    return r;
  }
  std::int64_t n = 0;
  const aws::Activity* first = nullptr;
  if (!e.update_status.empty() || !e.update_type.empty() || !e.error_contains.empty()) {
    // EKS update records (DescribeUpdate), kept as activities of service "eks". The status is
    // judged as it stood at the horizon: an update still running then was InProgress.
    for (const auto& a : run.cluster->activities) {
      if (a.service != "eks" || a.resource != e.node_group || a.start > t) continue;
      if (!e.update_type.empty() && a.description.rfind(e.update_type + " ", 0) != 0) continue;
      std::string status = a.end > t && a.status != "InProgress" ? "InProgress" : a.status;
      if (!e.update_status.empty() && status != e.update_status) continue;
      if (!e.error_contains.empty() && (a.end > t || a.status_message.find(e.error_contains) == std::string::npos)) continue;
      if (!first) first = &a;
      ++n;
    }
    std::string want;
    r.passed = count_ok(e, n, &want);
    r.detail = std::to_string(n) + " matching EKS update(s) by " + fmt_time(t) + ", expected " + want;
    if (first) r.detail += "; first at " + fmt_time(first->start) + ": " + first->description + " " + first->status +
                           (first->status_message.empty() ? "" : " - " + first->status_message);
    return r;
  }
  for (const auto& a : run.cluster->activities) {
    if (a.resource != ng->asg_name || a.start > t) continue;
    if (!e.activity_status.empty() && a.status != e.activity_status) continue;
    std::string text = a.description + "\n" + a.status_message + "\n" + a.cause;
    if (!e.activity_contains.empty() && text.find(e.activity_contains) == std::string::npos) continue;
    if (!first) first = &a;
    ++n;
  }
  std::string want;
  r.passed = count_ok(e, n, &want);
  r.detail = std::to_string(n) + " matching scaling activit" + (n == 1 ? "y" : "ies") + " by " + fmt_time(t) +
             ", expected " + want;
  if (first) r.detail += "; first at " + fmt_time(first->start) + ": " + first->description;
  return r;
}

ExpectationResult check_subnet(const Expectation& e, const RunResult& run) {
  ExpectationResult r{e.description, false, "", e.where};
  if (!run.cluster->ec2.subnet(e.subnet)) {
    r.detail = "no subnet " + e.subnet;
    return r;
  }
  std::int64_t free = run.cluster->ec2.available_addresses(e.subnet);
  r.passed = free == *e.available_addresses;
  r.detail = std::to_string(free) + " free address(es) at the end, expected " + std::to_string(*e.available_addresses);
  return r;
}

bool condition_matches(const Expectation& e, const autoscaling::karpenter::Condition& c) {
  return c.status == e.condition_status && (e.condition_reason.empty() || c.reason == e.condition_reason) &&
         (e.message_contains.empty() || c.message.find(e.message_contains) != std::string::npos);
}

std::string describe_condition(const autoscaling::karpenter::Condition& c) {
  return c.type + "=" + c.status + " reason " + c.reason + (c.message.empty() ? "" : ": " + c.message);
}

// A condition as it stood at `at` (the last change written by then), or at any change up to `by`,
// from the object's condition history.
ExpectationResult check_condition_in_time(const Expectation& e, const autoscaling::karpenter::ConditionSet& cs,
                                          SimTime t, ExpectationResult r) {
  const autoscaling::karpenter::Condition* state = nullptr;
  for (const auto& change : cs.history) {
    if (change.time > t) break;
    if (change.condition.type != e.condition_type) continue;
    state = &change.condition;
    if (e.by && condition_matches(e, *state)) {
      r.passed = true;
      r.detail = describe_condition(*state) + " at " + fmt_time(change.time);
      return r;
    }
  }
  if (!state) {
    r.detail = "no condition " + e.condition_type + " by " + fmt_time(t);
    return r;
  }
  r.passed = !e.by && condition_matches(e, *state);
  r.detail = describe_condition(*state) + (e.by ? " by " : " at ") + fmt_time(t);
  return r;
}

ExpectationResult check_karpenter_condition(const Expectation& e, const RunResult& run) {
  ExpectationResult r{e.description, false, "", e.where};
  const autoscaling::karpenter::Controller* k = run.cluster->controllers.karpenter.get();
  const autoscaling::karpenter::ConditionSet* cs = nullptr;
  SimTime created;
  if (k && e.subject == "nodePool") {
    auto it = k->node_pools().find(e.name);
    if (it != k->node_pools().end()) {
      cs = &it->second.conditions;
      created = it->second.created;
    }
  } else if (k) {
    auto it = k->node_classes().find(e.name);
    if (it != k->node_classes().end()) {
      cs = &it->second.conditions;
      created = it->second.created;
    }
  }
  if (!cs) {
    r.detail = "no " + e.subject + " " + e.name;
    return r;
  }
  const SimTime t = horizon(e, run);
  if (e.age) {
    // kubectl's AGE column: duration.HumanDuration of now - creationTimestamp.
    if (t < created) {
      r.detail = "created only at " + fmt_time(created);
      return r;
    }
    const std::string age = engine::human_duration(t - created), want = engine::human_duration(*e.age);
    r.passed = age == want;
    r.detail = "AGE " + age + " at " + fmt_time(t) + " (created at " + fmt_time(created) + "), expected " + want;
    return r;
  }
  if (e.at || e.by) return check_condition_in_time(e, *cs, t, r);
  const autoscaling::karpenter::Condition* c = autoscaling::karpenter::find_condition(*cs, e.condition_type);
  if (!c) {
    r.detail = "no condition " + e.condition_type;
    return r;
  }
  r.passed = condition_matches(e, *c);
  r.detail = describe_condition(*c);
  return r;
}

// `kubectl logs [--previous] POD [-c CONTAINER]` at the end of the run.
ExpectationResult check_log(const Expectation& e, const RunResult& run, const ContainerLogReader& logs) {
  ExpectationResult r{e.description, false, "", e.where};
  const Cluster& c = *run.cluster;
  const std::optional<k8s::PodId> id = c.api.find_pod(e.ns, e.name);
  if (!id) {
    r.detail = "no pod " + e.ns + "/" + e.name + " at the end of the run";
    return r;
  }
  const k8s::PodRecord& rec = c.api.pod(*id);
  const auto& containers = rec.pod.spec.containers;
  auto it = std::find_if(containers.begin(), containers.end(),
                         [&](const k8s::Container& k) { return e.log_container.empty() || k.name == e.log_container; });
  if (it == containers.end()) {
    r.detail = "no container " + e.log_container + " in pod " + e.ns + "/" + e.name;
    return r;
  }
  // The kubelet keeps the previous run of a restarted container (the first one alone, in eksim).
  if (e.log_previous && (!rec.pod.status.last_termination || it != containers.begin())) {
    r.detail = "no previous terminated container " + it->name;
    return r;
  }
  if (!logs) {
    r.detail = "container logs are not available to this check";
    return r;
  }
  const std::string text = logs(c, rec, *it, e.log_previous);
  const auto pos = text.find(e.message_contains);
  r.passed = (pos != std::string::npos) != e.absent;
  if (pos == std::string::npos) {
    r.detail = "not in the " + std::to_string(text.size()) + "-byte log of " + it->name;
  } else {
    const auto bol = text.rfind('\n', pos), eol = text.find('\n', pos);
    const std::size_t from = bol == std::string::npos ? 0 : bol + 1;
    r.detail = "found: " + text.substr(from, eol == std::string::npos ? std::string::npos : eol - from);
  }
  return r;
}

ExpectationResult check_job(const Expectation& e, const RunResult& run) {
  ExpectationResult r{e.description, false, "no job " + e.ns + "/" + e.name, e.where};
  bool found = false;
  for_each_job_facts(run, [&](const JobFacts& j) {
    if (found || j.name != e.name || j.ns != e.ns) return;
    found = true;
    bool in_time = !e.by || (j.finished_at && *j.finished_at <= *e.by);
    r.passed = j.status == e.job_status && in_time;
    r.detail = "job is " + j.status + (j.reason.empty() ? "" : " (" + j.reason + ")") +
               (j.finished_at ? " since " + fmt_time(*j.finished_at) : "");
  });
  return r;
}

ExpectationResult check_cost(const Expectation& e, const RunResult& run) {
  ExpectationResult r{e.description, false, "", e.where};
  double total = total_cost_usd(run);
  r.passed = (!e.max_usd || total <= *e.max_usd) && (!e.min_usd || total >= *e.min_usd);
  char buf[128];
  std::snprintf(buf, sizeof buf, "total $%.4f", total);
  r.detail = buf;
  return r;
}

}  // namespace

std::vector<ExpectationResult> check_expectations(const RunResult& run, const ContainerLogReader& logs) {
  std::vector<ExpectationResult> out;
  for (const auto& e : run.scenario->expectations) {
    // The run ended before the time the expectation names (`--until`, or a sweep's `until`).
    if ((e.at && *e.at > run.end) || (e.by && *e.by > run.end)) {
      out.push_back(ExpectationResult{e.description, false,
                                      "the run ended at " + fmt_time(run.end) + ", before " +
                                          (e.at ? "\"at\" " + fmt_time(*e.at) : "\"by\" " + fmt_time(*e.by)),
                                      e.where});
      continue;
    }
    if (e.subject == "pod") out.push_back(check_pod(e, run));
    else if (e.subject == "event") out.push_back(check_event(e, run));
    else if (e.subject == "hint") out.push_back(check_hint(e, run));
    else if (e.subject == "nodes") out.push_back(check_nodes(e, run));
    else if (e.subject == "nodeGroup") out.push_back(check_node_group(e, run));
    else if (e.subject == "job") out.push_back(check_job(e, run));
    else if (e.subject == "subnet") out.push_back(check_subnet(e, run));
    else if (e.subject == "nodePool" || e.subject == "nodeClass") out.push_back(check_karpenter_condition(e, run));
    else if (e.subject == "log") out.push_back(check_log(e, run, logs));
    else out.push_back(check_cost(e, run));
  }
  return out;
}

}  // namespace eksim::report
