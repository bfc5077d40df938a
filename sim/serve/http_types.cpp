#include "sim/serve/http_types.hpp"

namespace eksim::serve {

using nlohmann::json;

std::string url_decode(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else if (s[i] == '+') {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

void parse_target(const std::string& target, HttpRequest& req) {
  auto q = target.find('?');
  req.path = url_decode(target.substr(0, q));
  if (q == std::string::npos) return;
  std::string rest = target.substr(q + 1);
  std::size_t pos = 0;
  while (pos <= rest.size()) {
    auto amp = rest.find('&', pos);
    std::string kv = rest.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
    if (!kv.empty()) {
      auto eq = kv.find('=');
      req.query[url_decode(kv.substr(0, eq))] = eq == std::string::npos ? "" : url_decode(kv.substr(eq + 1));
    }
    if (amp == std::string::npos) break;
    pos = amp + 1;
  }
}

HttpResponse status_error(int code, const std::string& reason, const std::string& message, const json& details) {
  json body = {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"status", "Failure"},
               {"message", message}, {"reason", reason}, {"code", code}};
  if (!details.is_null()) body["details"] = details;
  return json_response(body, code);
}

HttpResponse bad_request(const std::string& message) { return status_error(400, "BadRequest", message); }

HttpResponse json_response(const json& body, int status, const std::string& content_type) {
  HttpResponse r;
  r.status = status;
  r.content_type = content_type;
  r.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  return r;
}

}  // namespace eksim::serve
