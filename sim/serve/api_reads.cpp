// GET: single objects, lists (plain or as a Table), watches, pods/log and deployments/scale.
#include <algorithm>
#include <stdexcept>

#include "models/cluster/kubelet_access.hpp"
#include "sim/serve/api_handler.hpp"
#include "sim/serve/container_logs.hpp"
#include "sim/serve/log_follow.hpp"
#include "sim/serve/tables.hpp"

namespace eksim::serve {

using nlohmann::json;

namespace {

bool wants_table(const HttpRequest& req) { return req.accept.find("as=Table") != std::string::npos; }

// The selectors of a list or watch; a malformed one is a 400 as the apiserver gives it.
bool parse_selectors(const HttpRequest& req, const ResourceType& t, Selector& labels, Selector& fields, HttpResponse& err) {
  try {
    labels = parse_label_selector(req.param("labelSelector"));
    fields = parse_field_selector(req.param("fieldSelector"));
    check_field_selector(fields, t.kind);
  } catch (const std::invalid_argument& e) {
    err = status_error(400, "BadRequest", e.what());
    return false;
  }
  return true;
}

HttpResponse pod_log(Session& session, const HttpRequest& req, const ApiPath& p) {
  Cluster& c = session.cluster();
  auto id = c.api.find_pod(p.ns, p.name);
  if (!id) return not_found(p);
  const k8s::PodRecord& rec = c.api.pod(*id);
  const auto& containers = rec.pod.spec.containers;
  std::string name = req.param("container");
  if (name.empty()) {
    if (containers.size() != 1) {
      std::string names;
      for (const auto& ct : containers) names += (names.empty() ? "" : " ") + ct.name;
      return status_error(400, "BadRequest", "a container name must be specified for pod " + p.name +
                                                 ", choose one of: [" + names + "]");
    }
    name = containers[0].name;
  }
  auto it = std::find_if(containers.begin(), containers.end(), [&](const k8s::Container& ct) { return ct.name == name; });
  if (it == containers.end())
    return status_error(400, "BadRequest", "container " + name + " is not valid for pod " + p.name);
  if (!rec.pod.status.started_at) {
    std::string why = rec.pod.status.reason.empty() ? "ContainerCreating" : rec.pod.status.reason;
    return status_error(400, "BadRequest",
                        "container \"" + name + "\" in pod \"" + p.name + "\" is waiting to start: " + why);
  }
  // The API server proxies the request to the node's kubelet (pod/rest/log.go LogLocation):
  // a security group that drops it surfaces as the dial error, a Status without a reason
  // ("Error from server: Get ...").
  if (auto dial = kubelet_dial_error(c, c.api.node(rec.node))) {
    std::string query;
    for (const char* key : {"follow", "limitBytes", "previous", "sinceSeconds", "tailLines", "timestamps"}) {
      std::string v = req.param(key);
      if (v.empty() || v == "false") continue;
      query += (query.empty() ? "?" : "&") + std::string(key) + "=" + v;
    }
    const std::string& ip = c.ec2.find(c.api.node(rec.node).instance_id)->private_ip;
    json body = {{"kind", "Status"},
                 {"apiVersion", "v1"},
                 {"metadata", json::object()},
                 {"status", "Failure"},
                 {"message", "Get \"https://" + ip + ":10250/containerLogs/" + p.ns + "/" + p.name + "/" + name + query +
                                 "\": " + *dial},
                 {"code", 500}};
    return json_response(body, 500);
  }
  // The kubelet's validateContainerLogStatus: --previous reads the run the container was
  // restarted after, which the first container alone has in eksim.
  const bool previous = req.param("previous") == "true";
  if (previous && (!rec.pod.status.last_termination || &*it != &containers.front()))
    return status_error(400, "BadRequest", "previous terminated container \"" + name + "\" in pod \"" + p.name +
                                               "\" not found");
  std::string text = container_log(c, rec, *it, session.wall_sim0_unix_us(), previous);
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    lines.push_back(text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos + 1));
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  if (std::string tail = req.param("tailLines"); !tail.empty()) {
    long n = std::strtol(tail.c_str(), nullptr, 10);
    if (n >= 0 && static_cast<std::size_t>(n) < lines.size()) lines.erase(lines.begin(), lines.end() - n);
  }
  std::string stamp;
  if (req.param("timestamps") == "true") {
    // The run's start: eksim knows when a run began, not when each of its lines was written.
    const k8s::PodStatus& st = rec.pod.status;
    const engine::SimTime run = previous ? st.last_termination->started_at : st.container_started_at.value_or(*st.started_at);
    stamp = rfc3339(session.wall_sim0_unix_us() + run.us, true) + " ";
  }
  HttpResponse r;
  r.content_type = "text/plain";
  for (const auto& l : lines) r.body += stamp + l;
  // -f: the kubelet keeps the stream open while the container runs (the server asks follow_step).
  if (req.param("follow") == "true")
    r.follow = std::make_shared<LogFollow>(LogFollow{p.ns, p.name, name, *id, rec.pod.meta.uid,
                                                     rec.pod.status.restart_count, text.size(), stamp});
  return r;
}

}  // namespace

json scale_object(Session& session, const StoredObject& o) {
  json d = served_now(session, o);
  std::vector<std::string> sel;
  json match = d["spec"]["selector"].value("matchLabels", json::object());  // items() must not outlive it
  for (const auto& [k, v] : match.items()) sel.push_back(k + "=" + v.get<std::string>());
  std::string selector;
  for (const auto& s : sel) selector += (selector.empty() ? "" : ",") + s;
  return {{"kind", "Scale"},
          {"apiVersion", "autoscaling/v1"},
          {"metadata", {{"name", d["metadata"]["name"]}, {"namespace", d["metadata"]["namespace"]}, {"uid", d["metadata"]["uid"]},
                        {"resourceVersion", d["metadata"]["resourceVersion"]}, {"creationTimestamp", d["metadata"]["creationTimestamp"]}}},
          {"spec", {{"replicas", d["spec"]["replicas"]}}},
          {"status", {{"replicas", d["status"].value("replicas", 0)}, {"selector", selector}}}};
}

HttpResponse handle_read(Session& session, const HttpRequest& req, const ApiPath& p) {
  const ResourceType& t = *p.type;
  ObjectStore& store = session.store();
  std::string include = req.param("includeObject", "Metadata");
  if (!p.name.empty()) {
    if (p.subresource == "log" && t.resource == "pods") return pod_log(session, req, p);
    const StoredObject* o = store.find(store_type(t), p.ns, p.name);
    if (!o) return not_found(p);
    if (p.subresource == "scale" && t.resource == "deployments") return json_response(scale_object(session, *o));
    if (!p.subresource.empty() && p.subresource != "status")
      return status_error(404, "NotFound", "the server could not find the requested resource", json::object());
    if (wants_table(req)) {
      json table = make_table(t.kind, {&o->object}, session.store_now_us(), include, std::to_string(store.resource_version()));
      table["rows"][0]["object"]["metadata"]["resourceVersion"] = std::to_string(o->resource_version);
      rebase_timestamps(table, session.wall_delta_us());
      return json_response(table, 200, "application/json;as=Table;v=v1;g=meta.k8s.io");
    }
    return json_response(served_now(session, *o));
  }
  Selector labels, fields;
  HttpResponse err;
  if (!parse_selectors(req, t, labels, fields, err)) return err;
  std::string watch = req.param("watch");
  if (watch == "true" || watch == "1") {
    auto spec = std::make_shared<WatchSpec>();
    spec->type = store_type(t);
    spec->kind = t.kind;
    spec->ns = p.ns;
    spec->labels = labels;
    spec->fields = fields;
    spec->table = wants_table(req);
    spec->include_object = include;
    std::string rv = req.param("resourceVersion");
    spec->since = rv.empty() || rv == "0" ? 0 : std::strtoull(rv.c_str(), nullptr, 10);
    HttpResponse r;
    r.watch = spec;
    return r;
  }
  std::vector<const StoredObject*> matched;
  for (const auto& [key, o] : store.objects(store_type(t))) {
    if (!p.ns.empty() && o.object["metadata"].value("namespace", "") != p.ns) continue;
    if (!matches_labels(labels, o.object) || !matches_fields(fields, o.object)) continue;
    matched.push_back(&o);
  }
  std::string rv = std::to_string(store.resource_version());
  if (wants_table(req)) {
    std::vector<json> objs;
    objs.reserve(matched.size());
    for (const auto* o : matched) objs.push_back(ObjectStore::served(*o));
    std::vector<const json*> ptrs;
    for (const auto& o : objs) ptrs.push_back(&o);
    json table = make_table(t.kind, ptrs, session.store_now_us(), include, rv);
    rebase_timestamps(table, session.wall_delta_us());
    return json_response(table, 200, "application/json;as=Table;v=v1;g=meta.k8s.io");
  }
  json items = json::array();
  for (const auto* o : matched) {
    json item = served_now(session, *o);
    items.push_back(item);
  }
  return json_response({{"kind", t.list_kind()}, {"apiVersion", t.group_version()}, {"metadata", {{"resourceVersion", rv}}}, {"items", items}});
}

// One line of a watch stream for a change, or "" when the watch does not select it.
std::string watch_line(const WatchSpec& w, const WatchEvent& e, std::int64_t store_now_us, std::int64_t wall_delta_us) {
  if (e.resource != w.type) return "";
  const json& meta = e.object["metadata"];
  if (!w.ns.empty() && meta.value("namespace", "") != w.ns) return "";
  if (!matches_labels(w.labels, e.object) || !matches_fields(w.fields, e.object)) return "";
  json object;
  if (w.table) {
    object = make_table(w.kind, {&e.object}, store_now_us, w.include_object, meta.value("resourceVersion", ""));
    object.erase("columnDefinitions");
    object["columnDefinitions"] = json::array();
  } else {
    object = e.object;
  }
  rebase_timestamps(object, wall_delta_us);
  return json{{"type", e.type}, {"object", object}}.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace eksim::serve
