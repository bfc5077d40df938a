#pragma once
// The HTTP/1.1 server (Boost.Beast) that puts a Session on the network: one io_context and one
// thread run the connections, the watch streams and the timer that advances simulated time, so
// requests always see the simulation between two slices.
#include <cstdint>
#include <memory>
#include <string>

#include "sim/serve/session.hpp"

namespace eksim::serve {

struct ServerOptions {
  std::string address = "127.0.0.1";  // loopback unless told otherwise
  std::uint16_t port = 6443;          // 0: any free port (tests)
  std::size_t max_body_bytes = 3 * 1024 * 1024;  // the apiserver's request size limit (3 MiB)
};

class HttpServer {
 public:
  // Binds at once; throws std::runtime_error with the reason when it cannot.
  HttpServer(Session& session, ServerOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  std::uint16_t port() const;
  // Serves until stop() (from any thread).
  void run();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace eksim::serve
