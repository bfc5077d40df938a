#pragma once
// A minimal blocking HTTP/1.1 client for `eksim ctl` (the clock endpoint) and the tests.
#include <cstdint>
#include <string>

namespace eksim::serve {

struct HttpResult {
  int status = 0;
  std::string body;
};

// server: "http://HOST:PORT". Throws std::runtime_error when the server cannot be reached.
HttpResult http_call(const std::string& server, const std::string& method, const std::string& target,
                     const std::string& body = "", const std::string& content_type = "application/json");

}  // namespace eksim::serve
