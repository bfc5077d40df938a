// POST, PUT, PATCH and DELETE. A change enters the simulation through the same functions as
// the scenario's timeline actions (apply_manifests, kubectl_delete, kubectl_scale, ...), at the
// current simulated instant; the answer is the object as the store holds it afterwards.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <stdexcept>

#include "sim/ops/actions.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/scenario/input_limits.hpp"
#include "sim/scenario/k8s_manifest.hpp"
#include "sim/scenario/karpenter_manifest.hpp"
#include "sim/scenario/run_annotations.hpp"
#include "sim/scenario/scenario_size.hpp"
#include "sim/ops/kubectl_operations.hpp"
#include "sim/serve/api_handler.hpp"
#include "sim/serve/merge_patch.hpp"
#include "sim/serve/pod_exec.hpp"
#include "sim/serve/protobuf_body.hpp"

namespace eksim::serve {

using nlohmann::json;

namespace {

HttpResponse from_error(const ops::KubectlError& e, const ApiPath& p) {
  return status_error(e.code, e.reason, e.message, {{"name", p.name}, {"kind", p.type->resource}});
}

// kubectl 1.32's typed clients send protobuf (research/kubectl-api.md section 8).
bool is_protobuf(const HttpRequest& req) { return req.content_type.find("protobuf") != std::string::npos; }

// spec.replicas of a Deployment or its scale subresource: the API server's own validation
// (ValidateNonnegativeField, int32), then eksim's pod limit (sim/scenario/input_limits.hpp).
std::optional<HttpResponse> replicas_error(const std::string& kind, const std::string& name, const json& replicas) {
  const std::string prefix = kind + " \"" + name + "\" is invalid: spec.replicas: ";
  if (!replicas.is_number_integer()) return status_error(422, "Invalid", prefix + "Required value");
  const auto n = replicas.get<std::int64_t>();
  if (n < 0)
    return status_error(422, "Invalid", prefix + "Invalid value: " + std::to_string(n) + ": must be greater than or equal to 0");
  if (n > scenario::kMaxPods)
    return status_error(422, "Invalid", "eksim: " + std::to_string(n) + " replicas: eksim simulates at most " +
                                            std::to_string(scenario::kMaxPods) + " pods at once");
  return std::nullopt;
}

HttpResponse protobuf_refused() {
  return status_error(415, "UnsupportedMediaType",
                      "eksim serve reads protobuf bodies only for kubectl create namespace|configmap|deployment|job, "
                      "and this kubectl sent another one in protobuf; write the object as YAML instead: kubectl "
                      "create ... --dry-run=client -o yaml | kubectl apply -f -");
}

bool parse_body(const HttpRequest& req, json& out, HttpResponse& err) {
  try {
    out = json::parse(req.body);
  } catch (const json::exception&) {
    // Server-side apply bodies may be YAML.
    try {
      if (req.content_type.find("yaml") == std::string::npos) throw std::runtime_error("not yaml");
      YAML::Node n = YAML::Load(req.body);
      YAML::Emitter e;
      e << YAML::DoubleQuoted << YAML::Flow << YAML::BeginDoc << n;
      out = json::parse(std::string(e.c_str()).substr(4));
    } catch (const std::exception&) {
      err = status_error(400, "BadRequest", "the body of the request was in an unknown format - accepted media types include: "
                                            "application/json, application/yaml");
      return false;
    }
  }
  if (!out.is_object()) {
    err = status_error(400, "BadRequest", "Object 'Kind' is missing in '" + req.body.substr(0, 200) + "'");
    return false;
  }
  return true;
}

// Decodes one object with the scenario's manifest decoder (the apiserver's strict decoding and
// validation texts), or a 400/422 Status.
bool decode(Session& session, const json& object, std::vector<scenario::Manifest>& out, HttpResponse& err) {
  try {
    auto file = std::make_shared<const std::string>("<request body>");
    scenario::Value v(YAML::Load(object.dump()), file);
    const k8s::CustomResources& crds = session.cluster().api.custom_resources();
    out = scenario::parse_manifest_object(
        v, [&crds](const std::string& api_version, const std::string& kind) { return crds.serves(api_version, kind); });
  } catch (const scenario::InputError& e) {
    bool invalid = e.message().rfind("The ", 0) == 0;
    err = status_error(invalid ? 422 : 400, invalid ? "Invalid" : "BadRequest", e.message());
    return false;
  } catch (const std::exception& e) {
    err = status_error(400, "BadRequest", e.what());
    return false;
  }
  return true;
}

// What the apiserver keeps of an object a client sends back: status and server-set metadata go.
json client_fields(json o) {
  o.erase("status");
  if (o.contains("metadata") && o["metadata"].is_object()) {
    json& m = o["metadata"];
    for (const char* k : {"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "deletionTimestamp",
                          "deletionGracePeriodSeconds", "ownerReferences", "selfLink"})
      m.erase(k);
  }
  return o;
}

// Karpenter's kinds are modelled without metadata, ConfigMaps without annotations: the store keeps
// their labels and annotations (kubectl apply's last-applied-configuration among them).
void keep_metadata(Session& session, const ResourceType& t, const std::string& ns, const std::string& name, const json& obj) {
  if (t.kind != "NodePool" && t.kind != "EC2NodeClass" && t.kind != "NodeClass" && t.kind != "ConfigMap") return;
  json meta = json::object();
  for (const char* field : {"labels", "annotations"})
    if (obj["metadata"].contains(field) && obj["metadata"][field].is_object()) meta[field] = obj["metadata"][field];
  session.store().set_metadata(store_type(t), object_key(ns, name), meta);
}

// The Service allocator's refusal of an address asked for (out of range, taken, changed), as
// kube-apiserver answers it: 422 Invalid.
std::optional<HttpResponse> service_refusal(Session& session, const std::vector<scenario::Manifest>& manifests) {
  for (const auto& m : manifests)
    if (const auto* svc = std::get_if<k8s::Service>(&m.object))
      if (auto why = session.cluster().api.services().refusal(*svc))
        return status_error(422, "Invalid", *why, {{"name", svc->meta.name}, {"kind", "services"}});
  return std::nullopt;
}

HttpResponse create(Session& session, const HttpRequest& req, const ApiPath& p, json body, int created_code = 201) {
  const ResourceType& t = *p.type;
  if (!body.contains("kind")) body["kind"] = t.kind;
  if (!body.contains("apiVersion")) body["apiVersion"] = t.group_version();
  if (body.value("kind", "") != t.kind)
    return status_error(400, "BadRequest", "the API version in the data (" + body.value("apiVersion", "") +
                                               ") does not match the expected API version (" + t.group_version() + ")");
  if (t.namespaced) {
    std::string ns = body["metadata"].value("namespace", "");
    if (!ns.empty() && !p.ns.empty() && ns != p.ns)
      return status_error(400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request");
    body["metadata"]["namespace"] = p.ns.empty() ? (ns.empty() ? "default" : ns) : p.ns;
  }
  std::string name = body["metadata"].value("name", "");
  if (session.store().find(store_type(t), t.namespaced ? body["metadata"]["namespace"].get<std::string>() : "", name)) {
    std::string what = t.resource + (t.group.empty() ? "" : "." + t.group);
    return status_error(409, "AlreadyExists", what + " \"" + name + "\" already exists",
                        {{"name", name}, {"group", t.group}, {"kind", t.resource}});
  }
  std::vector<scenario::Manifest> manifests;
  HttpResponse err;
  if (!decode(session, client_fields(body), manifests, err)) return err;
  for (const auto& m : manifests)
    if (scenario::pods_at_once(m) > scenario::kMaxPods)
      return status_error(422, "Invalid", "eksim: " + t.kind + " \"" + name + "\" asks for " + std::to_string(scenario::pods_at_once(m)) +
                                              " pods at once; eksim simulates at most " + std::to_string(scenario::kMaxPods));
  if (auto bad = service_refusal(session, manifests)) return *bad;
  if (req.param("dryRun") == "All") return json_response(body, created_code);
  std::string ns = t.namespaced ? body["metadata"]["namespace"].get<std::string>() : "";
  keep_metadata(session, t, ns, name, body);
  session.apply_now([&manifests](Cluster& c) { ops::apply_manifests(c, manifests); });
  if (const StoredObject* o = session.store().find(store_type(t), ns, name)) return json_response(served_now(session, *o), created_code);
  // A kind the models keep apart from the store (a PodDisruptionBudget): echo what was stored.
  return json_response(body, created_code);
}

// The label changes from a to b: a new or changed value, or nullopt for a removed label.
std::map<std::string, std::optional<std::string>> labels_change(const json& a, const json& b) {
  std::map<std::string, std::optional<std::string>> change;
  json la = a["metadata"].value("labels", json::object()), lb = b["metadata"].value("labels", json::object());
  for (const auto& [k, v] : lb.items())
    if (!la.contains(k) || la[k] != v) change[k] = v.is_string() ? v.get<std::string>() : v.dump();
  for (const auto& [k, v] : la.items()) {
    (void)v;
    if (!lb.contains(k)) change[k] = std::nullopt;
  }
  return change;
}

// What an update did besides its answer: the operation that failed, and the changes eksim
// accepted without applying them (each a hint: eksim never speaks in kubectl's output).
struct UpdateOutcome {
  std::optional<ops::KubectlError> failure;
  std::vector<std::string> ignored;
};

// A Pod's labels and annotations; eksim's own annotations are decoded here, as at create: the
// kubelet reads them typed.
std::optional<HttpResponse> update_pod(Session& session, const ApiPath& p, const json& before, json& after,
                                       UpdateOutcome& outcome) {
  auto change = labels_change(before, after);
  k8s::Labels annotations;
  for (const auto& [k, v] : after["metadata"].value("annotations", json::object()).items())
    if (v.is_string()) annotations[k] = v.get<std::string>();
  k8s::RunAnnotations run;
  if (auto bad = scenario::decode_run_annotations(annotations, "metadata.annotations", run))
    return status_error(422, "Invalid", "Pod \"" + p.name + "\" is invalid: " + bad->field_error,
                        {{"name", p.name}, {"kind", "pods"}});
  if (client_fields(before)["spec"] != client_fields(after)["spec"])
    outcome.ignored.push_back("pod spec changes are not applied (the apiserver allows only image, activeDeadlineSeconds and added tolerations)");
  session.apply_now([&](Cluster& c) {
    if (!change.empty()) outcome.failure = ops::kubectl_label(c, "Pod", p.ns, p.name, change);
    if (auto id = c.api.find_pod(p.ns, p.name)) {
      c.api.pod(*id).pod.meta.annotations = annotations;
      c.api.pod(*id).pod.run = run;
      c.api.pod_updated(*id);
    }
  });
  return std::nullopt;
}

// A Node's labels, spec.unschedulable (cordon) and taints.
void update_node(Session& session, const ApiPath& p, const json& before, json& after, UpdateOutcome& outcome) {
  auto change = labels_change(before, after);
  bool cordon = after["spec"].value("unschedulable", false);
  std::vector<k8s::Taint> taints;
  for (const auto& tj : after["spec"].value("taints", json::array()))
    taints.push_back({tj.value("key", ""), tj.value("value", ""), tj.value("effect", "")});
  session.apply_now([&](Cluster& c) {
    if (!change.empty()) outcome.failure = ops::kubectl_label(c, "Node", "", p.name, change);
    if (!outcome.failure) outcome.failure = ops::kubectl_cordon(c, p.name, cordon);
    if (!outcome.failure) outcome.failure = ops::kubectl_set_taints(c, p.name, taints);
  });
}

// A Deployment's spec.replicas; a template change is not rolled out.
std::optional<HttpResponse> update_deployment(Session& session, const ApiPath& p, const json& before, json& after,
                                              UpdateOutcome& outcome) {
  const json& r = after["spec"].contains("replicas") ? after["spec"]["replicas"] : json(1);
  if (auto bad = replicas_error("Deployment.apps", p.name, r)) return *bad;
  int replicas = r.get<int>();
  if (client_fields(before)["spec"]["template"] != client_fields(after)["spec"]["template"])
    outcome.ignored.push_back("Deployment template changes are not rolled out by eksim; only spec.replicas is applied");
  session.apply_now([&](Cluster& c) { outcome.failure = ops::kubectl_scale(c, "Deployment", p.ns, p.name, replicas); });
  return std::nullopt;
}

// The kinds eksim reads whole (NodePool, node classes, ConfigMap, Service): applied again as
// the manifest a timeline action would apply.
std::optional<HttpResponse> reapply(Session& session, const ApiPath& p, const json& after) {
  HttpResponse err;
  std::vector<scenario::Manifest> manifests;
  if (!decode(session, client_fields(after), manifests, err)) return err;
  if (auto bad = service_refusal(session, manifests)) return *bad;
  keep_metadata(session, *p.type, p.ns, p.name, after);
  session.apply_now([&manifests](Cluster& c) { ops::apply_manifests(c, manifests); });
  return std::nullopt;
}

// An object the API server keeps as sent (no model reads it): replaced whole by an update.
bool kept_whole(Session& session, const ResourceType& t, const ApiPath& p) {
  return session.cluster().api.custom_resources().find_object(t.group, t.kind, p.ns, p.name) != nullptr ||
         t.kind == "CustomResourceDefinition";
}

// Carries a changed object into the model: the fields eksim's models read, each through the
// operation a timeline action would use. Other changes are refused or remarked in a hint.
HttpResponse update(Session& session, const HttpRequest& req, const ApiPath& p, const json& before, json after) {
  const ResourceType& t = *p.type;
  UpdateOutcome outcome;
  if (req.param("dryRun") == "All") return json_response(after);
  std::optional<HttpResponse> refused;
  if (t.kind == "Pod") {
    refused = update_pod(session, p, before, after, outcome);
  } else if (t.kind == "Node") {
    update_node(session, p, before, after, outcome);
  } else if (t.kind == "Deployment") {
    refused = update_deployment(session, p, before, after, outcome);
  } else if (t.kind == "NodePool" || t.kind == "EC2NodeClass" || t.kind == "NodeClass" || t.kind == "ConfigMap" ||
             t.kind == "Service" || kept_whole(session, t, p)) {
    refused = reapply(session, p, after);
  } else {
    return status_error(405, "MethodNotAllowed", "eksim: changing " + t.resource + " is not modelled");
  }
  if (refused) return *refused;
  if (outcome.failure) return from_error(*outcome.failure, p);
  if (!outcome.ignored.empty())
    session.apply_now([&](Cluster& c) {
      for (const auto& w : outcome.ignored) c.hint("Unsupported", {t.kind, p.ns, p.name}, w);
    });
  const StoredObject* o = session.store().find(store_type(t), p.ns, p.name);
  if (!o) return not_found(p);
  return json_response(served_now(session, *o));
}

json apply_patch(const HttpRequest& req, const json& target, const json& patch) {
  const std::string& ct = req.content_type;
  if (ct.find("json-patch+json") != std::string::npos) return target.patch(patch);
  if (ct.find("strategic-merge-patch") != std::string::npos) return strategic_merge_patch(target, patch);
  return json_merge_patch(target, patch);  // merge-patch+json, and apply-patch+yaml approximated as a merge
}

// An Eviction (kubectl drain) or a DELETE carries only options, which eksim does not need:
// kubectl 1.32 sends them in protobuf, so they are honoured without reading the body.
HttpResponse evict(Session& session, const ApiPath& p) {
  ObjectStore& store = session.store();
  if (!store.find(store_type(*p.type), p.ns, p.name)) return not_found(p);
  std::optional<ops::KubectlError> failure;
  session.apply_now([&](Cluster& c) { failure = ops::kubectl_delete(c, "Pod", p.ns, p.name); });
  if (failure) return from_error(*failure, p);
  return json_response({{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"status", "Success"}}, 201);
}

// kubectl 1.32+'s `create namespace|configmap|deployment|job` POST protobuf: read as the JSON
// kubectl 1.31 sent. Any other protobuf write is refused with the way around it.
std::optional<HttpResponse> read_protobuf(const HttpRequest& req, const ApiPath& p, std::optional<json>& object) {
  if (!is_protobuf(req) || req.method == "DELETE") return std::nullopt;
  if (req.method != "POST" || !p.name.empty()) return protobuf_refused();
  try {
    object = decode_protobuf_object(req.body);
  } catch (const std::exception& e) {
    return status_error(400, "BadRequest", std::string("the protobuf body could not be read: ") + e.what());
  }
  if (!object) return protobuf_refused();
  return std::nullopt;
}

// A POST to a named object is a subresource eksim does not serve: say why.
HttpResponse post_to_object(Session& session, const HttpRequest& req, const ApiPath& p) {
  if (p.subresource == "exec" && p.type->resource == "pods") {
    // kubectl falls back to SPDY (a POST) when the WebSocket upgrade was refused: give the
    // same reason again (the pod is not running, ...), or say what speaks WebSocket.
    ExecResult r = exec_in_pod(session, p, {}, req.param("container"));
    if (r.refused) return *r.refused;
  }
  if (p.subresource == "exec" || p.subresource == "attach" || p.subresource == "portforward")
    return status_error(400, "BadRequest", "eksim serve does not run containers: " + p.subresource +
                                               " is not available (exec answers kubectl 1.30+ over WebSocket: nvidia-smi, hostname)");
  return status_error(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
}

// ?gracePeriodSeconds=N, or the DeleteOptions body's (a JSON one; a protobuf one is not read).
std::optional<std::int64_t> grace_period(const HttpRequest& req) {
  std::optional<std::int64_t> grace;
  if (std::string g = req.param("gracePeriodSeconds"); !g.empty()) grace = std::strtoll(g.c_str(), nullptr, 10);
  json opts;
  if (!req.body.empty() && !is_protobuf(req) && (opts = json::parse(req.body, nullptr, false)).is_object() && opts.contains("gracePeriodSeconds") &&
      opts["gracePeriodSeconds"].is_number_integer())
    grace = opts["gracePeriodSeconds"].get<std::int64_t>();
  return grace;
}

HttpResponse delete_object(Session& session, const HttpRequest& req, const ApiPath& p, const StoredObject& o) {
  const ResourceType& t = *p.type;
  std::optional<std::int64_t> grace = grace_period(req);
  json last = served_now(session, o);
  if (req.param("dryRun") == "All") return json_response(last);
  std::optional<ops::KubectlError> failure;
  session.apply_now([&](Cluster& c) { failure = ops::kubectl_delete(c, t.kind, p.ns, p.name, grace); });
  if (failure) return from_error(*failure, p);
  if (const StoredObject* still = session.store().find(store_type(t), p.ns, p.name))
    return json_response(served_now(session, *still));
  return json_response({{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"status", "Success"},
                        {"details", {{"name", p.name}, {"group", t.group}, {"kind", t.resource}, {"uid", last["metadata"].value("uid", "")}}}});
}

// PUT or PATCH of a Deployment's scale subresource (kubectl scale).
HttpResponse write_scale(Session& session, const HttpRequest& req, const ApiPath& p, const StoredObject& o, const json& body) {
  const ResourceType& t = *p.type;
  if (t.resource != "deployments") return not_found(p);
  json scale = scale_object(session, o);
  json next;
  try {
    next = req.method == "PUT" ? body : apply_patch(req, scale, body);
  } catch (const std::exception& e) {
    return status_error(400, "BadRequest", e.what());
  }
  if (!next.contains("spec") || !next["spec"].contains("replicas") || !next["spec"]["replicas"].is_number_integer())
    return status_error(422, "Invalid", "Scale.autoscaling \"" + p.name + "\" is invalid: spec.replicas: Required value");
  if (auto bad = replicas_error("Scale.autoscaling", p.name, next["spec"]["replicas"])) return *bad;
  int replicas = next["spec"]["replicas"].get<int>();
  std::optional<ops::KubectlError> failure;
  session.apply_now([&](Cluster& c) { failure = ops::kubectl_scale(c, "Deployment", p.ns, p.name, replicas); });
  if (failure) return from_error(*failure, p);
  return json_response(scale_object(session, *session.store().find(store_type(t), p.ns, p.name)));
}

// PUT or PATCH of an object or its status: the next object, checked, then updated.
HttpResponse replace_or_patch(Session& session, const HttpRequest& req, const ApiPath& p, const StoredObject& o,
                              const json& body) {
  if (!p.subresource.empty() && p.subresource != "status")
    return status_error(404, "NotFound", "the server could not find the requested resource", json::object());
  json current = ObjectStore::served(o);
  json next;
  try {
    next = req.method == "PUT" ? body : apply_patch(req, current, body);
  } catch (const std::exception& e) {
    return status_error(422, "Invalid", std::string("the request is invalid: ") + e.what());
  }
  if (!next.is_object() || !next.contains("metadata") || !next["metadata"].is_object())
    return status_error(422, "Invalid", p.type->kind + " \"" + p.name + "\" is invalid: metadata: Required value");
  if (next["metadata"].value("name", p.name) != p.name)
    return status_error(400, "BadRequest", "the name of the object (" + next["metadata"].value("name", "") +
                                               ") does not match the name on the URL (" + p.name + ")");
  return update(session, req, p, current, next);
}

}  // namespace

HttpResponse handle_write(Session& session, const HttpRequest& req, const ApiPath& p) {
  const ResourceType& t = *p.type;
  ObjectStore& store = session.store();
  if (req.method == "POST" && p.subresource == "eviction" && t.resource == "pods") return evict(session, p);
  std::optional<json> protobuf_object;
  if (auto refused = read_protobuf(req, p, protobuf_object)) return *refused;
  if (req.method == "POST") {
    if (!p.name.empty()) return post_to_object(session, req, p);
    json body;
    HttpResponse err;
    if (protobuf_object) body = std::move(*protobuf_object);
    else if (!parse_body(req, body, err)) return err;
    return create(session, req, p, body);
  }
  if (p.name.empty())
    return status_error(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
  const StoredObject* o = store.find(store_type(t), p.ns, p.name);
  if (req.method == "DELETE") return o ? delete_object(session, req, p, *o) : not_found(p);
  json body;
  HttpResponse err;
  if (!parse_body(req, body, err)) return err;
  bool server_side_apply = req.content_type.find("apply-patch") != std::string::npos;
  if (!o) {
    if (server_side_apply && p.subresource.empty()) return create(session, req, p, body, 201);
    return not_found(p);
  }
  if (p.subresource == "scale") return write_scale(session, req, p, *o, body);
  return replace_or_patch(session, req, p, *o, body);
}

}  // namespace eksim::serve
