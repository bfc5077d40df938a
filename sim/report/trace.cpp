#include "sim/report/trace.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

#include "sim/report/run_facts.hpp"

namespace eksim::report {

namespace {

using Json = nlohmann::ordered_json;

constexpr int kControlPlanePid = 1;
constexpr int kDecisionsTid = 1, kWarningsTid = 2, kActivitiesTid = 3;

Json meta(const char* what, int pid, int tid, const std::string& name) {
  Json e{{"name", what}, {"ph", "M"}, {"pid", pid}};
  if (tid >= 0) e["tid"] = tid;
  e["args"] = Json{{"name", name}};
  return e;
}

Json sort_index(const char* what, int pid, int tid, int index) {
  Json e{{"name", what}, {"ph", "M"}, {"pid", pid}};
  if (tid >= 0) e["tid"] = tid;
  e["args"] = Json{{"sort_index", index}};
  return e;
}

Json slice(const std::string& name, const char* cat, int pid, int tid, engine::SimTime from, engine::SimTime to, Json args) {
  return Json{{"name", name}, {"cat", cat}, {"ph", "X"}, {"pid", pid}, {"tid", tid},
              {"ts", from.us}, {"dur", std::max<std::int64_t>(0, (to - from).us)}, {"args", std::move(args)}};
}

Json instant(const std::string& name, const char* cat, int pid, int tid, engine::SimTime at, Json args) {
  return Json{{"name", name}, {"cat", cat}, {"ph", "i"}, {"s", "t"}, {"pid", pid}, {"tid", tid}, {"ts", at.us},
              {"args", std::move(args)}};
}

bool is_autoscaler(const std::string& source) {
  return source == "cluster-autoscaler" || source == "karpenter" || source.rfind("karpenter", 0) == 0;
}

void add_control_plane(Json& events) {
  events.push_back(meta("process_name", kControlPlanePid, -1, "control plane"));
  events.push_back(sort_index("process_sort_index", kControlPlanePid, -1, 0));
  events.push_back(meta("thread_name", kControlPlanePid, kDecisionsTid, "autoscaler decisions"));
  events.push_back(meta("thread_name", kControlPlanePid, kWarningsTid, "Warning events"));
  events.push_back(meta("thread_name", kControlPlanePid, kActivitiesTid, "Auto Scaling activities"));
}

// Node name -> the slots of the pods bound to it, in creation order.
std::map<std::string, std::vector<std::size_t>> pods_by_node(const Cluster& c) {
  std::map<std::string, std::vector<std::size_t>> pods_on;
  for (std::size_t p = 0; p < c.api.pod_slots(); ++p) {
    const k8s::Pod& pod = c.api.pod(k8s::PodId{static_cast<std::uint32_t>(p)}).pod;
    if (!pod.spec.node_name.empty()) pods_on[pod.spec.node_name].push_back(p);
  }
  return pods_on;
}

// Processes by owner (node group, NodePool), numbered in order of first appearance; each node
// is a thread with its pod lanes right after it.
struct Processes {
  std::map<std::string, int> pid_of;
  std::map<int, int> next_tid;
  int next_pid = kControlPlanePid + 1;
};

int process_of(Processes& procs, const k8s::NodeRecord& rec, Json& events) {
  std::string owner = !rec.node_group.empty() ? "node group " + rec.node_group
                      : !rec.node_pool.empty() ? "NodePool " + rec.node_pool
                                               : "other nodes";
  auto [it, added] = procs.pid_of.emplace(owner, procs.next_pid);
  int pid = it->second;
  if (added) {
    ++procs.next_pid;
    events.push_back(meta("process_name", pid, -1, owner));
    events.push_back(sort_index("process_sort_index", pid, -1, pid));
  }
  return pid;
}

// The node's launching, registering and Ready slices and its termination.
void add_node_phases(Json& events, const ops::RunResult& run, const k8s::NodeRecord& rec, int pid, int tid,
                     const std::string& type, const std::map<std::string, engine::SimTime>& launched) {
  engine::SimTime gone = std::min(rec.deleted_at.value_or(run.end), run.end);
  Json args{{"instanceId", rec.instance_id}, {"instanceType", type}, {"capacityType", rec.capacity_type}};
  auto l = launched.find(rec.instance_id);
  engine::SimTime registered = rec.registered_at.value_or(gone);
  if (l != launched.end() && l->second < registered)
    events.push_back(slice("launching", "node", pid, tid, l->second, registered, args));
  if (rec.registered_at) {
    engine::SimTime ready = rec.ready_at.value_or(gone);
    if (ready > registered || !rec.ready_at) events.push_back(slice("registering", "node", pid, tid, registered, ready, args));
    if (rec.ready_at) events.push_back(slice("Ready", "node", pid, tid, *rec.ready_at, gone, args));
  }
  if (rec.deleted_at && *rec.deleted_at <= run.end)
    events.push_back(instant("terminated", "node", pid, tid, *rec.deleted_at, args));
}

// Pods bound to this node, greedily packed into lanes.
void add_pod_lanes(Json& events, const ops::RunResult& run, const std::string& name,
                   const std::vector<std::size_t>& pods, int pid, int tid) {
  const Cluster& c = *run.cluster;
  struct PodSpan {
    engine::SimTime from, to;
    const k8s::Pod* pod;
  };
  std::vector<PodSpan> spans;
  for (std::size_t p : pods) {
    const k8s::Pod& pod = c.api.pod(k8s::PodId{static_cast<std::uint32_t>(p)}).pod;
    if (!pod.status.scheduled_at) continue;
    engine::SimTime to = std::min(pod.status.finished_at.value_or(run.end), run.end);
    spans.push_back(PodSpan{*pod.status.scheduled_at, std::max(to, *pod.status.scheduled_at), &pod});
  }
  std::stable_sort(spans.begin(), spans.end(), [](const PodSpan& a, const PodSpan& b) { return a.from < b.from; });
  std::vector<engine::SimTime> lane_free;
  for (const auto& s : spans) {
    std::size_t lane = 0;
    while (lane < lane_free.size() && lane_free[lane] > s.from) ++lane;
    if (lane == lane_free.size()) {
      lane_free.push_back(s.to);
      int lane_tid = tid + 1 + static_cast<int>(lane);
      events.push_back(meta("thread_name", pid, lane_tid, name + " pods"));
      events.push_back(sort_index("thread_sort_index", pid, lane_tid, lane_tid));
    }
    lane_free[lane] = s.to;
    const k8s::Pod& pod = *s.pod;
    Json pargs{{"phase", k8s::to_string(pod.status.phase)},
               {"reason", pod.status.reason},
               {"createdAt", pod.meta.creation_timestamp.to_seconds()},
               {"gpus", k8s::pod_requests(pod.spec).get(k8s::kNvidiaGpu)}};
    events.push_back(slice(pod.meta.ns + "/" + pod.meta.name, "pod", pid, tid + 1 + static_cast<int>(lane), s.from, s.to,
                           std::move(pargs)));
  }
}

// Node slots are in creation order, so processes and threads number in order of appearance.
void add_nodes(Json& events, const ops::RunResult& run) {
  const Cluster& c = *run.cluster;
  std::map<std::string, engine::SimTime> launched;  // instance id -> launch
  for (const auto& inst : c.ec2.instances()) launched[inst.id] = inst.launched_at;
  auto pods_on = pods_by_node(c);
  Processes procs;
  for (std::size_t i = 0; i < c.api.node_slots(); ++i) {
    const k8s::NodeRecord& rec = c.api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
    int pid = process_of(procs, rec, events);
    const std::string& name = rec.node.meta.name;
    int tid = (procs.next_tid[pid] += 1000);  // room for the node's pod lanes right after it
    auto type_it = rec.node.meta.labels.find(k8s::kLabelInstanceType);
    std::string type = type_it == rec.node.meta.labels.end() ? "" : type_it->second;
    events.push_back(meta("thread_name", pid, tid, name + (type.empty() ? "" : " (" + type + ")")));
    events.push_back(sort_index("thread_sort_index", pid, tid, tid));
    add_node_phases(events, run, rec, pid, tid, type, launched);
    add_pod_lanes(events, run, name, pods_on[name], pid, tid);
  }
}

// Autoscaler decisions and Warning events as instants, Auto Scaling activities as slices.
void add_control_plane_events(Json& events, const ops::RunResult& run) {
  const Cluster& c = *run.cluster;
  c.log.for_each_series([&](const k8s::Event& e, std::size_t) {
    if (e.time > run.end) return;
    Json args{{"object", e.object.str()}, {"message", e.message}, {"source", e.source}};
    if (is_autoscaler(e.source)) events.push_back(instant(e.reason, "autoscaler", kControlPlanePid, kDecisionsTid, e.time, args));
    if (e.type == k8s::EventType::Warning)
      events.push_back(instant(e.reason, "warning", kControlPlanePid, kWarningsTid, e.time, args));
  });
  for (const auto& a : c.activities) {
    if (a.start > run.end) continue;
    std::string resource = a.service == "autoscaling" ? node_group_of_asg(run, a.resource) : a.resource;
    events.push_back(slice(a.status + ": " + a.description, "activity", kControlPlanePid, kActivitiesTid, a.start,
                           std::max(a.start, std::min(a.end, run.end)),
                           Json{{"service", a.service}, {"resource", resource}, {"cause", a.cause}, {"statusMessage", a.status_message}}));
  }
}

}  // namespace

std::string chrome_trace(const ops::RunResult& run) {
  Json events = Json::array();
  add_control_plane(events);
  add_nodes(events, run);
  add_control_plane_events(events, run);
  Json doc{{"displayTimeUnit", "ms"},
           {"otherData", Json{{"scenario", run.scenario->name}, {"seed", run.seed}, {"endTimeSeconds", run.end.to_seconds()}}},
           {"traceEvents", std::move(events)}};
  return doc.dump() + "\n";
}

}  // namespace eksim::report
