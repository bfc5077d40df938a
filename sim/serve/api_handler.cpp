#include "sim/serve/api_handler.hpp"

#include <sstream>
#include <vector>

#include "sim/serve/discovery.hpp"

namespace eksim::serve {

using nlohmann::json;

namespace {

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::stringstream ss(path);
  std::string seg;
  while (std::getline(ss, seg, '/'))
    if (!seg.empty()) out.push_back(seg);
  return out;
}

HttpResponse page_not_found() {
  return status_error(404, "NotFound", "the server could not find the requested resource", json::object());
}

// kubectl falls back to /openapi/v2 (in protobuf) for a kind no /openapi/v3 document names, as a
// custom kind without its CRD: an empty document has no schema for it, so kubectl skips
// client-side validation and answers from discovery (`no matches for kind`), as against a real
// server. The kinds eksim serves are validated by the server (fieldValidation, /openapi/v3).
HttpResponse openapi_v2(const HttpRequest& req) {
  if (req.accept.find("protobuf") != std::string::npos)
    return HttpResponse{200, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf", "", {}, nullptr, nullptr};
  return json_response({{"swagger", "2.0"}, {"info", {{"title", "Kubernetes (eksim serve)"}, {"version", "v1.32.3"}}},
                        {"paths", json::object()}, {"definitions", json::object()}});
}

}  // namespace

std::string store_type(const ResourceType& t) { return ObjectStore::type_key(t.group, t.resource); }

HttpResponse not_found(const ApiPath& p) {
  std::string what = p.type->resource;
  if (!p.type->group.empty()) what += "." + p.type->group;
  return status_error(404, "NotFound", what + " \"" + p.name + "\" not found",
                      {{"name", p.name}, {"group", p.type->group}, {"kind", p.type->resource}});
}

json served_now(Session& session, const StoredObject& o) {
  json out = ObjectStore::served(o);
  rebase_timestamps(out, session.wall_delta_us());
  return out;
}

ApiPath parse_api_path(const k8s::CustomResources& crds, const std::string& path) {
  ApiPath p;
  auto seg = split_path(path);
  std::string group, version;
  std::size_t i;
  if (seg.size() >= 2 && seg[0] == "api") {
    version = seg[1];
    i = 2;
  } else if (seg.size() >= 3 && seg[0] == "apis") {
    group = seg[1];
    version = seg[2];
    i = 3;
  } else {
    return p;
  }
  std::vector<std::string> rest(seg.begin() + static_cast<std::ptrdiff_t>(i), seg.end());
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    if (auto t = find_resource_type(crds, group, version, rest[2]); t && t->namespaced) {
      p.type = std::move(t);
      p.ns = rest[1];
      if (rest.size() > 3) p.name = rest[3];
      if (rest.size() > 4) p.subresource = rest[4];
      if (rest.size() > 5) p.type.reset();
      return p;
    }
  }
  if (rest.empty()) return p;
  p.type = find_resource_type(crds, group, version, rest[0]);
  if (rest.size() > 1) p.name = rest[1];
  if (rest.size() > 2) p.subresource = rest[2];
  if (rest.size() > 3) p.type.reset();
  return p;
}

namespace {

HttpResponse route(Session& session, const HttpRequest& req);

}  // namespace

HttpResponse handle_request(Session& session, const HttpRequest& req) {
  if (req.path == "/eksim/v1/clock") return handle_clock(session, req);
  bool change = req.method != "GET" && req.method != "HEAD";
  // A replay shows a recorded run: nothing may change it.
  if (session.replay() && change)
    return status_error(405, "MethodNotAllowed",
                        "eksim serve --replay serves a recorded run, which cannot be changed: " + req.method + " refused");
  // Every change enters the simulation at the current instant; a recording keeps it with that
  // instant so a replay sends it again there.
  // (Protobuf bodies are refused below, and are no text a record can hold.)
  if (session.recording() && change && req.content_type.find("protobuf") == std::string::npos)
    session.record({engine::Duration{session.now().us}, req.method, req.path, req.query, req.content_type, req.body});
  return route(session, req);
}

void apply_recorded(Session& session, const scenario::RecordedRequest& r) {
  HttpRequest req;
  req.method = r.method;
  req.path = r.path;
  req.query = r.query;
  req.content_type = r.content_type;
  req.body = r.body;
  req.accept = "application/json";
  try {
    (void)route(session, req);
  } catch (const std::exception&) {
    // It failed the same way when it was made (the live server answered it with a 500).
  }
}

namespace {

HttpResponse route(Session& session, const HttpRequest& req) {
  if (req.path == "/eksim/v1/aws") return handle_aws(session, req);
  if (req.path == "/version" || req.path == "/version/") return json_response(version_info());
  if (req.path == "/healthz" || req.path == "/livez" || req.path == "/readyz") {
    return HttpResponse{200, "text/plain", "ok", {}, nullptr, nullptr};
  }
  if (req.method == "GET" && req.path == "/openapi/v2") return openapi_v2(req);
  const k8s::CustomResources& crds = session.cluster().api.custom_resources();
  if (req.method == "GET")
    if (auto doc = discovery_document(served_types(crds), crds, req.path)) return json_response(*doc);
  ApiPath p = parse_api_path(crds, req.path);
  if (!p.type) return page_not_found();
  if (!p.type->namespaced && !p.ns.empty()) return page_not_found();
  if (req.method == "GET") return handle_read(session, req, p);
  if (req.method == "POST" || req.method == "PUT" || req.method == "PATCH" || req.method == "DELETE")
    return handle_write(session, req, p);
  return status_error(405, "MethodNotAllowed", "the server does not allow this method on the requested resource",
                      json::object());
}

}  // namespace

}  // namespace eksim::serve
