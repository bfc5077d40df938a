#pragma once
// The API handlers' test fixture: a paused Session on one scenario, and requests as kubectl
// sends them (shared by api_handler_test.cpp and api_handler_crds_test.cpp).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "sim/scenario/scenario.hpp"
#include "sim/serve/api_handler.hpp"
#include "sim/serve/time_base.hpp"

namespace eksim::serve::serve_test {

inline constexpr const char* kTableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

struct ServedSession {
  explicit ServedSession(const std::string& scenario)
      : session(std::make_unique<scenario::Scenario>(scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/" + scenario)),
                std::nullopt, *parse_speed("paused", nullptr)) {}

  HttpResponse call(const std::string& method, const std::string& target, const std::string& body = "",
                    const std::string& content_type = "application/json", const std::string& accept = "application/json") {
    HttpRequest req;
    req.method = method;
    parse_target(target, req);
    req.body = body;
    req.content_type = content_type;
    req.accept = accept;
    HttpResponse r = handle_request(session, req);
    if (forbid_warnings) {
      for (const auto& [name, value] : r.headers) {
        EXPECT_NE(name, "Warning") << target << ": " << value;
      }
    }
    return r;
  }
  static nlohmann::json parse(const HttpResponse& r) { return nlohmann::json::parse(r.body); }
  nlohmann::json get(const std::string& target) { return parse(call("GET", target)); }

  // Every answer without a Warning header (what kubectl would print to the user).
  bool forbid_warnings = false;
  Session session;
};

}  // namespace eksim::serve::serve_test
