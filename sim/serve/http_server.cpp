// Boost.Beast lives in this file only (it is template-heavy). Connections are C++20 coroutines
// on the server's one io_context; the clock timer runs on the same context, so a request is
// always handled between two simulation slices and never sees a half-advanced cluster.
#include "sim/serve/http_server.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <chrono>
#include <deque>
#include <list>

#include "sim/serve/api_handler.hpp"
#include "sim/serve/log_follow.hpp"
#include "sim/serve/pod_exec.hpp"

namespace eksim::serve {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using nlohmann::json;

namespace {

constexpr auto kTick = std::chrono::milliseconds(50);
constexpr auto kIdle = std::chrono::seconds(60);       // keep-alive idle and slow-client limit
constexpr std::size_t kMaxPendingLines = 20000;        // a watcher that stopped reading is dropped

// One open watch stream: lines waiting to be written, and a timer used as a wake-up signal.
struct Watcher {
  WatchSpec spec;
  std::deque<std::string> pending;
  net::steady_timer wake;
  bool overflow = false;
  engine::SimTime ends_at;  // simulated: the server ends the watch once the clock passes it
  explicit Watcher(WatchSpec s, net::any_io_executor ex) : spec(std::move(s)), wake(ex) {}
};

std::string chunk(const std::string& data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return size + data + "\r\n";
}

}  // namespace

struct HttpServer::Impl {
  Session& session;
  ServerOptions options;
  net::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  net::steady_timer ticker{ioc};
  std::list<std::shared_ptr<Watcher>> watchers;
  // Open `logs -f` streams, each waiting on its timer until simulated time or an object changes.
  std::list<std::shared_ptr<net::steady_timer>> followers;
  std::chrono::steady_clock::time_point last_tick = std::chrono::steady_clock::now();
  double carry_us = 0;

  Impl(Session& s, ServerOptions o) : session(s), options(std::move(o)) {
    beast::error_code ec;
    auto address = net::ip::make_address(options.address, ec);
    if (ec) throw std::runtime_error("--address: not an IP address: \"" + options.address + "\"");
    tcp::endpoint ep{address, options.port};
    acceptor.open(ep.protocol(), ec);
    if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor.bind(ep, ec);
    if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
    if (ec) throw std::runtime_error("cannot listen on " + options.address + ":" + std::to_string(options.port) + ": " + ec.message());
    session.store().on_change = [this](const WatchEvent& e) { publish(e); };
    // A followed log is a stream too: while one is open, advances run in one-second slices so
    // its lines and its end arrive at their simulated instants.
    session.open_watches = [this] { return watchers.size() + followers.size(); };
    session.advanced = [this] {
      for (auto& w : watchers)
        if (session.now() >= w->ends_at) w->wake.cancel();
      for (auto& f : followers) f->cancel();
    };
  }

  void publish(const WatchEvent& e) {
    for (auto& f : followers) f->cancel();  // a pod deleted at once ends its followed log
    for (auto& w : watchers) {
      std::string line;
      try {
        line = watch_line(w->spec, e, session.store_now_us(), session.wall_delta_us());
      } catch (const std::exception&) {
        continue;  // an object this watch cannot render must not stop the clock for everyone
      }
      if (line.empty()) continue;
      if (w->pending.size() >= kMaxPendingLines) w->overflow = true;
      else w->pending.push_back(std::move(line));
      w->wake.cancel();
    }
  }

  // Advances simulated time by the wall-clock time since the last tick times the speed.
  void tick() {
    auto now = std::chrono::steady_clock::now();
    double wall_us = std::chrono::duration<double, std::micro>(now - last_tick).count();
    last_tick = now;
    const ClockSpeed& sp = session.speed;
    if (sp.paused) return;
    if (sp.max) {
      // As fast as the machine runs, but in bounded steps so requests keep being answered.
      auto stop = now + std::chrono::milliseconds(40);
      while (std::chrono::steady_clock::now() < stop) session.advance_to(session.now() + engine::Duration::seconds(10));
      return;
    }
    carry_us += wall_us * sp.factor;
    auto step = static_cast<std::int64_t>(carry_us);
    carry_us -= static_cast<double>(step);
    if (step > 0) session.advance_to(session.now() + engine::Duration{step});
  }

  net::awaitable<void> run_clock() {
    for (;;) {
      ticker.expires_after(kTick);
      beast::error_code ec;
      co_await ticker.async_wait(net::redirect_error(net::use_awaitable, ec));
      if (ec) co_return;
      try {
        tick();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "eksim serve: simulation stopped: %s\n", e.what());
        session.speed.paused = true;
      }
    }
  }

  net::awaitable<void> accept_loop() {
    for (;;) {
      beast::error_code ec;
      tcp::socket sock = co_await acceptor.async_accept(net::redirect_error(net::use_awaitable, ec));
      if (ec) {
        if (ec == net::error::operation_aborted) co_return;
        continue;
      }
      net::co_spawn(ioc, serve_connection(std::move(sock)), net::detached);
    }
  }

  static HttpRequest to_request(const http::request<http::string_body>& r) {
    HttpRequest req;
    req.method = std::string(r.method_string());
    parse_target(std::string(r.target()), req);
    req.accept = std::string(r[http::field::accept]);
    req.content_type = std::string(r[http::field::content_type]);
    req.user_agent = std::string(r[http::field::user_agent]);
    req.body = r.body();
    return req;
  }

  net::awaitable<void> write_response(beast::tcp_stream& stream, const HttpResponse& resp, unsigned version, bool keep_alive) {
    http::response<http::string_body> res{static_cast<http::status>(resp.status), version};
    res.set(http::field::server, "eksim-serve");
    res.set(http::field::content_type, resp.content_type);
    res.set(http::field::cache_control, "no-cache, private");
    for (const auto& [k, v] : resp.headers) res.insert(k, v);
    res.keep_alive(keep_alive);
    res.body() = resp.body;
    res.prepare_payload();
    stream.expires_after(kIdle);
    beast::error_code ec;
    co_await http::async_write(stream, res, net::redirect_error(net::use_awaitable, ec));
  }

  net::awaitable<void> serve_connection(tcp::socket sock) {
    beast::tcp_stream stream(std::move(sock));
    beast::flat_buffer buffer;
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(options.max_body_bytes);
      parser.header_limit(64 * 1024);
      stream.expires_after(kIdle);
      beast::error_code ec;
      co_await http::async_read(stream, buffer, parser, net::redirect_error(net::use_awaitable, ec));
      if (ec == http::error::end_of_stream || ec == net::error::eof || ec == beast::error::timeout ||
          ec == net::error::connection_reset || ec == net::error::operation_aborted)
        co_return;
      if (ec == http::error::body_limit) {
        co_await write_response(stream, status_error(413, "RequestEntityTooLarge",
                                                     "the request body is larger than " +
                                                         std::to_string(options.max_body_bytes) + " bytes"),
                                11, false);
        co_return;
      }
      if (ec) {
        co_await write_response(stream, status_error(400, "BadRequest", "malformed HTTP request: " + ec.message()), 11, false);
        co_return;
      }
      const auto& raw = parser.get();
      HttpRequest req = to_request(raw);
      if (beast::websocket::is_upgrade(raw) && req.path.ends_with("/exec")) {
        ApiPath p = parse_api_path(session.cluster().api.custom_resources(), req.path);
        if (p.type && p.type->resource == "pods" && p.subresource == "exec") {
          ExecResult r = exec_in_pod(session, p, exec_command(std::string(raw.target())), req.param("container"));
          if (r.refused) {
            co_await write_response(stream, *r.refused, raw.version(), false);
            co_return;
          }
          co_await run_exec(std::move(stream), parser.release(), r);
          co_return;
        }
      }
      HttpResponse resp;
      try {
        resp = handle_request(session, req);
      } catch (const std::exception& e) {
        resp = status_error(500, "InternalError", std::string("eksim serve: ") + e.what());
      }
      if (resp.watch) {
        co_await stream_watch(stream, *resp.watch, req);
        co_return;
      }
      if (resp.follow) {
        co_await stream_follow(stream, resp.body, resp.follow);
        co_return;
      }
      bool keep = raw.keep_alive();
      co_await write_response(stream, resp, raw.version(), keep);
      if (!keep) co_return;
    }
  }

  // The remote-command WebSocket protocol kubectl 1.30+ speaks (v5.channel.k8s.io): one binary
  // frame per channel, the first byte naming it (1 stdout, 2 stderr, 3 the Status), then close.
  net::awaitable<void> run_exec(beast::tcp_stream stream, http::request<http::string_body> req, ExecResult r) {
    beast::websocket::stream<beast::tcp_stream> ws(std::move(stream));
    std::string offered(req[http::field::sec_websocket_protocol]);
    std::string protocol = offered.find("v5.channel.k8s.io") != std::string::npos ? "v5.channel.k8s.io" : "v4.channel.k8s.io";
    ws.set_option(beast::websocket::stream_base::decorator(
        [protocol](beast::websocket::response_type& res) { res.set(http::field::sec_websocket_protocol, protocol); }));
    ws.set_option(beast::websocket::stream_base::timeout::suggested(beast::role_type::server));
    beast::error_code ec;
    co_await ws.async_accept(req, net::redirect_error(net::use_awaitable, ec));
    if (ec) co_return;
    ws.binary(true);
    // kubectl registers its stream pipes only after the upgrade returns, in a goroutine racing its
    // reader loop: a frame that arrives first is dropped ("Unknown stream id 2, discarding
    // message") and the close then fails the exec with "closed all streams". A real container
    // runtime takes tens to hundreds of milliseconds to start the process before anything is
    // written, so wait as long before the first frame.
    net::steady_timer process_start(ws.get_executor(), std::chrono::milliseconds(250));
    co_await process_start.async_wait(net::redirect_error(net::use_awaitable, ec));
    ec = {};
    auto frame = [&](char channel, const std::string& data) -> net::awaitable<void> {
      std::string payload = std::string(1, channel) + data;
      co_await ws.async_write(net::buffer(payload), net::redirect_error(net::use_awaitable, ec));
    };
    if (!r.out.empty()) co_await frame('\x01', r.out);
    if (!ec && !r.err.empty()) co_await frame('\x02', r.err);
    json status = {{"metadata", json::object()}, {"status", r.exit_code == 0 ? "Success" : "Failure"}};
    if (r.exit_code != 0) {
      status["message"] = "command terminated with non-zero exit code: error executing command, exit status " +
                          std::to_string(r.exit_code);
      status["reason"] = "NonZeroExitCode";
      status["details"] = {{"causes", json::array({{{"reason", "ExitCode"}, {"message", std::to_string(r.exit_code)}}})}};
    }
    if (!ec) co_await frame('\x03', status.dump());
    if (!ec) co_await ws.async_close(beast::websocket::close_code::normal, net::redirect_error(net::use_awaitable, ec));
  }

  // `logs -f`: the log so far, then what the container prints as simulated time passes, in
  // chunks; the stream ends when the container exits or the pod is gone.
  net::awaitable<void> stream_follow(beast::tcp_stream& stream, std::string first, std::shared_ptr<LogFollow> f) {
    auto wake = std::make_shared<net::steady_timer>(ioc);
    followers.push_back(wake);
    auto it = std::prev(followers.end());
    std::string header =
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nCache-Control: no-cache, private\r\n"
        "Transfer-Encoding: chunked\r\n\r\n";
    beast::error_code ec;
    stream.expires_after(kIdle);
    co_await net::async_write(stream, net::buffer(header), net::redirect_error(net::use_awaitable, ec));
    std::string data = std::move(first);
    while (!ec) {
      if (!data.empty()) {
        std::string c = chunk(data);
        stream.expires_after(kIdle);  // a client that stops reading is dropped
        co_await net::async_write(stream, net::buffer(c), net::redirect_error(net::use_awaitable, ec));
        if (ec) break;
      }
      FollowStep step;
      try {
        step = follow_step(session, *f);
      } catch (const std::exception&) {
        step.done = true;
      }
      data = std::move(step.data);
      if (step.done) {
        if (!data.empty()) {
          std::string c = chunk(data);
          co_await net::async_write(stream, net::buffer(c), net::redirect_error(net::use_awaitable, ec));
        }
        break;
      }
      if (!data.empty()) continue;
      stream.expires_never();
      wake->expires_after(std::chrono::seconds(30));  // a wake-up only: advances and changes cancel it
      beast::error_code wait_ec;
      co_await wake->async_wait(net::redirect_error(net::use_awaitable, wait_ec));
    }
    followers.erase(it);
    co_await end_stream(stream, ec);
  }

  // The last chunk of a streamed answer (if the client is still there), then the connection ends.
  static net::awaitable<void> end_stream(beast::tcp_stream& stream, beast::error_code ec) {
    if (!ec) {
      std::string end = "0\r\n\r\n";
      co_await net::async_write(stream, net::buffer(end), net::redirect_error(net::use_awaitable, ec));
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  }

  net::awaitable<void> stream_watch(beast::tcp_stream& stream, WatchSpec spec, const HttpRequest& req) {
    auto w = std::make_shared<Watcher>(spec, ioc.get_executor());
    ObjectStore& store = session.store();
    std::vector<const WatchEvent*> backlog;
    if (spec.since == 0) {
      // No resourceVersion: the current state first, as ADDED events.
      for (const auto& [key, o] : store.objects(spec.type)) {
        WatchEvent e{o.resource_version, spec.type, "ADDED", ObjectStore::served(o)};
        std::string line = watch_line(spec, e, session.store_now_us(), session.wall_delta_us());
        if (!line.empty()) w->pending.push_back(line);
      }
    } else if (!store.changes_since(spec.type, spec.since, backlog)) {
      json expired = {{"type", "ERROR"},
                      {"object", {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"status", "Failure"},
                                  {"message", "too old resource version: " + std::to_string(spec.since)},
                                  {"reason", "Expired"}, {"code", 410}}}};
      w->pending.push_back(expired.dump() + "\n");
    } else {
      for (const WatchEvent* e : backlog) {
        std::string line = watch_line(spec, *e, session.store_now_us(), session.wall_delta_us());
        if (!line.empty()) w->pending.push_back(line);
      }
    }
    std::optional<std::int64_t> timeout_seconds;
    if (std::string t = req.param("timeoutSeconds"); !t.empty()) timeout_seconds = std::max(0L, std::strtol(t.c_str(), nullptr, 10));
    w->ends_at = session.watch_ends_at(timeout_seconds);
    watchers.push_back(w);
    auto it = std::prev(watchers.end());
    std::string header =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: no-cache, private\r\n"
        "Transfer-Encoding: chunked\r\n\r\n";
    beast::error_code ec;
    stream.expires_never();
    co_await net::async_write(stream, net::buffer(header), net::redirect_error(net::use_awaitable, ec));
    while (!ec) {
      while (!w->pending.empty() && !ec) {
        std::string data = chunk(w->pending.front());
        w->pending.pop_front();
        stream.expires_after(kIdle);  // a client that stops reading is dropped
        co_await net::async_write(stream, net::buffer(data), net::redirect_error(net::use_awaitable, ec));
      }
      if (ec || w->overflow) break;
      if (session.now() >= w->ends_at) break;  // simulated time: a paused clock holds the watch open
      stream.expires_never();
      w->wake.expires_after(std::chrono::seconds(30));  // a wake-up only: publish and advances cancel it
      beast::error_code wait_ec;
      co_await w->wake.async_wait(net::redirect_error(net::use_awaitable, wait_ec));
    }
    watchers.erase(it);
    co_await end_stream(stream, ec);
  }
};

HttpServer::HttpServer(Session& session, ServerOptions options) : impl_(std::make_unique<Impl>(session, std::move(options))) {}
HttpServer::~HttpServer() {
  impl_->session.store().on_change = nullptr;
  impl_->session.open_watches = nullptr;
  impl_->session.advanced = nullptr;
}

std::uint16_t HttpServer::port() const { return impl_->acceptor.local_endpoint().port(); }

void HttpServer::run() {
  net::co_spawn(impl_->ioc, impl_->accept_loop(), net::detached);
  net::co_spawn(impl_->ioc, impl_->run_clock(), net::detached);
  impl_->ioc.run();
}

void HttpServer::stop() {
  net::post(impl_->ioc, [this] {
    beast::error_code ec;
    impl_->acceptor.close(ec);
    impl_->ticker.cancel();
    impl_->ioc.stop();
  });
}

}  // namespace eksim::serve
