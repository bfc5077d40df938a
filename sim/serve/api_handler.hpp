#pragma once
// The Kubernetes API over a Session: routes a request to discovery, reads (get, list, watch,
// logs, scale), writes (create, patch, update, delete) or the eksim clock endpoint, and answers
// everything it cannot honour with a Status.
#include <string>

#include "sim/serve/http_types.hpp"
#include "sim/serve/resource_types.hpp"
#include "sim/serve/session.hpp"

namespace eksim::serve {

// A parsed resource path: /api/v1/namespaces/NS/pods/NAME/log and the like.
struct ApiPath {
  std::optional<ResourceType> type;
  std::string ns, name, subresource;
};

// type is nullopt when the path names no resource served now (a custom kind without its CRD).
ApiPath parse_api_path(const k8s::CustomResources& crds, const std::string& path);

HttpResponse handle_request(Session& session, const HttpRequest& req);
// Sends a recorded change again (a replay), past the replay's refusal of changes.
void apply_recorded(Session& session, const scenario::RecordedRequest& request);

// Pieces shared by the read and write handlers.
std::string store_type(const ResourceType& t);
HttpResponse not_found(const ApiPath& p);
// The object as served now: resourceVersion set, timestamps anchored at the wall clock.
nlohmann::json served_now(Session& session, const StoredObject& o);
HttpResponse handle_read(Session& session, const HttpRequest& req, const ApiPath& p);
HttpResponse handle_write(Session& session, const HttpRequest& req, const ApiPath& p);
HttpResponse handle_clock(Session& session, const HttpRequest& req);
// /eksim/v1/aws: the AWS-side actions of `eksim ctl aws ...` (aws_endpoint.cpp).
HttpResponse handle_aws(Session& session, const HttpRequest& req);
// autoscaling/v1 Scale of a Deployment.
nlohmann::json scale_object(Session& session, const StoredObject& o);
// One line of a watch stream for a change, or "" when the watch does not select it.
std::string watch_line(const WatchSpec& w, const WatchEvent& e, std::int64_t store_now_us, std::int64_t wall_delta_us);

}  // namespace eksim::serve
