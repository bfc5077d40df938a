// apps/v1 Deployments, their ReplicaSets and DaemonSets, batch/v1 Jobs: spec from the model, status counted from
// the pods they own (what their controllers would write).
#include "sim/serve/resources/render.hpp"

namespace eksim::serve {

using nlohmann::json;

namespace {

json selector(const k8s::LabelSelector& s) {
  json out = json::object();
  if (!s.match_labels.empty()) out["matchLabels"] = s.match_labels;
  if (!s.match_expressions.empty()) {
    json exprs = json::array();
    for (const auto& e : s.match_expressions) exprs.push_back({{"key", e.key}, {"operator", e.op}, {"values", e.values}});
    out["matchExpressions"] = exprs;
  }
  return out;
}

json pod_template(const k8s::PodTemplate& t) {
  json containers = json::array();
  for (const auto& c : t.spec.containers) {
    json cj = {{"name", c.name}, {"image", c.image}};
    if (!c.command.empty()) cj["command"] = c.command;
    if (!c.args.empty()) cj["args"] = c.args;
    containers.push_back(cj);
  }
  json meta = json::object();
  if (!t.meta.labels.empty()) meta["labels"] = t.meta.labels;
  json spec = {{"containers", containers}, {"restartPolicy", t.spec.restart_policy}};
  if (!t.spec.node_selector.empty()) spec["nodeSelector"] = t.spec.node_selector;
  return {{"metadata", meta}, {"spec", spec}};
}

struct PodCounts {
  int total = 0, ready = 0;
};

// Live pods owned (through a ReplicaSet for Deployments) by the named owner.
PodCounts count_pods(const Cluster& c, const std::string& ns, const std::string& owner_kind, const std::string& owner_prefix,
                     bool by_prefix) {
  PodCounts n;
  for (std::size_t i = 0; i < c.api.pod_slots(); ++i) {
    const k8s::PodRecord& rec = c.api.pod(k8s::PodId{static_cast<std::uint32_t>(i)});
    if (rec.deleted || rec.terminating || rec.pod.meta.ns != ns) continue;
    for (const auto& o : rec.pod.meta.owner_references) {
      if (o.kind != owner_kind) continue;
      if (by_prefix ? o.name.rfind(owner_prefix, 0) == 0 : o.name == owner_prefix) {
        ++n.total;
        if (rec.pod.status.phase == k8s::PodPhase::Running && rec.pod.status.reason != "CrashLoopBackOff") ++n.ready;
      }
    }
  }
  return n;
}

// The ReplicaSet a Deployment's controller made for its one pod template: <deploy>-<hash>, the
// template's labels plus pod-template-hash, owned by the Deployment (revision 1: eksim rolls out
// no template changes, so there is never a second one).
json replica_set(const RenderContext& ctx, const k8s::Deployment& d, const PodCounts& n) {
  const std::string name = d.meta.name + "-" + d.pod_template_hash;
  json meta = render_meta(d.meta, ctx.time);
  meta["name"] = name;
  meta["uid"] = uid_of("ReplicaSet", d.meta.ns + "/" + name);
  json labels = d.tmpl.meta.labels.empty() ? json::object() : json(d.tmpl.meta.labels);
  labels["pod-template-hash"] = d.pod_template_hash;
  meta["labels"] = labels;
  meta["annotations"] = {{"deployment.kubernetes.io/desired-replicas", std::to_string(d.replicas)},
                         {"deployment.kubernetes.io/max-replicas", std::to_string(d.replicas + (d.replicas + 3) / 4)},
                         {"deployment.kubernetes.io/revision", "1"}};
  meta["ownerReferences"] = json::array({{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", d.meta.name},
                                          {"uid", d.meta.uid}, {"controller", true}, {"blockOwnerDeletion", true}}});
  meta["generation"] = 1;
  json sel = selector(d.selector);
  sel["matchLabels"]["pod-template-hash"] = d.pod_template_hash;
  json tmpl = pod_template(d.tmpl);
  tmpl["metadata"]["labels"] = labels;
  json status = {{"replicas", n.total}, {"fullyLabeledReplicas", n.total}, {"observedGeneration", 1}};
  if (n.ready > 0) {
    status["readyReplicas"] = n.ready;
    status["availableReplicas"] = n.ready;
  }
  return {{"apiVersion", "apps/v1"},
          {"kind", "ReplicaSet"},
          {"metadata", meta},
          {"spec", {{"replicas", d.replicas}, {"selector", sel}, {"template", tmpl}}},
          {"status", status}};
}

}  // namespace

void render_workloads(const RenderContext& ctx, ObjectMap& deployments, ObjectMap& replicasets, ObjectMap& daemonsets,
                      ObjectMap& jobs) {
  const Cluster& c = ctx.cluster;
  auto& api = const_cast<Cluster&>(c).api;  // the workload deques have no const accessors; read only
  for (const auto& d : api.deployments()) {
    if (d.deleted) continue;
    PodCounts n = count_pods(c, d.meta.ns, "ReplicaSet", d.meta.name + "-" + d.pod_template_hash, false);
    replicasets[object_key(d.meta.ns, d.meta.name + "-" + d.pod_template_hash)] = replica_set(ctx, d, n);
    json status = {{"observedGeneration", 1}, {"replicas", n.total}, {"updatedReplicas", n.total},
                   {"readyReplicas", n.ready}, {"availableReplicas", n.ready}};
    if (n.total > n.ready) status["unavailableReplicas"] = n.total - n.ready;
    status["conditions"] = json::array(
        {{{"type", "Available"}, {"status", n.ready >= d.replicas ? "True" : "False"},
          {"reason", n.ready >= d.replicas ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable"},
          {"message", n.ready >= d.replicas ? "Deployment has minimum availability." : "Deployment does not have minimum availability."},
          {"lastUpdateTime", ctx.time.at(d.meta.creation_timestamp)}, {"lastTransitionTime", ctx.time.at(d.meta.creation_timestamp)}}});
    json meta = render_meta(d.meta, ctx.time);
    meta["generation"] = 1;
    deployments[object_key(d.meta.ns, d.meta.name)] =
        json{{"apiVersion", "apps/v1"},
             {"kind", "Deployment"},
             {"metadata", meta},
             {"spec", {{"replicas", d.replicas}, {"selector", selector(d.selector)}, {"template", pod_template(d.tmpl)},
                       {"strategy", {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", "25%"}, {"maxUnavailable", "25%"}}}}}}},
             {"status", status}};
  }
  for (const auto& ds : api.daemon_sets()) {
    if (ds.deleted) continue;
    PodCounts n = count_pods(c, ds.meta.ns, "DaemonSet", ds.meta.name, false);
    json meta = render_meta(ds.meta, ctx.time);
    meta["generation"] = 1;
    daemonsets[object_key(ds.meta.ns, ds.meta.name)] =
        json{{"apiVersion", "apps/v1"},
             {"kind", "DaemonSet"},
             {"metadata", meta},
             {"spec", {{"selector", selector(ds.selector)}, {"template", pod_template(ds.tmpl)}}},
             {"status", {{"desiredNumberScheduled", n.total}, {"currentNumberScheduled", n.total}, {"numberReady", n.ready},
                         {"updatedNumberScheduled", n.total}, {"numberAvailable", n.ready}, {"numberMisscheduled", 0},
                         {"observedGeneration", 1}}}};
  }
  for (const auto& j : api.jobs()) {
    if (j.deleted) continue;
    json status = {{"active", j.active}, {"succeeded", j.succeeded}, {"failed", j.failed}};
    status["startTime"] = ctx.time.at(j.meta.creation_timestamp);
    if (j.completed_at) status["completionTime"] = ctx.time.at(*j.completed_at);
    if (!j.condition.empty()) {
      json cond = {{"type", j.condition}, {"status", "True"}};
      if (!j.condition_reason.empty()) cond["reason"] = j.condition_reason;
      status["conditions"] = json::array({cond});
    }
    jobs[object_key(j.meta.ns, j.meta.name)] =
        json{{"apiVersion", "batch/v1"},
             {"kind", "Job"},
             {"metadata", render_meta(j.meta, ctx.time)},
             {"spec", {{"completions", j.completions}, {"parallelism", j.parallelism}, {"backoffLimit", j.backoff_limit},
                       {"completionMode", j.completion_mode}, {"template", pod_template(*j.tmpl)}}},
             {"status", status}};
  }
}

}  // namespace eksim::serve
