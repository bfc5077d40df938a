// Events from the event log's correlated series (what the API server holds after the client-go
// recorder folded repeats): core/v1 for `kubectl get events` and `describe`, events.k8s.io/v1
// for `kubectl events`. AWS-side records (ASG activities, EKS errors) are not Kubernetes Events.
#include <fmt/format.h>

#include <set>

#include "sim/serve/resources/render.hpp"

namespace eksim::serve {

using nlohmann::json;

namespace {

const std::set<std::string>& kubernetes_kinds() {
  static const std::set<std::string> kinds{"Pod", "Node", "Deployment", "ReplicaSet", "DaemonSet", "Job", "ConfigMap",
                                           "PodDisruptionBudget", "NodePool", "NodeClaim", "EC2NodeClass", "NodeClass",
                                           "Namespace"};
  return kinds;
}

std::string api_version_of(const std::string& kind) {
  if (kind == "Deployment" || kind == "ReplicaSet" || kind == "DaemonSet") return "apps/v1";
  if (kind == "Job") return "batch/v1";
  if (kind == "PodDisruptionBudget") return "policy/v1";
  if (kind == "NodePool" || kind == "NodeClaim") return "karpenter.sh/v1";
  if (kind == "EC2NodeClass") return "karpenter.k8s.aws/v1";
  if (kind == "NodeClass") return "eks.amazonaws.com/v1";
  return "v1";
}

}  // namespace

void render_events(const RenderContext& ctx, ObjectMap& core, ObjectMap& events_k8s_io) {
  const Cluster& c = ctx.cluster;
  const TimeBase& tb = ctx.time;
  c.log.for_each_series([&](const k8s::Event& e, std::size_t i) {
    if (!kubernetes_kinds().count(e.object.kind)) return;
    // The training model's records are a worker's log lines (kubectl logs serves them) and
    // eksim's own account of the job; no Kubernetes component records them as Events.
    if (e.source == "training") return;
    // Events of cluster-scoped objects live in "default", as the recorders write them.
    std::string ns = e.object.ns.empty() ? "default" : e.object.ns;
    std::string uid;
    if (e.object.kind == "Pod") {
      if (auto id = c.api.find_pod(e.object.ns, e.object.name)) uid = c.api.pod(*id).pod.meta.uid;
    } else if (e.object.kind == "ConfigMap") {
      uid = uid_of("ConfigMap", e.object.ns + "/" + e.object.name);  // as config_maps.cpp serves it
    } else if (e.object.kind == "Node") {
      uid = e.object.name;  // the kubelet and node controllers record node events with UID = name
    } else if (e.object.kind == "NodePool" || e.object.kind == "NodeClaim" || e.object.kind == "EC2NodeClass" ||
               e.object.kind == "NodeClass") {
      uid = uid_of(e.object.kind, e.object.name);
    }
    std::string name = fmt::format("{}.{:016x}", e.object.name.empty() ? "eksim" : e.object.name,
                                   0x187a0000000000ULL + i);
    engine::SimTime last = e.count > 1 ? e.last_time : e.time;
    json involved = {{"kind", e.object.kind}, {"name", e.object.name}, {"apiVersion", api_version_of(e.object.kind)}};
    if (!e.object.ns.empty()) involved["namespace"] = e.object.ns;
    if (!uid.empty()) involved["uid"] = uid;
    json meta = {{"name", name}, {"namespace", ns}, {"uid", fmt::format("ev-{:012x}", i)},
                 {"creationTimestamp", tb.at(e.time)}};
    std::string host;
    if (e.source == "kubelet" && e.object.kind == "Pod")
      if (auto id = c.api.find_pod(e.object.ns, e.object.name)) host = c.api.pod(*id).pod.spec.node_name;
    json source = {{"component", e.source}};
    if (!host.empty()) source["host"] = host;
    core[object_key(ns, name)] = json{{"apiVersion", "v1"},
                                      {"kind", "Event"},
                                      {"metadata", meta},
                                      {"involvedObject", involved},
                                      {"reason", e.reason},
                                      {"message", e.message},
                                      {"source", source},
                                      {"firstTimestamp", tb.at(e.time)},
                                      {"lastTimestamp", tb.at(last)},
                                      {"count", e.count},
                                      {"type", k8s::to_string(e.type)},
                                      {"eventTime", nullptr},
                                      {"reportingComponent", e.source},
                                      {"reportingInstance", host}};
    events_k8s_io[object_key(ns, name)] = json{{"apiVersion", "events.k8s.io/v1"},
                                               {"kind", "Event"},
                                               {"metadata", meta},
                                               {"regarding", involved},
                                               {"reason", e.reason},
                                               {"note", e.message},
                                               {"type", k8s::to_string(e.type)},
                                               {"eventTime", nullptr},
                                               {"reportingController", e.source},
                                               {"reportingInstance", host},
                                               {"deprecatedSource", source},
                                               {"deprecatedFirstTimestamp", tb.at(e.time)},
                                               {"deprecatedLastTimestamp", tb.at(last)},
                                               {"deprecatedCount", e.count}};
  });
}

}  // namespace eksim::serve
