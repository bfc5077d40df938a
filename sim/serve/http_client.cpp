#include "sim/serve/http_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <stdexcept>

namespace eksim::serve {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

HttpResult http_call(const std::string& server, const std::string& method, const std::string& target,
                     const std::string& body, const std::string& content_type) {
  std::string rest = server;
  if (rest.rfind("http://", 0) == 0) rest = rest.substr(7);
  else if (rest.find("://") != std::string::npos)
    throw std::runtime_error("only http:// servers are supported (eksim serve), got \"" + server + "\"");
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  auto colon = rest.rfind(':');
  std::string host = colon == std::string::npos ? rest : rest.substr(0, colon);
  std::string port = colon == std::string::npos ? "80" : rest.substr(colon + 1);
  net::io_context ioc;
  net::ip::tcp::resolver resolver(ioc);
  beast::tcp_stream stream(ioc);
  beast::error_code ec;
  auto endpoints = resolver.resolve(host, port, ec);
  if (!ec) stream.connect(endpoints, ec);
  if (ec) throw std::runtime_error("cannot reach eksim serve at " + server + ": " + ec.message());
  http::request<http::string_body> req{http::string_to_verb(method), target, 11};
  req.set(http::field::host, host);
  req.set(http::field::user_agent, "eksim-ctl");
  req.set(http::field::accept, "application/json");
  if (!body.empty()) {
    req.set(http::field::content_type, content_type);
    req.body() = body;
  }
  req.prepare_payload();
  http::write(stream, req, ec);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  if (!ec) http::read(stream, buffer, res, ec);
  if (ec) throw std::runtime_error("eksim serve at " + server + " did not answer: " + ec.message());
  beast::error_code ignored;
  stream.socket().shutdown(net::ip::tcp::socket::shutdown_both, ignored);
  return {static_cast<int>(res.result_int()), res.body()};
}

}  // namespace eksim::serve
