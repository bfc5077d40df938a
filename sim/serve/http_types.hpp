#pragma once
// Requests and answers between the HTTP layer (Boost.Beast, http_server.cpp) and the API
// handlers, in plain types so that handlers are tested without sockets.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/serve/selectors.hpp"

namespace eksim::serve {

struct HttpRequest {
  std::string method;  // GET, POST, PUT, PATCH, DELETE
  std::string path;    // decoded, without the query
  std::map<std::string, std::string> query;  // decoded
  std::string accept;
  std::string content_type;
  std::string body;
  std::string user_agent;

  std::string param(const std::string& key, const std::string& fallback = "") const {
    auto it = query.find(key);
    return it == query.end() ? fallback : it->second;
  }
};

// An open watch: the list of one type, filtered, streamed as JSON lines from a resourceVersion.
struct WatchSpec {
  std::string type;  // store key
  std::string kind;
  std::string ns;    // "" = all namespaces
  Selector labels, fields;
  bool table = false;
  std::string include_object = "Metadata";
  std::uint64_t since = 0;
};

struct LogFollow;  // log_follow.hpp

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // e.g. Warning
  std::shared_ptr<WatchSpec> watch;  // set: stream watch events instead of a body
  std::shared_ptr<LogFollow> follow;  // set: the body, then the log as it grows (logs -f)
};

// Splits "/p/a/th?x=1&y=%20" into path and decoded query.
void parse_target(const std::string& target, HttpRequest& req);
std::string url_decode(const std::string& s);

// A Kubernetes Status error, as the apiserver writes them.
HttpResponse status_error(int code, const std::string& reason, const std::string& message,
                          const nlohmann::json& details = nullptr);
// 400 BadRequest with this message: what the apiserver answers to a request it cannot read.
HttpResponse bad_request(const std::string& message);
HttpResponse json_response(const nlohmann::json& body, int status = 200, const std::string& content_type = "application/json");

}  // namespace eksim::serve
