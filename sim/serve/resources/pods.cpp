// core/v1 Pod from the model's PodRecord: spec as admitted, status derived from the kubelet
// model's phase and reason the way the kubelet reports container states.
#include <fmt/format.h>

#include "models/k8s/api/resources.hpp"
#include "sim/serve/resources/render.hpp"

namespace eksim::serve {

using nlohmann::json;

std::string object_key(const std::string& ns, const std::string& name) { return ns.empty() ? name : ns + "/" + name; }

json render_meta(const k8s::ObjectMeta& meta, const TimeBase& time) {
  json m = {{"name", meta.name}, {"uid", meta.uid}, {"creationTimestamp", time.at(meta.creation_timestamp)}};
  if (!meta.ns.empty()) m["namespace"] = meta.ns;
  if (!meta.labels.empty()) m["labels"] = meta.labels;
  if (!meta.annotations.empty()) m["annotations"] = meta.annotations;
  if (!meta.owner_references.empty()) {
    json refs = json::array();
    for (const auto& o : meta.owner_references) {
      std::string api = o.kind == "ReplicaSet" || o.kind == "DaemonSet" ? "apps/v1"
                        : o.kind == "Job"                                ? "batch/v1"
                        : o.kind == "NodeClaim"                          ? "karpenter.sh/v1"
                        : o.kind == "ClusterPolicy"                      ? "nvidia.com/v1"
                                                                         : "v1";
      // ReplicaSets are rendered from their Deployment under this uid (resources/workloads.cpp).
      std::string uid = o.kind == "ReplicaSet"      ? uid_of("ReplicaSet", meta.ns + "/" + o.name)
                        : o.kind == "ClusterPolicy" ? uid_of("ClusterPolicy", o.name)
                                                    : "";
      refs.push_back({{"apiVersion", api}, {"kind", o.kind}, {"name", o.name}, {"uid", uid}, {"controller", o.controller},
                      {"blockOwnerDeletion", true}});
    }
    m["ownerReferences"] = refs;
  }
  return m;
}

namespace {

json resources(const k8s::ResourceList& l) {
  json out = json::object();
  for (auto [name, amount] : l.items()) out[name] = k8s::format_amount(name, amount);
  return out;
}

json container(const k8s::Container& c) {
  json out = {{"name", c.name},
              {"image", c.image},
              {"imagePullPolicy", c.image.find(":latest") != std::string::npos || c.image.find(':') == std::string::npos
                                      ? "Always"
                                      : "IfNotPresent"},
              {"terminationMessagePath", "/dev/termination-log"},
              {"terminationMessagePolicy", "File"}};
  if (!c.command.empty()) out["command"] = c.command;
  if (!c.args.empty()) out["args"] = c.args;
  json res = json::object();
  if (!c.limits.empty()) res["limits"] = resources(c.limits);
  if (!c.requests.empty()) res["requests"] = resources(c.requests);
  out["resources"] = res;
  if (!c.ports.empty()) {
    json ports = json::array();
    for (const auto& p : c.ports) {
      json pj = {{"containerPort", p.container_port}, {"protocol", p.protocol}};
      if (p.host_port) pj["hostPort"] = p.host_port;
      ports.push_back(pj);
    }
    out["ports"] = ports;
  }
  return out;
}

json toleration(const k8s::Toleration& t) {
  json out = json::object();
  if (!t.key.empty()) out["key"] = t.key;
  out["operator"] = t.op.empty() ? "Equal" : t.op;
  if (!t.value.empty()) out["value"] = t.value;
  if (!t.effect.empty()) out["effect"] = t.effect;
  if (t.toleration_seconds) out["tolerationSeconds"] = *t.toleration_seconds;
  return out;
}

json container_status(const k8s::Container& c, const k8s::PodRecord& rec, const TimeBase& tb) {
  const k8s::PodStatus& s = rec.pod.status;
  json st = {{"name", c.name}, {"image", c.image}, {"imageID", ""}, {"restartCount", s.restart_count},
             {"started", false}, {"ready", false}};
  const std::optional<engine::SimTime> run_started = s.container_started_at ? s.container_started_at : s.started_at;
  json state;
  if (s.phase == k8s::PodPhase::Running && s.reason != "CrashLoopBackOff") {
    state = {{"running", {{"startedAt", tb.at(run_started.value_or(rec.pod.meta.creation_timestamp))}}}};
    st["ready"] = !rec.terminating;
    st["started"] = true;
  } else if (s.phase == k8s::PodPhase::Succeeded || s.phase == k8s::PodPhase::Failed) {
    bool ok = s.phase == k8s::PodPhase::Succeeded;
    json term = {{"exitCode", ok ? 0 : 1}, {"reason", ok ? "Completed" : "Error"}};
    if (run_started) term["startedAt"] = tb.at(*run_started);
    if (s.finished_at) term["finishedAt"] = tb.at(*s.finished_at);
    state = {{"terminated", term}};
  } else if (s.reason == "CrashLoopBackOff") {
    state = {{"waiting", {{"reason", "CrashLoopBackOff"},
                          {"message", fmt::format("back-off restarting failed container={} pod={}_{}({})", c.name,
                                                  rec.pod.meta.name, rec.pod.meta.ns, rec.pod.meta.uid)}}}};
  } else {
    state = {{"waiting", {{"reason", s.reason.empty() ? "ContainerCreating" : s.reason}}}};
  }
  st["state"] = state;
  // The run the kubelet restarted the container after (first container only: the model follows
  // a pod's first container through exits).
  json last = json::object();
  if (s.last_termination && c.name == rec.pod.spec.containers.front().name) {
    const auto& t = *s.last_termination;
    last = {{"terminated", {{"exitCode", t.exit_code},
                            {"reason", t.exit_code == 0 ? "Completed" : "Error"},
                            {"startedAt", tb.at(t.started_at)},
                            {"finishedAt", tb.at(t.finished_at)}}}};
  }
  st["lastState"] = last;
  return st;
}

json condition(const std::string& type, bool status, engine::SimTime t, const TimeBase& tb, const std::string& reason = {},
               const std::string& message = {}) {
  json c = {{"type", type}, {"status", status ? "True" : "False"}, {"lastProbeTime", nullptr},
            {"lastTransitionTime", tb.at(t)}};
  if (!reason.empty()) c["reason"] = reason;
  if (!message.empty()) c["message"] = message;
  return c;
}

std::string qos_class(const k8s::PodSpec& spec) {
  bool any = false, guaranteed = true;
  for (const auto& c : spec.containers) {
    if (!c.requests.empty() || !c.limits.empty()) any = true;
    if (c.limits.get(k8s::kCpu) == 0 || c.limits.get(k8s::kMemory) == 0 || !(c.requests == c.limits)) guaranteed = false;
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

using OwnerUids = std::map<std::string, std::string>;  // "Kind/ns/name" -> uid

// The model's owner references name their DaemonSet or Job; the API shows the owner's uid
// (garbage collection and `kubectl get pods -o yaml` readers match on it).
OwnerUids owner_uids(const Cluster& c) {
  OwnerUids uids;
  auto& api = const_cast<Cluster&>(c).api;  // the workload deques have no const accessors; read only
  for (const auto& ds : api.daemon_sets()) uids["DaemonSet/" + ds.meta.ns + "/" + ds.meta.name] = ds.meta.uid;
  for (const auto& j : api.jobs()) uids["Job/" + j.meta.ns + "/" + j.meta.name] = j.meta.uid;
  return uids;
}

json pod_meta(const k8s::PodRecord& rec, const OwnerUids& uids, const TimeBase& tb) {
  const k8s::Pod& p = rec.pod;
  json meta = render_meta(p.meta, tb);
  if (meta.contains("ownerReferences"))
    for (json& ref : meta["ownerReferences"])
      if (ref["uid"] == "")
        if (auto it = uids.find(ref["kind"].get<std::string>() + "/" + p.meta.ns + "/" + ref["name"].get<std::string>());
            it != uids.end())
          ref["uid"] = it->second;
  if (rec.terminating) {
    meta["deletionTimestamp"] = tb.at(rec.terminating_since);
    meta["deletionGracePeriodSeconds"] = p.spec.termination_grace_period_seconds;
  }
  return meta;
}

// The spec as admitted, with the defaults the API server fills in.
json pod_spec(const k8s::PodSpec& ps) {
  json spec = json::object();
  json containers = json::array();
  for (const auto& ctr : ps.containers) containers.push_back(container(ctr));
  spec["containers"] = containers;
  if (!ps.init_containers.empty()) {
    json inits = json::array();
    for (const auto& ctr : ps.init_containers) inits.push_back(container(ctr));
    spec["initContainers"] = inits;
  }
  spec["restartPolicy"] = ps.restart_policy;
  spec["terminationGracePeriodSeconds"] = ps.termination_grace_period_seconds;
  spec["dnsPolicy"] = "ClusterFirst";
  spec["serviceAccountName"] = "default";
  spec["serviceAccount"] = "default";
  spec["schedulerName"] = ps.scheduler_name;
  spec["priority"] = ps.priority;
  if (!ps.priority_class_name.empty()) spec["priorityClassName"] = ps.priority_class_name;
  spec["enableServiceLinks"] = true;
  spec["preemptionPolicy"] = "PreemptLowerPriority";
  if (!ps.node_selector.empty()) spec["nodeSelector"] = ps.node_selector;
  if (!ps.node_name.empty()) spec["nodeName"] = ps.node_name;
  if (ps.host_network) spec["hostNetwork"] = true;
  json tols = json::array();
  for (const auto& t : ps.tolerations) tols.push_back(toleration(t));
  spec["tolerations"] = tols;
  return spec;
}

// hostIP from the node's instance; podIP once the pod has one.
void add_addresses(json& status, const Cluster& c, const k8s::PodRecord& rec, k8s::PodId id) {
  std::string node_ip;
  if (rec.node.valid()) {
    const k8s::NodeRecord& n = c.api.node(rec.node);
    if (const aws::Instance* inst = c.ec2.find(n.instance_id)) node_ip = inst->private_ip;
  }
  if (node_ip.empty()) return;
  status["hostIP"] = node_ip;
  status["hostIPs"] = json::array({{{"ip", node_ip}}});
  // hostNetwork pods share the node's address; the others have one once the VPC CNI has
  // given their sandbox one (none while it fails with FailedCreatePodSandBox).
  const std::string* cni_ip = c.pod_networking->pod_ip(id);
  if (rec.pod.spec.host_network || cni_ip) {
    const std::string& ip = rec.pod.spec.host_network ? node_ip : *cni_ip;
    status["podIP"] = ip;
    status["podIPs"] = json::array({{{"ip", ip}}});
  }
}

// The conditions of a pod bound to a node, as the kubelet reports them.
json scheduled_conditions(const k8s::PodRecord& rec, const TimeBase& tb) {
  const k8s::Pod& p = rec.pod;
  json conds = json::array();
  bool running = p.status.phase == k8s::PodPhase::Running && p.status.reason != "CrashLoopBackOff";
  engine::SimTime started = p.status.started_at.value_or(*p.status.scheduled_at);
  bool initialized = p.status.started_at.has_value() || p.status.phase != k8s::PodPhase::Pending;
  conds.push_back(condition("PodReadyToStartContainers", initialized, started, tb));
  conds.push_back(condition("Initialized", true, *p.status.scheduled_at, tb));
  std::string why = running ? "" : (p.status.phase == k8s::PodPhase::Succeeded ? "PodCompleted" : "ContainersNotReady");
  std::string msg;
  if (why == "ContainersNotReady") msg = "containers with unready status: [" + (p.spec.containers.empty() ? "" : p.spec.containers[0].name) + "]";
  conds.push_back(condition("Ready", running && !rec.terminating, started, tb, why, msg));
  conds.push_back(condition("ContainersReady", running && !rec.terminating, started, tb, why, msg));
  conds.push_back(condition("PodScheduled", true, *p.status.scheduled_at, tb));
  return conds;
}

json pod_status(const Cluster& c, const k8s::PodRecord& rec, k8s::PodId id, const TimeBase& tb) {
  const k8s::Pod& p = rec.pod;
  json status = {{"phase", k8s::to_string(p.status.phase)}, {"qosClass", qos_class(p.spec)}};
  json conds = json::array();
  if (p.status.scheduled_at) {
    add_addresses(status, c, rec, id);
    status["startTime"] = tb.at(*p.status.scheduled_at);
    conds = scheduled_conditions(rec, tb);
    json statuses = json::array();
    for (const auto& ctr : p.spec.containers) statuses.push_back(container_status(ctr, rec, tb));
    status["containerStatuses"] = statuses;
  } else {
    conds.push_back(condition("PodScheduled", false, p.meta.creation_timestamp, tb,
                              p.status.message.empty() ? "" : "Unschedulable", p.status.message));
    if (!p.status.nominated_node_name.empty()) status["nominatedNodeName"] = p.status.nominated_node_name;
  }
  status["conditions"] = conds;
  if (!p.status.reason.empty() && p.status.reason != "ContainerCreating" && p.status.reason != "CrashLoopBackOff" &&
      p.status.reason != "Completed")
    status["reason"] = p.status.reason;
  return status;
}

}  // namespace

void render_pods(const RenderContext& ctx, ObjectMap& out) {
  const Cluster& c = ctx.cluster;
  const TimeBase& tb = ctx.time;
  const OwnerUids uids = owner_uids(c);
  for (std::size_t i = 0; i < c.api.pod_slots(); ++i) {
    const k8s::PodId id{static_cast<std::uint32_t>(i)};
    const k8s::PodRecord& rec = c.api.pod(id);
    if (rec.deleted) continue;
    const k8s::Pod& p = rec.pod;
    out[object_key(p.meta.ns, p.meta.name)] = json{{"apiVersion", "v1"},
                                                   {"kind", "Pod"},
                                                   {"metadata", pod_meta(rec, uids, tb)},
                                                   {"spec", pod_spec(p.spec)},
                                                   {"status", pod_status(c, rec, id, tb)}};
  }
}

}  // namespace eksim::serve
